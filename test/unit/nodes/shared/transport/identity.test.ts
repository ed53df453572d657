// nodes/shared/transport/identity.ts: the credential is read once per context, and a failed read is not kept.
import { identityOf } from '../../../../../nodes/shared/transport/identity';
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
