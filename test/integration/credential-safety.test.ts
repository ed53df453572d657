/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// What the credentials protect before anything is sent (issue 33 points 4 and 6, issue 35 point 3), through
// n8n-core's WorkflowExecute against the sandbox: no secret over plain http to another computer, an anonymous ID
// saved under the field's earlier name still works, and a 404 that names a service error code is that error.
import { NodeHelpers, type ICredentialDataDecryptedObject, type INodeParameters } from 'n8n-workflow';

import { credentialTypes, runNode } from '../helpers/engine';
import { generate } from '../helpers/generate';
import { startBackend, type TestBackend } from '../helpers/sandbox';

let backend: TestBackend;
let strict: TestBackend;
beforeAll(async () => {
	backend = await startBackend();
	strict = await startBackend({ strict: true });
});
afterAll(async () => {
	await backend.sandbox.close();
	await strict.sandbox.close();
});

const HTTP_REFUSAL =
	'The Base URL starts with http://, which would send your API key or anonymous ID unencrypted over the network ' +
	'to api.example.com. Use https:// (for example https://api.example.com/v1). Plain http:// is accepted only for ' +
	'a test service on this computer (localhost, 127.0.0.1 or [::1]).';

/** The credential's data as n8n hands it to a node: only the fields the credential lists, defaults filled in. */
function asN8nReadsIt(type: string, saved: INodeParameters): ICredentialDataDecryptedObject {
	const properties = credentialTypes[type].properties;
	return NodeHelpers.getNodeParameters(properties, saved, true, false, null, null) as ICredentialDataDecryptedObject;
}

describe('plain http only on this computer', () => {
	test.each([
		['API key', { mediaGenApi: { baseUrl: 'http://api.example.com/v1', apiKey: `sk_${'a1'.repeat(20)}` } }, {}],
		[
			'anonymous',
			{ mediaGenAnonymousApi: { baseUrl: 'http://api.example.com/v1', secretAnonymousId: 'my-anon-id-01' } },
			{ authentication: 'anonymous' },
		],
	])('%s credential: an http:// Base URL on a public host is refused before any request', async (_, creds, extra) => {
		const spent = backend.charges();
		const seen = backend.sandbox.engine.log.length;
		const r = await generate(creds, { prompt: 'a lighthouse', ...extra });
		expect(r.error?.message).toBe(HTTP_REFUSAL);
		expect(r.error?.description).toMatch(/^Open the Media Generation (API|Anonymous) credential and correct it\.$/);
		expect(backend.sandbox.engine.log.length).toBe(seen);
		expect(backend.charges()).toBe(spent);
	});

	test('http:// on the loopback address reaches the local service', async () => {
		expect(backend.sandbox.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:/);
		const r = await runNode({
			parameters: { resource: 'account', operation: 'get' },
			credentials: backend.apiCredentials,
		});
		expect(r.error).toBeUndefined();
		expect(r.items[0].json.tier).toBe('paid');
	});
});

describe('the anonymous ID under its earlier field name', () => {
	test('a credential saved as {baseUrl, anonymousId} generates with that ID', async () => {
		const saved = { baseUrl: backend.sandbox.baseUrl, anonymousId: 'saved-before-rename-01' };
		const data = asN8nReadsIt('mediaGenAnonymousApi', saved);
		expect(data.anonymousId).toBe('saved-before-rename-01');
		const r = await generate({ mediaGenAnonymousApi: data }, { prompt: 'an old friend', authentication: 'anonymous' });
		expect(r.error).toBeUndefined();
		expect(r.items[0].json.status).toBe('SUCCEEDED');
		expect(backend.charges('anon:saved-before-rename-01')).toBe(Number(r.items[0].json.cost));
	});

	test('the new field wins when both are filled', async () => {
		const data = asN8nReadsIt('mediaGenAnonymousApi', {
			baseUrl: backend.sandbox.baseUrl,
			anonymousId: 'old-name-value-01',
			secretAnonymousId: 'new-name-value-01',
		});
		const r = await runNode({
			parameters: { resource: 'account', operation: 'get', authentication: 'anonymous' },
			credentials: { mediaGenAnonymousApi: data },
		});
		expect(r.error).toBeUndefined();
		expect(backend.sandbox.engine.wallets.has('new-name-value-01')).toBe(true);
		expect(backend.sandbox.engine.wallets.has('old-name-value-01')).toBe(false);
	});
});

describe('a 404 is classified by its error code first', () => {
	test('unknown_anon_id answered with 404 (strict sandbox) is reported as that, not as a wrong Base URL', async () => {
		const anonId = 'forgotten-by-service-01';
		strict.sandbox.engine.unknownAnonIds.add(anonId);
		const spent = strict.charges(`anon:${anonId}`);
		const r = await runNode({
			parameters: { resource: 'account', operation: 'get', authentication: 'anonymous' },
			credentials: strict.anonCredentials(anonId),
		});
		expect(strict.requests('GET /v1/me').map((e) => e.status)).toEqual([404]);
		expect(r.error?.message).toBe('The service does not recognise this anonymous ID');
		expect(r.error?.description).toMatch(/^Choose a new anonymous ID in the credential/);
		expect(r.error?.description).not.toMatch(/Base URL/);
		expect(JSON.stringify(r.error)).not.toContain(anonId);
		expect(strict.charges(`anon:${anonId}`)).toBe(spent);
	});

	test('a 404 without a service code on a route that always exists still points at the Base URL', async () => {
		const r = await runNode({
			parameters: { resource: 'account', operation: 'get' },
			credentials: { mediaGenApi: { ...backend.apiCredentials.mediaGenApi, baseUrl: `${backend.sandbox.baseUrl}/v2` } },
		});
		expect(r.error?.message).toMatch(/^The service has no GET \/me at http:\/\/127\.0\.0\.1:\d+\/v1\/v2$/);
		expect(r.error?.description).toMatch(/Check the Base URL in the credential/);
	});
});
