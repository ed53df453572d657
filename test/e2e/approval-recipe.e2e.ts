/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The approval recipes in real n8n (issue 34, point 3). Form variant, end to end: prompts in a form → Estimate Cost
// → over 20 credits, a form page shows the total and asks → approved → Generate with Max Credits per Execution set
// to the estimated total: the account is charged no more than was approved. Slack variant: imports with every
// node type known and no parameter issues (Slack is not called here).
import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { Sandbox } from '../../sandbox/server';
import {
	activateWorkflow,
	importWorkflows,
	localiseWorkflow,
	ownerSession,
	REPO,
	rest,
	startServer,
	stopServer,
	type N8nInstance,
} from '../../scripts/realN8n';
import { bootStack } from '../../scripts/stack';
import { pageOf, postFields, postForm, settledStatus } from './recipes/formClient';
import { problemsOf, type WorkflowNode } from './recipes/nodeIssues';
import { untilN8n } from './shared';

const FORM_RECIPE = 'approval-before-generate.json';
const SLACK_RECIPE = 'approval-in-slack.json';
const idOf = (file: string) => (file === FORM_RECIPE ? 'mgApproval000001' : 'mgApproval000002');
const readRecipe = (file: string) =>
	JSON.parse(readFileSync(path.join(REPO, 'examples/recipes', file), 'utf8')) as { nodes: WorkflowNode[] };

let sb: Sandbox;
let n8n: N8nInstance;
let cookie = '';

beforeAll(async () => {
	({ sandbox: sb, n8n } = await bootStack());
	await importWorkflows(
		n8n,
		[FORM_RECIPE, SLACK_RECIPE].map((file) =>
			localiseWorkflow(readRecipe(file) as unknown as Record<string, unknown>, sb.rootUrl, n8n.outputDir, idOf(file)),
		),
	);
	await activateWorkflow(n8n, idOf(FORM_RECIPE));
	await startServer(n8n);
	cookie = await ownerSession(n8n);
});

afterAll(async () => {
	if (n8n) await stopServer(n8n);
	if (sb) await sb.close();
});

/** Runs the recipe's submissions as the sandbox saw them, and what they cost (charges less refunds). */
function submissionsFor(prompts: string[]) {
	const runs = [...sb.engine.runs.values()].filter((r) => prompts.includes(r.prompt));
	const charged = -sb.engine.ledger
		.filter((l) => l.reason !== 'topup' && runs.some((r) => l.runId === r.id))
		.reduce((sum, l) => sum + l.delta, 0);
	return { runs, charged };
}

test('form: estimate, approve on the next page, generate under the approved total', async () => {
	const trigger = readRecipe(FORM_RECIPE).nodes.find((n) => n.type === 'n8n-nodes-base.formTrigger') as {
		webhookId?: string;
	};
	const prompts = ['a lighthouse at dawn', 'a fox in the snow', 'a red kite', 'a tram at night', 'a teapot'];
	const posts = sb.engine.log.filter((e) => e.method === 'POST' && e.path === '/v1/generations').length;
	const { waitingUrl } = await postForm(`http://127.0.0.1:${n8n.port}/form/${trigger.webhookId}`, [prompts.join('\n')]);
	expect(await settledStatus(waitingUrl)).toBe('form-waiting');
	// Estimating sent nothing; the approval page shows the total.
	expect(sb.engine.log.filter((e) => e.method === 'POST' && e.path === '/v1/generations').length).toBe(posts);
	const approval = await pageOf(waitingUrl);
	expect(approval).toContain('These 5 pictures cost 25 credits (0 of unknown price)');
	await postFields(waitingUrl.href, ['Approve']);
	// The next page is the ending once Generate is done (the ending is a form page too: "form-waiting").
	const ending = await untilN8n(async () => {
		const page = (await settledStatus(waitingUrl)) === 'form-waiting' ? await pageOf(waitingUrl) : '';
		return page.includes('Made ') && page;
	}, 'the ending page');
	const { runs, charged } = submissionsFor(prompts);
	expect(runs).toHaveLength(5);
	expect(charged).toBeLessThanOrEqual(25);
	expect(ending).toContain(`Made 5 pictures for ${charged} credits (estimated: 25)`);
});

test.each([FORM_RECIPE, SLACK_RECIPE])(
	'%s imports with every node type known and no parameter issues',
	async (file) => {
		const { data: stored } = await rest<{ data: { nodes: WorkflowNode[] } }>(
			n8n,
			cookie,
			`/rest/workflows/${idOf(file)}`,
		);
		expect(stored.nodes.map((n) => n.name)).toEqual(readRecipe(file).nodes.map((n) => n.name));
		expect(await problemsOf(n8n, cookie, stored.nodes)).toEqual([]);
	},
);

test('Slack: asks with Send and Wait for Response, then generates under the estimated total', async () => {
	const { data: stored } = await rest<{ data: { nodes: WorkflowNode[] } }>(
		n8n,
		cookie,
		`/rest/workflows/${idOf(SLACK_RECIPE)}`,
	);
	const slack = stored.nodes.find((n) => n.type === 'n8n-nodes-base.slack')!;
	expect(slack.parameters).toMatchObject({ operation: 'sendAndWait' });
	const generate = stored.nodes.find((n) => n.name === 'Generate Pictures')!;
	expect(generate.parameters.additionalFields).toEqual({
		maxCredits: "={{ $('Estimate Cost').first().json.totalCredits }}",
	});
});
