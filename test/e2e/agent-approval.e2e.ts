/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The recipe "an agent that asks before spending" (issue 43, point 5) in real n8n, as published: a form starts n8n's
// AI Agent (version 3) with a scripted OpenAI-compatible model (test/helpers/scriptedChatModel.ts) and two of our
// tools. Estimate Cost is free to call; Generate Picture sits behind n8n's human review of tool calls (Send Email's
// "Human review" node, n8n-nodes-base.emailSendHitlTool, which n8n 2.x derives from every node with a Send and Wait
// operation: n8n/dist/tool-generation/hitl-tools.js). The approval e-mail goes to an SMTP sink; the test clicks
// its Approve or Decline link as a person would. Checked with the sandbox's ledger: nothing is sent before the
// approval, an approved call makes one run charged once, a declined call sends nothing and the agent is told.
// n8n 1.x has no human review of tool calls: there the test checks that n8n does not know the review node.
import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { Sandbox } from '../../sandbox/server';
import {
	activateWorkflow,
	importCredentials,
	importWorkflows,
	localiseWorkflow,
	majorOf,
	N8N_MAJOR,
	ownerSession,
	REPO,
	rest,
	startServer,
	stopServer,
	type N8nInstance,
} from '../../scripts/realN8n';
import { bootStack } from '../../scripts/stack';
import {
	startScriptedChatModel,
	textOf,
	toolResults,
	type ChatRequest,
	type ScriptedChatModel,
	type ScriptedTurn,
} from '../helpers/scriptedChatModel';
import { runCharges } from '../helpers/ledger';
import { pageOf, postForm, settledStatus } from './recipes/formClient';
import { parseFlatted, untilN8n } from './shared';
import { problemsOf, type WorkflowNode } from './recipes/nodeIssues';
import { startSmtpSink, type SinkMessage, type SmtpSink } from './recipes/smtpSink';

const RECIPE = 'agent-asks-before-generating.json';
const WORKFLOW_ID = 'mgAgentAsks00001';
const REVIEW_TYPE = 'n8n-nodes-base.emailSendHitlTool';
const APPROVED_PROMPT = 'a lighthouse at dawn';
const DECLINED_PROMPT = 'a fox in the snow';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

interface Recipe extends Record<string, unknown> {
	nodes: Array<WorkflowNode & { webhookId?: string }>;
}

let sb: Sandbox;
let n8n: N8nInstance;
let smtp: SmtpSink;
let model: ScriptedChatModel;
let cookie = '';

const readRecipe = () => JSON.parse(readFileSync(path.join(REPO, 'examples/recipes', RECIPE), 'utf8')) as Recipe;

/** The user's request in this conversation (the form's Request field). */
const requestOf = (request: ChatRequest) => textOf(request.messages.find((m) => m.role === 'user') ?? { role: 'user' });

/** The agent's turns: Estimate Cost first, then Generate Picture (behind the review), then a final answer. */
function script(request: ChatRequest): ScriptedTurn {
	const prompt = requestOf(request).includes('fox') ? DECLINED_PROMPT : APPROVED_PROMPT;
	const last = toolResults(request).at(-1);
	if (!last) return { toolCalls: [{ name: 'Estimate_Cost', args: { prompt } }] };
	// A gated tool's arguments: the tool's own under toolParameters, the review node's under hitlParameters.
	if (last.name === 'Estimate_Cost')
		return { toolCalls: [{ name: 'Generate_Picture', args: { toolParameters: { prompt }, hitlParameters: {} } }] };
	if (/rejected/.test(last.text)) return { text: 'Nothing was made: the approver declined.' };
	return { text: `Here is your picture: ${/"url":"([^"]+)"/.exec(last.text)?.[1] ?? '(no link)'}` };
}

function localRecipe(): Recipe {
	const wf = localiseWorkflow(readRecipe(), sb.rootUrl, n8n.outputDir, WORKFLOW_ID) as Recipe;
	for (const node of wf.nodes) {
		if (node.type === REVIEW_TYPE) node.credentials = { smtp: { id: 'approvalSmtp', name: 'SMTP sink' } };
		if (node.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi')
			node.credentials = { openAiApi: { id: 'scriptedChatModel', name: 'Scripted chat model' } };
	}
	return wf;
}

const generations = (prompt: string) => [...sb.engine.runs.values()].filter((r) => r.prompt === prompt);
const postsOf = (prompt: string) =>
	sb.engine.log.filter(
		(e) => e.method === 'POST' && e.path === '/v1/generations' && JSON.stringify(e.body).includes(prompt),
	);

async function approvalMail(prompt: string, timeoutMs = 120_000): Promise<SinkMessage> {
	return await untilN8n(
		() => smtp.messages.find((m) => m.html.includes(prompt)),
		() => `an approval e-mail for "${prompt}":\n${n8n.log.join('').slice(-3000)}`,
		timeoutMs,
	);
}

/** The link behind a button of the approval e-mail (its href, HTML-decoded). */
function linkOf(mail: SinkMessage, approved: boolean): string {
	const hrefs = [...mail.html.matchAll(/href="([^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));
	const link = hrefs.find((h) => h.includes(`approved=${approved}`));
	if (!link) throw new Error(`No ${approved ? 'Approve' : 'Decline'} link in:\n${mail.html.slice(0, 2000)}`);
	return link;
}

/** What n8n stored for an execution: its status and, per node, each run's error or item count (for messages). */
async function storedExecution(id: string): Promise<string> {
	const res = await rest<{ data: { status: string; data: string } }>(n8n, cookie, `/rest/executions/${id}`);
	const data = parseFlatted(res.data.data) as {
		resultData?: {
			error?: { message?: string };
			runData?: Record<string, Array<{ error?: { message?: string }; data?: Record<string, unknown[][]> }>>;
		};
	};
	const nodes = Object.entries(data.resultData?.runData ?? {}).map(
		([name, runs]) =>
			`${name}: ${runs.map((r) => r.error?.message ?? JSON.stringify(r.data).slice(0, 300)).join(' | ')}`,
	);
	return [`status ${res.data.status}`, data.resultData?.error?.message ?? '', ...nodes].join('\n');
}

async function untilWaiting(id: string, timeoutMs = 60_000): Promise<void> {
	await untilN8n(
		async () =>
			(await rest<{ data: { status: string } }>(n8n, cookie, `/rest/executions/${id}`)).data.status === 'waiting',
		`execution ${id} to be saved as waiting`,
		timeoutMs,
	).catch(async (error: Error) => {
		throw new Error(`${error.message}:\n${await storedExecution(id)}`);
	});
}

/** Submits the form and follows the execution to its answer page, clicking the e-mail's button on the way. */
async function askAndDecide(prompt: string, approve: boolean) {
	const form = readRecipe().nodes.find((n) => n.type === 'n8n-nodes-base.formTrigger')!;
	const { waitingUrl, executionId } = await postForm(`http://127.0.0.1:${n8n.port}/form/${form.webhookId}`, [
		`Make ${prompt}`,
	]);
	const mail = await approvalMail(prompt);
	// A person clicks after n8n has saved the execution as waiting (n8n sends the e-mail first: a click before that
	// is answered 409 "running already").
	await untilWaiting(executionId);
	const sentBeforeDecision = postsOf(prompt).length;
	const link = linkOf(mail, approve);
	// A browser's user agent, as a person clicks: n8n ignores approval links opened by bots and link scanners
	// (n8n-nodes-base's sendAndWaitWebhook answers them with an empty page and keeps waiting; Node's fetch is one).
	const clicked = await fetch(link, { headers: { 'user-agent': BROWSER } });
	const clickPage = await clicked.text();
	// The page's title is HTML: "The agent&#x27;s answer" (matched as typed, it never was, and the old loop ran out
	// its whole 120 s deadline before it read the page it had).
	const answer = await untilN8n(async () => {
		const page = (await settledStatus(waitingUrl)) === 'form-waiting' ? await pageOf(waitingUrl) : '';
		return /The agent(&#x27;|')s answer/.test(page) && page;
	}, "the agent's answer page").catch(() => '');
	// When the answer page never came, say what n8n stored, so a failure names the step that went wrong.
	const stored = answer
		? ''
		: `${await storedExecution(executionId)}\nclicked ${link} → ${clicked.url} ${clicked.status}: ${JSON.stringify(clickPage.slice(0, 600))}\n` +
			n8n.log
				.join('')
				.split('\n')
				.filter((l) => /error|warn|waiting|resum|hitl/i.test(l))
				.slice(-30)
				.join('\n');
	return { mail, sentBeforeDecision, clickStatus: clicked.status, answer, stored };
}

beforeAll(async () => {
	({ sandbox: sb, n8n } = await bootStack());
	smtp = await startSmtpSink();
	model = await startScriptedChatModel(script);
	await importCredentials(n8n, [
		{
			id: 'approvalSmtp',
			name: 'SMTP sink',
			type: 'smtp',
			data: { user: '', password: '', host: '127.0.0.1', port: String(smtp.port), secure: '', disableStartTls: 'true' },
		},
		{
			id: 'scriptedChatModel',
			name: 'Scripted chat model',
			type: 'openAiApi',
			data: { apiKey: 'sk-scripted', url: model.baseUrl },
		},
	]);
	await importWorkflows(n8n, [localRecipe()]);
	if (majorOf(n8n) >= 2) await activateWorkflow(n8n, WORKFLOW_ID);
	await startServer(n8n);
	cookie = await ownerSession(n8n);
});

afterAll(async () => {
	// What the agent passed back to the model in each conversation (docs/ai-agents.md describes it).
	for (const request of model?.requests ?? []) {
		const lines = toolResults(request).map((r) => `  ${r.name} → ${r.text.slice(0, 400)}`);
		process.stdout.write(`${requestOf(request)}:\n${lines.join('\n')}\n`);
	}
	if (n8n) await stopServer(n8n);
	await smtp?.close();
	await model?.close();
	if (sb) await sb.close();
});

// One set of tests per major version (no skipped tests): 2.x runs the recipe, 1.x shows it cannot.
if (N8N_MAJOR >= 2)
	describe('n8n 2.x: Generate waits for a person; Estimate Cost does not', () => {
		// Both requests go in at once and the approver answers both, as from one inbox.
		let approved: ReturnType<typeof askAndDecide>;
		let declined: ReturnType<typeof askAndDecide>;
		beforeAll(() => {
			approved = askAndDecide(APPROVED_PROMPT, true);
			declined = askAndDecide(DECLINED_PROMPT, false);
			// Each test awaits its own; a failure is reported there, not as an unhandled rejection meanwhile.
			for (const decision of [approved, declined]) decision.catch(() => undefined);
		});

		test('the recipe imports with every node type known and no parameter issues', async () => {
			const { data: stored } = await rest<{ data: Recipe }>(n8n, cookie, `/rest/workflows/${WORKFLOW_ID}`);
			expect(await problemsOf(n8n, cookie, stored.nodes)).toEqual([]);
		});

		test('approved: the estimate is free, nothing is sent before the click, then one run charged once', async () => {
			const { mail, sentBeforeDecision, clickStatus, answer, stored } = await approved;
			expect(stored).toBe('');
			// Before the decision: Estimate Cost answered (free) and no submission was made for this prompt.
			expect(sentBeforeDecision).toBe(0);
			expect(mail.to).toEqual(['approver@example.com']);
			expect(mail.html).toMatch(/The agent wants to make a picture with Generate[_ ]Picture/);
			expect(clickStatus).toBe(200);
			const runs = generations(APPROVED_PROMPT);
			expect(runs).toHaveLength(1);
			expect(runCharges(sb, runs[0].id)).toEqual([5]);
			expect(answer).toContain(`Here is your picture: ${sb.rootUrl}`);
			// The model saw Estimate Cost's answer (credits and basis) before it asked to generate.
			const estimate = toolResults(
				model.requests.find((r) => requestOf(r).includes(APPROVED_PROMPT) && toolResults(r).length === 1)!,
			)[0];
			expect(estimate.name).toBe('Estimate_Cost');
			expect(estimate.text).toMatch(/"credits":5/);
		});

		test('declined: nothing is sent, nothing charged, and the agent is told the call was rejected', async () => {
			const { sentBeforeDecision, answer, stored } = await declined;
			expect(stored).toBe('');
			expect(sentBeforeDecision).toBe(0);
			expect(answer).toContain('Nothing was made: the approver declined.');
			expect(postsOf(DECLINED_PROMPT)).toHaveLength(0);
			expect(generations(DECLINED_PROMPT)).toHaveLength(0);
			const told = model.requests.filter((r) => requestOf(r).includes(DECLINED_PROMPT)).at(-1)!;
			expect(toolResults(told).at(-1)?.text).toMatch(/User rejected the tool call to Generate Picture/);
		});
	});
else
	describe('n8n 1.x: no human review of tool calls', () => {
		test('n8n does not know the review node, so the recipe is for n8n 2.x', async () => {
			const { data: stored } = await rest<{ data: Recipe }>(n8n, cookie, `/rest/workflows/${WORKFLOW_ID}`);
			expect(await problemsOf(n8n, cookie, stored.nodes)).toEqual([
				`Ask Before Spending: n8n knows no ${REVIEW_TYPE} version 2.1`,
			]);
		});
	});
