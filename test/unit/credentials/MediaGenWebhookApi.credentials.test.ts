// credentials/MediaGenWebhookApi.credentials.ts and the messages about its secret (nodes/shared/signingSecret.ts,
// the trigger's notices and log): every piece of advice holds for an anonymous ID too, which has no account settings
// and so no signing secret to copy (spec, Authentication; test/integration/webhook-secret-anonymous.test.ts shows
// what the advice promises).
import { MediaGenWebhookApi } from '../../../credentials/MediaGenWebhookApi.credentials';
import { MediaGenTrigger } from '../../../nodes/MediaGenTrigger/MediaGenTrigger.node';
import { describeWebhookSecretProblem } from '../../../nodes/shared/signingSecret';

const help = () => String(new MediaGenWebhookApi().properties.find((p) => p.name === 'secret')!.description);

test('the Signing Secret help says what an anonymous ID enters, and what each node then does', () => {
	const text = help();
	expect(text).toContain('An anonymous ID has no account settings and no signing secret');
	expect(text).toContain('enter any secret of this shape (whsec_ and at least 16 random bytes in base64)');
	expect(text).toContain("Waiting → Pause reads its run back with the step's own credential (API key or anonymous ID)");
	expect(text).toContain('The trigger therefore never takes runs made with an anonymous ID.');
	// Account advice is addressed to accounts: "with an API key, try your account signing secret".
	expect(text).toMatch(/with an API key, try your account signing secret/);
});

test.each(['', 'whsec_', 'whsec_!!', 'whsec_YQ=='])(
	'the problem with secret %p is advice an anonymous ID can follow',
	(s) => {
		const message = describeWebhookSecretProblem(s)!;
		expect(message).not.toMatch(/your account settings|endpoint's signing secret from/);
		expect(message).toMatch(/an anonymous ID has no/);
		expect(message).toContain("the credential's Signing Secret");
	},
);

test("the trigger's notices tell anonymous IDs the truth: no secret, no read-back, wait in the Generate step", () => {
	const notices = new MediaGenTrigger().description.properties.filter((p) => p.type === 'notice');
	const text = notices.map((p) => p.displayName).join('\n');
	expect(text).toContain('Runs made with an anonymous ID cannot start this trigger');
	expect(text).toContain('Wait for those runs in the Generate step instead.');
	expect(text).not.toMatch(/your account's signing secret|Your account settings list/);
});
