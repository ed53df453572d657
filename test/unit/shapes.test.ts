import { MediaGenAnonymousApi } from '../../credentials/MediaGenAnonymousApi.credentials';
import { MediaGenApi } from '../../credentials/MediaGenApi.credentials';
import type { ICredentialsDecrypted, ICredentialTestFunctions } from 'n8n-workflow';

import { MediaGenTrigger } from '../../nodes/MediaGenTrigger/MediaGenTrigger.node';
import {
	describeAnonymousIdProblem,
	describeApiKeyProblem,
	describeWebhookCredentialProblem,
	describeWebhookSecretProblem,
} from '../../credentials/shapes';

const GOOD_KEY = `sk_${'0123456789abcdef0123456789abcdef01234567'}`;

describe('credential shapes', () => {
	test.each(['', 'sk_123', `pk_${'a'.repeat(40)}`, `sk_${'g'.repeat(40)}`, `sk_${'a'.repeat(41)}`])(
		'API key %p is refused naming the shape',
		(key) => {
			const problem = describeApiKeyProblem(key);
			expect(problem).toMatch(/sk_ followed by (exactly )?40 hex characters/);
			if (key.length > 6) expect(problem).not.toContain(key);
		},
	);

	test('a well-formed API key passes', () => expect(describeApiKeyProblem(GOOD_KEY)).toBeUndefined());

	test.each(['', 'short', 'a'.repeat(81), 'has space in it', 'bad/char!id'])(
		'anonymous id %p is refused naming the shape',
		(id) => {
			expect(describeAnonymousIdProblem(id)).toMatch(/8 to 80 characters/);
		},
	);

	test('a well-formed anonymous id passes', () => expect(describeAnonymousIdProblem('my-flow.01_x')).toBeUndefined());

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

	test('authenticate refuses a malformed key before any request, without echoing it', async () => {
		const bad = 'sk_notakey-super-secret';
		await expect(
			new MediaGenApi().authenticate({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: bad }, { url: '/me' }),
		).rejects.toThrow(/sk_ followed by exactly 40 hex/);
		await expect(
			new MediaGenApi().authenticate({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: bad }, { url: '/me' }),
		).rejects.not.toThrow(bad);
	});

	test('authenticate sets the right header for each identity', async () => {
		expect(
			(await new MediaGenApi().authenticate({ baseUrl: 'http://x/v1', apiKey: GOOD_KEY }, { url: '/me' })).headers,
		).toEqual({ Authorization: `Bearer ${GOOD_KEY}` });
		expect(
			(
				await new MediaGenAnonymousApi().authenticate(
					{ baseUrl: 'http://x/v1', secretAnonymousId: 'anon-12345' },
					{ url: '/me' },
				)
			).headers,
		).toEqual({ 'x-anon-id': 'anon-12345' });
		await expect(
			new MediaGenAnonymousApi().authenticate({ baseUrl: 'http://x/v1', secretAnonymousId: 'bad' }, { url: '/me' }),
		).rejects.toThrow(/8 to 80 characters/);
	});

	// A blank key or id must never become an empty Authorization or x-anon-id header.
	const blankish = [undefined, null, '', ' ', '\t\n'];
	test.each([...blankish, 'sk_', 'Bearer ', 42])('API key %j: refused before any header is set', async (apiKey) => {
		const options = { url: '/me', headers: { accept: 'application/json' } };
		const credentials = { baseUrl: 'http://x/v1', apiKey } as never;
		await expect(new MediaGenApi().authenticate(credentials, options)).rejects.toThrow(/API key/);
		expect(options.headers).toEqual({ accept: 'application/json' });
	});

	test.each([...blankish, 'short', 12345678])('anonymous id %j: refused before any header is set', async (id) => {
		const options = { url: '/me', headers: { accept: 'application/json' } };
		const credentials = { baseUrl: 'http://x/v1', secretAnonymousId: id } as never;
		await expect(new MediaGenAnonymousApi().authenticate(credentials, options)).rejects.toThrow(/anonymous ID/);
		expect(options.headers).toEqual({ accept: 'application/json' });
	});
});
