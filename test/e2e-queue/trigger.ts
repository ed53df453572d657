// Trigger deliveries in queue mode (part of queue.e2e.ts): the sandbox's endpoint points at the
// webhook process; each finished run must start exactly one execution (run by a worker). Then the same
// deliveries (same webhook-id) are sent again three ways and the duplicate executions are counted:
// resent to the webhook process, replayed to the main process, and resent after the webhook process
// restarts. The trigger remembers webhook ids in workflow static data; making that durable is a separate
// change, so these three figures are measured and printed, not held to zero here.
import type { Delivery } from '../../sandbox/webhooks';
import type { QueueStack } from '../../scripts/queueStack';
import { execution, IDS, replay, workerOf, type ExecutionSummary } from './helpers';
import { untilMarkerRan, untilN8n } from '../e2e/shared';
import { readExample } from '../../scripts/realN8n';

export const triggerFigures: Record<string, unknown> = {};

interface Started {
	id: string;
	runId?: string;
	worker?: string;
}

const RUNS = 6;
const webhookId = (readExample('06-trigger-finished-runs.json').nodes as Array<{ webhookId?: string }>)[0].webhookId!;
const hookPath = `/webhook/${webhookId}/webhook`;

/** Starts a run straight on the API (as another client of the account would); waits out 409 busy and 429. */
async function submitRun(stack: QueueStack, prompt: string): Promise<string> {
	return await untilN8n(async () => {
		const res = await fetch(`${stack.sandbox.baseUrl}/generations`, {
			method: 'POST',
			headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
			body: JSON.stringify({ kind: 'image', model: 'studio-image-v1', prompt, options: { resolution: '1K' } }),
		});
		const body = (await res.json()) as { generation?: { id: string } };
		if (body.generation) return body.generation.id;
		if (res.status !== 409 && res.status !== 429) {
			throw new Error(`POST /generations: HTTP ${res.status} ${JSON.stringify(body)}`);
		}
		return undefined;
	}, `a slot for "${prompt}"`);
}

export function triggerTests(ctx: () => { stack: QueueStack; cookie: string }): void {
	let deliveries: Delivery[] = [];
	let seen: ExecutionSummary[] = [];

	/**
	 * Executions of the trigger workflow not counted yet, and the run ids they carry, once a marker sent to `base`
	 * (where the deliveries went) after they were answered has run.
	 */
	async function newExecutions(base: string): Promise<Started[]> {
		const { stack, cookie } = ctx();
		const marked = await untilMarkerRan(stack.main, cookie, IDS.trigger, `${base}${hookPath}`, stack.webhookSecret);
		const all = marked.executions;
		const fresh = all.filter((e) => !seen.some((s) => s.id === e.id));
		seen = all;
		const runIds = deliveries.map((d) => d.runId!);
		return await Promise.all(
			fresh.map(async (e) => {
				const text = JSON.stringify((await execution(stack.main, cookie, e.id)).runData);
				return { id: e.id, runId: runIds.find((r) => text.includes(r)), worker: workerOf(stack, e.id) };
			}),
		);
	}

	test('each finished run delivered to the webhook process starts exactly one execution, on a worker', async () => {
		const { stack } = ctx();
		const sb = stack.sandbox;
		sb.engine.addEndpoint(stack.accountId, `${stack.webhookBase}${hookPath}`, stack.webhookSecret);
		const submitted: string[] = [];
		// One run at a time, each delivered before the next is submitted (the guarantee stated for sequential
		// deliveries; concurrent writers of static data can still lose each other's newest ids).
		const delivered = () =>
			sb.engine.webhooks.deliveries.filter((d) => d.runId && submitted.includes(d.runId) && d.delivered);
		for (let i = 0; i < RUNS; i++) {
			submitted.push(await submitRun(stack, `queue trigger ${i}${i === 0 ? ' [fail]' : ''}`));
			deliveries = await untilN8n(() => delivered().length > i && delivered(), `the delivery of run ${i}`, 15_000);
		}
		expect(deliveries).toHaveLength(RUNS);
		const fresh = await newExecutions(stack.webhookBase);
		expect(fresh.map((e) => e.runId).sort()).toEqual([...submitted].sort());
		for (const e of fresh) expect(e.worker).toMatch(/^worker\d$/);
		const perWorker: Record<string, number> = {};
		for (const e of fresh) perWorker[e.worker!] = (perWorker[e.worker!] ?? 0) + 1;
		triggerFigures.firstDeliveries = { runs: RUNS, executions: fresh.length, perWorker };
	});

	/**
	 * Sends every delivery again to `base` (each must be answered 200) and records how many executions that
	 * started.
	 */
	async function countDuplicates(figure: string, base: string, send: () => Promise<Array<number | null | undefined>>) {
		expect(await send()).toEqual(Array(RUNS).fill(200));
		const fresh = await newExecutions(base);
		triggerFigures[figure] = { deliveries: RUNS, duplicateExecutions: fresh.length };
		// The remembered ids are in the workflow's static data (Postgres), which every process reads.
		expect(fresh.length).toBe(0);
	}
	/** The sandbox's "resend": same webhook-id and body, to the endpoint (the webhook process). */
	async function resendAll() {
		const attempts = deliveries.map((d) => d.attempts.length);
		for (const d of deliveries) ctx().stack.sandbox.engine.webhooks.resend(d.id);
		await untilN8n(() => deliveries.every((d, i) => d.attempts.length > attempts[i]), 'every resend to be answered');
		return deliveries.map((d) => d.attempts[d.attempts.length - 1]?.status);
	}

	test('the same deliveries resent to the webhook process: duplicates counted', async () => {
		await countDuplicates('resentToWebhookProcess', ctx().stack.webhookBase, resendAll);
	});

	test('the same deliveries replayed to the main process: duplicates counted', async () => {
		const { stack } = ctx();
		await countDuplicates('replayedToMain', stack.mainBase, async () => {
			const statuses = [];
			for (const d of deliveries) statuses.push(await replay(d, `${stack.mainBase}${hookPath}`, stack.webhookSecret));
			return statuses;
		});
	});

	test('the same deliveries after restarting the webhook process: duplicates counted', async () => {
		const { stack } = ctx();
		await stack.stop('webhook');
		await stack.start('webhook', 'webhook');
		await countDuplicates('afterWebhookRestart', stack.webhookBase, resendAll);
	});
}
