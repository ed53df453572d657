// nodes/shared/signingSecret.ts: the shape of a webhook signing secret in either field of the credential, and
// the credential test both nodes run on it.
import type { ICredentialsDecrypted, ICredentialTestFunctions } from 'n8n-workflow';

import { MediaGenTrigger } from '../../../../nodes/MediaGenTrigger/MediaGenTrigger.node';
import { describeWebhookCredentialProblem, describeWebhookSecretProblem } from '../../../../nodes/shared/signingSecret';

describe('signing secrets', () => {
	test.each(['', 'secret', 'whsec_', 'whsec_!!!notbase64', 'whsec_YQ=='])(
		'webhook secret %p is refused naming the shape',
		(s) => {
			expect(describeWebhookSecretProblem(s)).toMatch(/whsec_/);
		},
	);

	const key = (bytes: number) => Buffer.alloc(bytes, 0x5a).toString('base64');
	const unusable = ['', ' ', 'whsec_', '!!', 'whsec_!!', 'YQ==', 'whsec_YQ==', 'whsec_YR==', key(15)];
	unusable.push(`whsec_${key(15)}`, `whsec_${key(12)} ${key(12)}`, `whsec_${key(24)}=`);
	const padded = unusable.flatMap((s) => [s, `  ${s}\t`]);
	test.each(padded)('blank or undecodable secret %j is refused in either field', (s) => {
		expect(describeWebhookSecretProblem(s, 'Signing Secret')).toMatch(/^The Signing Secret /);
		expect(describeWebhookCredentialProblem({ secret: s, previousSecret: '' })).toMatch(/^The Signing Secret /);
		const asPrevious = describeWebhookCredentialProblem({ secret: `whsec_${key(24)}`, previousSecret: s });
		if (s.trim()) expect(asPrevious).toMatch(/^The Previous Signing Secret /);
		else expect(asPrevious).toBeUndefined(); // a blank optional field is absent
		if (s.trim().length > 6) expect(asPrevious).not.toContain(s.trim());
	});

	test.each([`whsec_${key(16)}`, `whsec_${key(32)}`, ` whsec_${key(24)}\n`, key(24)])(
		'usable secret %j passes',
		(s) => {
			expect(describeWebhookCredentialProblem({ secret: s, previousSecret: s })).toBeUndefined();
		},
	);

	test('the credential test of the trigger uses the same check for both fields', async () => {
		const test = new MediaGenTrigger().methods.credentialTest.checkSigningSecret;
		const run = async (data: Record<string, string>) =>
			await test.call({} as ICredentialTestFunctions, { data } as unknown as ICredentialsDecrypted);
		const error = (field: string) => ({
			status: 'Error',
			message: expect.stringMatching(new RegExp(`^The ${field} `)),
		});
		const good = `whsec_${key(24)}`;
		expect(await run({ secret: good, previousSecret: ' ' })).toMatchObject({ status: 'OK' });
		expect(await run({ secret: 'whsec_', previousSecret: '' })).toMatchObject(error('Signing Secret'));
		expect(await run({ secret: good, previousSecret: 'whsec_!!' })).toMatchObject(error('Previous Signing Secret'));
	});

	test('a well-formed webhook secret passes', () =>
		expect(describeWebhookSecretProblem(`whsec_${Buffer.alloc(24, 7).toString('base64')}`)).toBeUndefined());
});
