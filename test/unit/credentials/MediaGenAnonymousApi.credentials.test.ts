// credentials/MediaGenAnonymousApi.credentials.ts: the anonymous ID saved under the field's earlier name.
import { MediaGenAnonymousApi } from '../../../credentials/MediaGenAnonymousApi.credentials';
import { readAnonymousId } from '../../../nodes/shared/transport/identity';

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
