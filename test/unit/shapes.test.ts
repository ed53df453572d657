import { MediaGenAnonymousApi } from '../../credentials/MediaGenAnonymousApi.credentials';
import { MediaGenApi } from '../../credentials/MediaGenApi.credentials';
import { describeAnonymousIdProblem, describeApiKeyProblem, describeWebhookSecretProblem } from '../../credentials/shapes';

const GOOD_KEY = `sk_${'0123456789abcdef0123456789abcdef01234567'}`;

describe('credential shapes', () => {
	test.each(['', 'sk_123', `pk_${'a'.repeat(40)}`, `sk_${'g'.repeat(40)}`, `sk_${'a'.repeat(41)}`])('API key %p is refused naming the shape', (key) => {
		const problem = describeApiKeyProblem(key);
		expect(problem).toMatch(/sk_ followed by (exactly )?40 hex characters/);
		if (key.length > 6) expect(problem).not.toContain(key);
	});

	test('a well-formed API key passes', () => expect(describeApiKeyProblem(GOOD_KEY)).toBeUndefined());

	test.each(['', 'short', 'a'.repeat(81), 'has space in it', 'bad/char!id'])('anonymous id %p is refused naming the shape', (id) => {
		expect(describeAnonymousIdProblem(id)).toMatch(/8 to 80 characters/);
	});

	test('a well-formed anonymous id passes', () => expect(describeAnonymousIdProblem('my-flow.01_x')).toBeUndefined());

	test.each(['', 'secret', 'whsec_', 'whsec_!!!notbase64', 'whsec_YQ=='])('webhook secret %p is refused naming the shape', (s) => {
		expect(describeWebhookSecretProblem(s)).toMatch(/whsec_/);
	});

	test('a well-formed webhook secret passes', () => expect(describeWebhookSecretProblem(`whsec_${Buffer.alloc(24, 7).toString('base64')}`)).toBeUndefined());

	test('authenticate refuses a malformed key before any request, without echoing it', async () => {
		const bad = 'sk_notakey-super-secret';
		await expect(new MediaGenApi().authenticate({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: bad }, { url: '/me' })).rejects.toThrow(/sk_ followed by exactly 40 hex/);
		await expect(new MediaGenApi().authenticate({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: bad }, { url: '/me' })).rejects.not.toThrow(bad);
	});

	test('authenticate sets the right header for each identity', async () => {
		expect((await new MediaGenApi().authenticate({ baseUrl: 'http://x/v1', apiKey: GOOD_KEY }, { url: '/me' })).headers).toEqual({ Authorization: `Bearer ${GOOD_KEY}` });
		expect((await new MediaGenAnonymousApi().authenticate({ baseUrl: 'http://x/v1', anonymousId: 'anon-12345' }, { url: '/me' })).headers).toEqual({ 'x-anon-id': 'anon-12345' });
		await expect(new MediaGenAnonymousApi().authenticate({ baseUrl: 'http://x/v1', anonymousId: 'bad' }, { url: '/me' })).rejects.toThrow(/8 to 80 characters/);
	});
});
