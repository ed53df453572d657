// credentials/common.ts: the identity header each credential sets after its checks (through the two credentials
// built on identityHeader), and the Base URL field.
import { MediaGenAnonymousApi } from '../../../credentials/MediaGenAnonymousApi.credentials';
import { MediaGenApi } from '../../../credentials/MediaGenApi.credentials';

const GOOD_KEY = `sk_${'0123456789abcdef0123456789abcdef01234567'}`;

describe('identity headers and the Base URL', () => {
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
