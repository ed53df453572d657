// Outcomes where a person looks (issue 42, points 1, 2 and 9), in n8n 2.41.1's editor (`npm run dev`, Debian's
// chromium): a run that fails in pause mode shows its message, run ID and refund in the output panel; Waiting → Pause
// with no signing-secret credential selected says exactly that, charging nothing; a run past the time limit and a
// Max Credits per Execution refusal show as execution hints above the output.
// Writes docs/screenshots/pause-failure-output.png and execution-hints.png.
import type { Page } from 'playwright-core';

import type { DevStack } from '../../scripts/uiDev';
import { NO_SIGNING_SECRET_CHOSEN } from '../../nodes/MediaGen/pause/pauseRuns';
import { creditsLeft, scratchWorkflow, useEditorSession, type Editor, type EditorSession } from './editor';
import { SANDBOX_KEY } from '../e2e/shared';

let dev: DevStack;
let page: Page;
let ed: Editor;
let rest: EditorSession['rest'];
useEditorSession((session) => ({ dev, page, ed, rest } = session));

const SIGNING_SECRET = {
	mediaGenWebhookApi: { id: 'mediagenSandboxWebhook', name: 'Media Generation sandbox webhook' },
};
const credits = () => creditsLeft(dev);

/** Start (its output pinned to `prompts`, one item each) → a Generate step `name`, made through n8n's REST API. */
const workflow = (
	name: string,
	parameters: Record<string, unknown>,
	prompts: string[],
	settings: Record<string, unknown> = {},
	credentials: object = SANDBOX_KEY,
) =>
	scratchWorkflow(rest, {
		name,
		parameters: {
			resource: 'generation',
			operation: 'generate',
			kind: 'image',
			model: { __rl: true, mode: 'id', value: 'studio-image-v1' },
			prompt: '={{ $json.prompt }}',
			...parameters,
		},
		credentials,
		settings,
		pinned: prompts.map((prompt) => ({ prompt })),
	});

/** Picks the entry of dropdown `name` whose title starts with `start` (titles may gain words; this one's value stays). */
async function pickStartingWith(name: string, start: string): Promise<void> {
	const entry = (await ed.entries(name)).find((t) => t.startsWith(start));
	if (!entry) throw new Error(`no entry of ${name} starts with "${start}"`);
	await ed.pick(name, entry);
}

/** The output panel once the step has run: its items or its error. */
async function output(ms = 120_000): Promise<string> {
	const out = page.locator('[data-test-id="output-panel"]');
	await out
		.locator('[data-test-id="radio-button-json"], [data-test-id="node-error-message"]')
		.first()
		.waitFor({ timeout: ms });
	return await out.innerText();
}

/** The executions of workflow `id` as n8n lists them, newest first. */
async function executionsOf(id: string): Promise<Array<{ id: string; status: string }>> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId: id }));
	return (await rest<{ results: Array<{ id: string; status: string }> }>(`/rest/executions?filter=${filter}`)).results;
}

/** The runs the sandbox made for `prompt`. */
async function runsFor(prompt: string): Promise<Array<{ id: string; status: string; cost: number; error: string }>> {
	const res = await fetch(`${dev.apiBase}/generations?limit=50`, {
		headers: { authorization: `Bearer ${dev.apiKey}` },
	});
	const list = (await res.json()) as {
		generations: Array<{ id: string; status: string; cost: number; error: string; prompt: string }>;
	};
	return list.generations.filter((r) => r.prompt === prompt);
}

describe('a run that fails in pause mode', () => {
	const pause = { waitMode: 'pause', waiting: { timeoutMinutes: 2 } };
	const credentials = { ...SANDBOX_KEY, ...SIGNING_SECRET };

	test('On Error → Continue (regular output): the output panel holds the message, the run ID and the refund', async () => {
		const name = 'Paused Run Fails';
		const prompts = ['a lighthouse at dusk [fail]', 'a lighthouse at dawn'];
		const id = await workflow(name, pause, prompts, { onError: 'continueRegularOutput' }, credentials);
		await ed.openWorkflow(id);
		await ed.openNode(name);
		await page.locator('[data-test-id="node-execute-button"]').click();
		// The step pauses, the service calls back as the runs end, and the panel shows the resumed output.
		// While it waits the panel shows the step's input; the resumed output brings the files (n8n then opens its
		// Binary view): read it in the JSON view.
		const out = page.locator('[data-test-id="output-panel"]');
		await out.locator('[data-test-id="radio-button-binary"]').waitFor({ timeout: 180_000 });
		await out.locator('[data-test-id="radio-button-json"]').click();
		const panel = await ed.until(
			() => out.innerText(),
			(text) => text.includes('refunded automatically'),
		);
		const [failed] = await runsFor(prompts[0]);
		expect(failed.status).toBe('FAILED');
		expect(panel).toContain(`Run ${failed.id} failed`);
		expect(panel).toContain(failed.id);
		expect(panel).toMatch(/credits? (was|were) refunded automatically/);
		expect(panel).not.toContain("This is an item, but it's empty");
		await ed.shot('pause-failure-output', page.locator('[data-test-id="output-panel"]'));
		await ed.closeNode();
	});

	test('On Error → Stop Workflow: the execution ends as Error, its notification naming the run and the refund', async () => {
		const name = 'Paused Run Stops';
		const prompt = 'a lighthouse in a storm [fail]';
		const id = await workflow(name, pause, [prompt], {}, credentials);
		await ed.openWorkflow(id);
		await page.locator('[data-test-id="execute-workflow-button"]').click();
		const ended = await ed.until(
			async () => (await executionsOf(id)).find((e) => !['new', 'running', 'waiting'].includes(e.status)),
			(e) => e !== undefined,
			180_000,
		);
		expect(ended?.status).toBe('error');
		const [failed] = await runsFor(prompt);
		const toast = page.locator('.el-notification').filter({ hasText: failed.id });
		await toast.waitFor({ timeout: 60_000 });
		expect(await toast.innerText()).toMatch(
			new RegExp(`Run ${failed.id} failed: .+ \\(${failed.cost} credits? refunded automatically\\)`),
		);
	});
});

describe('Waiting → Pause and the signing secret', () => {
	test('with no signing-secret credential selected, Execute step says so (not "empty"), and nothing is charged', async () => {
		const id = await workflow('Pause Without Secret', {}, ['a lighthouse at dawn']);
		await ed.openWorkflow(id);
		await ed.openNode('Pause Without Secret');
		await pickStartingWith('waitMode', 'Pause');
		// n8n's editor fills in a credential box only while a node has none: the box Pause shows stays empty.
		const boxes = ed.parameters.locator('[data-test-id="node-credentials-select"]');
		await expect(boxes.count()).resolves.toBe(2);
		const labels = await ed.parameters.locator('[data-test-id="credentials-label"]').allInnerTexts();
		expect(labels.map((t) => t.split('\n')[0].trim())).toEqual(['Credential', 'Signing Secret']);
		// Empty and required, so n8n marks it (its issue icon) before anything runs or is published.
		const row = ed.parameters.locator('[data-test-id="credentials-label"]').nth(1);
		await expect(row.locator('[data-test-id="node-credentials-select"] input').inputValue()).resolves.toBe('');
		await expect(row.locator('[data-test-id="node-credentials-select"][class*="hasIssues"]').count()).resolves.toBe(1);
		await expect(row.locator('[data-icon="triangle-alert"]').count()).resolves.toBe(1);
		const before = await credits();
		await page.locator('[data-test-id="node-execute-button"]').click();
		const error = page.locator('[data-test-id="node-error-message"]');
		await error.waitFor({ timeout: 60_000 });
		expect(await error.innerText()).toBe(NO_SIGNING_SECRET_CHOSEN);
		expect(await page.locator('[data-test-id="output-panel"]').innerText()).toContain(
			'Pick yours in the second credential box at the top of this node',
		);
		expect(await credits()).toBe(before);
		await page.locator('.el-notification__closeBtn').first().click();
		await boxes.first().scrollIntoViewIfNeeded();
		await ed.shot('pause-no-signing-secret', page.locator('[data-test-id="ndv"]'));
		await ed.closeNode();
	});
});

describe('execution hints', () => {
	test('a run past the time limit and a Max Credits per Execution refusal show above the output', async () => {
		const name = 'Three Images';
		const id = await workflow(
			name,
			{
				// The sandbox's studio-image-v1 costs 5 credits: two runs fit under 10, the third is refused.
				additionalFields: { maxCredits: 10 },
				waiting: { timeoutMinutes: 0.1, pollIntervalSeconds: 1 },
			},
			['a fox in the snow [stuck]', 'a hen on a fence', 'a cat on a roof'],
			{ onError: 'continueRegularOutput' },
		);
		await ed.openWorkflow(id);
		await ed.openNode(name);
		await page.locator('[data-test-id="node-execute-button"]').click();
		// n8n shows the hints as callouts above the items.
		const panel = await ed.until(
			() => output(),
			(text) => text.includes('Max Credits per Execution refused'),
			60_000,
		);
		expect(panel).toMatch(
			/Time limit: the run of item 1 \(gen_[0-9a-f]+\) did not finish in time\. It keeps going on the service/,
		);
		expect(panel).toContain(
			'Max Credits per Execution refused item 3: not submitted, so nothing was charged for it. Raise the cap or ' +
				'split the batch.',
		);
		await ed.shot('execution-hints', page.locator('[data-test-id="output-panel"]'));
		await ed.closeNode();
	});
});
