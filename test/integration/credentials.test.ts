// Each credential's test request (GET /me) succeeds against the sandbox, authenticated by the
// credential's own authenticate(); package.json follows n8n's community-node conventions.
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

test('the anonymous credential test request succeeds against GET /me', async () => {
	const r = await runCredentialTest(
		'mediaGenAnonymousApi',
		backend.anonCredentials('anon-cred-test-1').mediaGenAnonymousApi,
	);
	expect(r.status).toBe(200);
	expect(r.body.tier).toBe('anonymous');
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
