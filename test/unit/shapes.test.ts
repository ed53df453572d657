import { MediaGenAnonymousApi } from '../../credentials/MediaGenAnonymousApi.credentials';
import { MediaGenApi } from '../../credentials/MediaGenApi.credentials';
import type { ICredentialsDecrypted, ICredentialTestFunctions } from 'n8n-workflow';

import { MediaGenTrigger } from '../../nodes/MediaGenTrigger/MediaGenTrigger.node';
import {
	describeAnonymousIdProblem,
	describeApiKeyProblem,
	describeBaseUrlProblem,
	readAnonymousId,
} from '../../nodes/shared/transport/credentialShapes';
import { describeWebhookCredentialProblem, describeWebhookSecretProblem } from '../../nodes/shared/signingSecret';

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
			(await new MediaGenApi().authenticate({ baseUrl: 'https://x/v1', apiKey: GOOD_KEY }, { url: '/me' })).headers,
		).toEqual({ Authorization: `Bearer ${GOOD_KEY}` });
		expect(
			(
				await new MediaGenAnonymousApi().authenticate(
					{ baseUrl: 'https://x/v1', secretAnonymousId: 'anon-12345' },
					{ url: '/me' },
				)
			).headers,
		).toEqual({ 'x-anon-id': 'anon-12345' });
		await expect(
			new MediaGenAnonymousApi().authenticate({ baseUrl: 'https://x/v1', secretAnonymousId: 'bad' }, { url: '/me' }),
		).rejects.toThrow(/8 to 80 characters/);
	});

	// A blank key or id must never become an empty Authorization or x-anon-id header.
	const blankish = [undefined, null, '', ' ', '\t\n'];
	test.each([...blankish, 'sk_', 'Bearer ', 42])('API key %j: refused before any header is set', async (apiKey) => {
		const options = { url: '/me', headers: { accept: 'application/json' } };
		const credentials = { baseUrl: 'https://x/v1', apiKey } as never;
		await expect(new MediaGenApi().authenticate(credentials, options)).rejects.toThrow(/API key/);
		expect(options.headers).toEqual({ accept: 'application/json' });
	});

	test.each([...blankish, 'short', 12345678])('anonymous id %j: refused before any header is set', async (id) => {
		const options = { url: '/me', headers: { accept: 'application/json' } };
		const credentials = { baseUrl: 'https://x/v1', secretAnonymousId: id } as never;
		await expect(new MediaGenAnonymousApi().authenticate(credentials, options)).rejects.toThrow(/anonymous ID/);
		expect(options.headers).toEqual({ accept: 'application/json' });
	});

	test.each([
		'http://api.example.com/v1',
		'HTTP://api.example.com/v1',
		'http://10.0.0.5:4010/v1',
		'http://192.168.1.20/v1',
		'http://localhost.example.com/v1',
		'http://127.0.0.1.nip.io/v1',
		'http://[::2]/v1',
	])('Base URL %p: plain http to another computer is refused, saying why and what to do', (url) => {
		expect(describeBaseUrlProblem(url)).toMatch(
			/^The Base URL starts with http:\/\/, which would send your API key or anonymous ID unencrypted .* Use https:\/\//,
		);
	});

	test.each([
		'http://127.0.0.1:4010/v1',
		'http://127.8.9.10/v1',
		'http://localhost:4010/v1',
		'http://LOCALHOST/v1/',
		'http://[::1]:4010/v1',
		'https://api.example.com/v1',
		' https://10.0.0.5/v1 ',
	])('Base URL %p is accepted', (url) => expect(describeBaseUrlProblem(url)).toBeUndefined());

	test.each(['', 'api.example.com/v1', 'ftp://api.example.com/v1', 'https://', 'https://exa mple.com'])(
		'Base URL %p without a usable https:// address is refused',
		(url) => expect(describeBaseUrlProblem(url)).toMatch(/^The Base URL (is empty|must start with https:\/\/)/),
	);

	test('authenticate refuses an http:// Base URL on a public host before setting any header', async () => {
		const options = { url: '/me', headers: {} };
		await expect(
			new MediaGenApi().authenticate({ baseUrl: 'http://api.example.com/v1', apiKey: GOOD_KEY }, options),
		).rejects.toThrow(/^The Base URL starts with http:\/\//);
		await expect(
			new MediaGenAnonymousApi().authenticate(
				{ baseUrl: 'http://api.example.com/v1', secretAnonymousId: 'anon-12345' },
				options,
			),
		).rejects.toThrow(/^The Base URL starts with http:\/\//);
		expect(options.headers).toEqual({});
	});

	test('the anonymous ID is read under its earlier field name too; the current name wins', async () => {
		expect(readAnonymousId({ anonymousId: 'old-name-01' })).toBe('old-name-01');
		expect(readAnonymousId({ secretAnonymousId: '', anonymousId: 'old-name-01' })).toBe('old-name-01');
		expect(readAnonymousId({ secretAnonymousId: 'new-name-01', anonymousId: 'old-name-01' })).toBe('new-name-01');
		const saved = { baseUrl: 'https://x/v1', anonymousId: 'old-name-01' };
		expect((await new MediaGenAnonymousApi().authenticate(saved, { url: '/me' })).headers).toEqual({
			'x-anon-id': 'old-name-01',
		});
		const field = new MediaGenAnonymousApi().properties.find((p) => p.name === 'anonymousId');
		expect(field).toMatchObject({ type: 'hidden', default: '' });
	});

	test('the catalogues, which need no identity, get no key or ID', async () => {
		for (const url of ['/models', '/apps']) {
			const apiKey = await new MediaGenApi().authenticate({ baseUrl: 'https://x/v1', apiKey: GOOD_KEY }, { url });
			expect(apiKey.headers).toBeUndefined();
			const anonymous = await new MediaGenAnonymousApi().authenticate(
				{ baseUrl: 'https://x/v1', secretAnonymousId: 'anon-12345' },
				{ url, method: 'GET' },
			);
			expect(anonymous.headers).toBeUndefined();
		}
	});

	test('the Base URL field is written for a user of the real service', () => {
		for (const credential of [new MediaGenApi(), new MediaGenAnonymousApi()]) {
			const baseUrl = credential.properties.find((p) => p.name === 'baseUrl')!;
			expect(baseUrl.placeholder).toBe('https://api.example.com/v1');
			expect(baseUrl.description).not.toMatch(/npm|sandbox/i);
			expect(baseUrl.description).toMatch(/starting with https:\/\/ and ending in \/v1/);
		}
	});
});
