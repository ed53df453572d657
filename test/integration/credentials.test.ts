// Each credential's test request succeeds against the sandbox, authenticated by the credential's own
// authenticate() (the anonymous one without spending a free wallet); package.json follows n8n's conventions.
import { Workflow, type IHttpRequestOptions } from 'n8n-workflow';

import pkg from '../../package.json';
import { credentialTypes, TestNodeTypes } from '../helpers/engine';
import { testNode } from '../helpers/node';
import { startBackend, type TestBackend } from '../helpers/sandbox';

let backend: TestBackend;
beforeAll(async () => {
	backend = await startBackend();
});
afterAll(async () => backend.sandbox.close());

/** Resolves the test request's expressions with n8n's own expression engine, then sends it. */
async function runCredentialTest(type: 'mediaGenApi' | 'mediaGenAnonymousApi', data: Record<string, string>) {
	const cred = credentialTypes[type];
	const request = cred.test!.request as IHttpRequestOptions;
	const workflow = new Workflow({ nodes: [], connections: {}, active: false, nodeTypes: new TestNodeTypes() });
	const baseURL = workflow.expression.getSimpleParameterValue(testNode(), String(request.baseURL), 'manual', {
		$credentials: { ...data, baseUrl: `${data.baseUrl}/` },
	} as never) as string;
	const authed = await (cred.authenticate as (c: object, r: IHttpRequestOptions) => Promise<IHttpRequestOptions>)(
		data,
		{ url: request.url, headers: {} },
	);
	const res = await fetch(`${baseURL}${request.url}`, { headers: authed.headers as Record<string, string> });
	return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

test('the API key credential test request succeeds against GET /me', async () => {
	const r = await runCredentialTest('mediaGenApi', backend.apiCredentials.mediaGenApi);
	expect(r.status).toBe(200);
	expect(r.body.tier).toBe('paid');
});

test('the anonymous credential test reaches the API without the ID, so it opens no free wallet', async () => {
	const anonId = 'anon-cred-test-1';
	const wallets = backend.sandbox.engine.wallets.size;
	const seen = backend.sandbox.engine.log.length;
	const r = await runCredentialTest('mediaGenAnonymousApi', backend.anonCredentials(anonId).mediaGenAnonymousApi);
	expect(r.status).toBe(200);
	expect(Array.isArray(r.body.models)).toBe(true);
	expect(backend.sandbox.engine.log.slice(seen).map((e) => `${e.method} ${e.path}`)).toEqual(['GET /v1/models']);
	expect(backend.sandbox.engine.wallets.size).toBe(wallets);
	expect(backend.sandbox.engine.wallets.has(anonId)).toBe(false);
	expect(backend.sandbox.engine.ledger.filter((l) => l.ownerId === `anon:${anonId}`)).toEqual([]);
});

test('the anonymous credential test checks the ID and the Base URL before sending anything', async () => {
	const seen = backend.sandbox.engine.log.length;
	const base = backend.sandbox.baseUrl;
	await expect(
		runCredentialTest('mediaGenAnonymousApi', { baseUrl: base, secretAnonymousId: 'short' }),
	).rejects.toThrow(/^The anonymous ID must be 8 to 80 characters long/);
	await expect(
		runCredentialTest('mediaGenAnonymousApi', {
			baseUrl: 'http://api.example.com/v1',
			secretAnonymousId: 'anon-ok-123',
		}),
	).rejects.toThrow(/^The Base URL starts with http:\/\//);
	expect(backend.sandbox.engine.log.length).toBe(seen);
});

test('the anonymous credential test says nothing about account settings: the user chooses the ID', () => {
	const rules = JSON.stringify(credentialTypes.mediaGenAnonymousApi.test?.rules ?? []);
	expect(rules).not.toMatch(/account settings/);
	expect(rules).toMatch(/The Base URL does not lead to the API/);
	const notice = credentialTypes.mediaGenAnonymousApi.properties.find((p) => p.name === 'freeTierNotice')!;
	expect(notice.displayName).toMatch(/Testing this credential checks the ID's shape and that the Base URL reaches/);
	expect(notice.displayName).toMatch(/opens no wallet/);
});

test('package.json follows the community-node conventions', () => {
	expect(pkg.keywords).toContain('n8n-community-node-package');
	expect(pkg.files).toEqual(['dist']);
	expect(pkg.n8n.n8nNodesApiVersion).toBe(1);
	expect(pkg.n8n.strict).toBe(true);
	expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*' });
	expect((pkg as Record<string, unknown>).dependencies).toBeUndefined();
	for (const p of [...pkg.n8n.credentials, ...pkg.n8n.nodes]) expect(p).toMatch(/^dist\/.+\.js$/);
});
