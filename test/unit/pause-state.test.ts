// Pause mode's pure pieces: the slot pool, the per-item webhook URL, and where the service could call back.
import type { RunRecord } from '../../nodes/MediaGen/helpers/catalogueTypes';
import { resumeUrlProblem } from '../../nodes/MediaGen/helpers/pause';
import {
	isPauseState,
	itemWebhookUrl,
	positionFromQuery,
	type PauseState,
} from '../../nodes/MediaGen/helpers/pauseState';
import { walkBatch, type BatchView, type Outcome } from '../../nodes/MediaGen/resume/batchWalk';

const state = (items: number, lanes: number): PauseState => ({
	version: 1,
	lanes,
	deadline: 0,
	pausedAt: 0,
	continueOnFail: false,
	invalid: [],
	items: Array.from({ length: items }, (_, item) => ({ item, body: {}, download: true, binaryProperty: 'data' })),
});

/**
 * A stand-in for what the service says: `status[p]` is item p's run status once sent; `sends` records which
 * items the walk sent. Only runs and outcomeOf are used by walkBatch.
 */
function view(s: PauseState, status: Record<number, string>, known: number[], refusedBySend: number[] = []) {
	const sends: number[] = [];
	const runs = new Map<number, RunRecord>();
	for (const p of known) runs.set(p, { id: `run-${p}`, status: status[p] } as RunRecord);
	const fake = {
		runs,
		async outcomeOf(position: number): Promise<Outcome> {
			const entry = s.items[position];
			if (entry.refused) return { position, kind: 'refused', ...entry.refused };
			let run = runs.get(position);
			if (!run) {
				sends.push(position);
				if (refusedBySend.includes(position)) return { position, kind: 'refused', message: 'refused' };
				run = { id: `run-${position}`, status: status[position] ?? 'QUEUED' } as RunRecord;
				runs.set(position, run);
			}
			const final = ['SUCCEEDED', 'FAILED', 'CANCELED'].includes(run.status);
			return { position, kind: final ? 'finished' : 'running', run };
		},
	};
	return { view: fake as unknown as BatchView, sends };
}

describe('walkBatch: one pool of slots, items sent in input order', () => {
	test('each finished run frees a slot for the next item, whatever lane it was in', async () => {
		const s = state(6, 3);
		// Items 0-2 were sent before the pause; 1 has finished, 0 and 2 still run.
		const { view: v, sends } = view(s, { 0: 'PROCESSING', 1: 'SUCCEEDED', 2: 'PROCESSING' }, [0, 1, 2]);
		const report = await walkBatch(v, s);
		expect(sends).toEqual([3]);
		expect(report.outcomes.map((o) => o.kind)).toEqual([
			'running',
			'finished',
			'running',
			'running',
			'unsent',
			'unsent',
		]);
		expect(report.complete).toBe(false);
	});

	test('two finished runs send two items; an item refused before the pause takes no slot', async () => {
		const s = state(6, 2);
		s.items[2].refused = { message: 'over the spending cap' };
		const { view: v, sends } = view(s, { 0: 'SUCCEEDED', 1: 'FAILED', 3: 'SUCCEEDED' }, [0, 1, 3]);
		const report = await walkBatch(v, s);
		expect(sends).toEqual([4, 5]);
		expect(report.outcomes.map((o) => o.kind)).toEqual([
			'finished',
			'finished',
			'refused',
			'finished',
			'running',
			'running',
		]);
	});

	test('a send the service refuses frees its slot at once; every item final completes the batch', async () => {
		const s = state(4, 1);
		const done = { 0: 'SUCCEEDED', 2: 'SUCCEEDED', 3: 'SUCCEEDED' };
		const { view: v, sends } = view(s, done, [0, 3], [1]);
		const report = await walkBatch(v, s);
		expect(sends).toEqual([1, 2]);
		expect(report.outcomes.map((o) => o.kind)).toEqual(['finished', 'refused', 'finished', 'finished']);
		expect(report.complete).toBe(true);
	});
});

test("the item position travels on the run's webhook URL beside n8n's token", () => {
	const url = itemWebhookUrl('https://n8n.example.com/webhook-waiting/42?signature=abc', 5);
	expect(url).toBe('https://n8n.example.com/webhook-waiting/42?signature=abc&mgItem=5');
	expect(positionFromQuery({ mgItem: '5' }, state(8, 3))).toBe(5);
	expect(positionFromQuery({ mgItem: '8' }, state(8, 3))).toBeUndefined();
	expect(positionFromQuery({ mgItem: 'x' }, state(8, 3))).toBeUndefined();
	expect(positionFromQuery({}, state(8, 3))).toBeUndefined();
});

test('the resume URL must be https on a public host, unless the service runs on the same machine', () => {
	const api = 'https://api.example.com/v1';
	expect(resumeUrlProblem('https://n8n.example.com/webhook-waiting/1?signature=t', api)).toBeUndefined();
	expect(resumeUrlProblem('http://n8n.example.com/webhook-waiting/1?signature=t', api)).toBe(
		"this execution's resume URL (http://n8n.example.com/webhook-waiting/1) is not https",
	);
	for (const host of ['localhost:5678', '127.0.0.1:5678', '10.0.0.2', '192.168.1.5', '172.20.0.3', 'n8n.local']) {
		expect(resumeUrlProblem(`https://${host}/webhook-waiting/1`, api)).toMatch(/private or local host/);
	}
	expect(resumeUrlProblem('http://127.0.0.1:5678/webhook-waiting/1', 'http://127.0.0.1:4010/v1')).toBeUndefined();
	expect(resumeUrlProblem('not a url', api)).toMatch(/no usable resume URL/);
});

test('a recorded batch is recognised, anything else is not', () => {
	expect(isPauseState(state(1, 1))).toBe(true);
	expect(isPauseState({ version: 2 })).toBe(false);
	expect(isPauseState(undefined)).toBe(false);
});
