// nodes/shared/transport/identity.ts: the shapes of API keys, anonymous IDs and Base URLs, each refusal naming the
// shape expected; the credential is read once per context, and a failed read is not kept.
import {
	describeAnonymousIdProblem,
	describeApiKeyProblem,
	describeBaseUrlProblem,
	identityOf,
} from '../../../../../nodes/shared/transport/identity';
import { testNode } from '../../../../helpers/node';

/** A context whose credential reads count, holding `data` (changeable between reads). */
function contextWith(data: Record<string, unknown>) {
	const reads = { count: 0 };
	const ctx = {
		getNode: () => testNode(),
		getNodeParameter: () => 'apiKey',
		getCredentials: async () => {
			reads.count++;
			return { ...data };
		},
	};
	return { ctx: ctx as never, reads, data };
}

const baseUrl = 'https://api.example.com/v1/';
const apiKey = `sk_${'a'.repeat(40)}`;

test('one read per context, shared by every caller; another context reads again', async () => {
	const { ctx, reads } = contextWith({ apiKey, baseUrl });
	const [a, b] = await Promise.all([identityOf(ctx), identityOf(ctx)]);
	expect(await identityOf(ctx)).toBe(a);
	expect(b).toBe(a);
	expect(a).toMatchObject({ kind: 'apiKey', baseUrl: 'https://api.example.com/v1', secrets: [apiKey] });
	expect(reads.count).toBe(1);
	const other = contextWith({ apiKey, baseUrl });
	expect((await identityOf(other.ctx)).fingerprint).toBe(a.fingerprint);
	expect(other.reads.count).toBe(1);
});

test('a malformed credential fails every call with its message, and is read again once corrected', async () => {
	const { ctx, reads, data } = contextWith({ apiKey: 'sk_short', baseUrl });
	await expect(identityOf(ctx)).rejects.toThrow('The API key does not have the expected shape');
	await expect(identityOf(ctx)).rejects.toThrow('The API key does not have the expected shape');
	expect(reads.count).toBe(2);
	data.apiKey = apiKey;
	expect((await identityOf(ctx)).kind).toBe('apiKey');
	expect(reads.count).toBe(3);
});

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
});
