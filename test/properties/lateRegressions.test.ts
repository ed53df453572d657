// Submissions handled late (the sandbox's fault "late": read whole, the connection cut unanswered, the run made and
// charged seconds later) as plain cases beside regressions.test.ts. With 'late' in the property suite's schedules no
// counterexample reproduced on its own, so these pin the fault's money effects by hand: a run made after the node
// gave up on its item is named by its request key, and comes back uncharged when the advice is followed. Each must
// keep every money rule, and must still have a submission handled late (else it no longer tests what it is named for).
import { WARP } from './warpClock';
import type { BatchCase, BatchSpec, WaitMode } from './batchCase';
import type { FaultRule } from '../../sandbox/config';
import { describeFailure } from './moneyProperty';
import { runCase } from './runCase';

async function expectRulesKeptAfterLate(c: BatchCase): Promise<void> {
	const report = await runCase(c);
	if (report.violations.length) throw new Error(describeFailure(c, report));
	const late = Object.values(report.submissions).flat();
	if (!late.includes('late→202'))
		throw new Error(`no submission was handled late: ${JSON.stringify(report.submissions)}`);
}

/** Every try of a submission after `ok` answered ones cut, each handled 9 s later on the node's clock. */
const lateAfter = (ok: number): FaultRule => ({
	route: 'POST /generations',
	script: [...Array.from({ length: ok }, () => 'ok' as const), ...Array.from({ length: 8 }, () => 'late' as const)],
	lateMs: 900_000,
});

function lateCase(waitMode: WaitMode, items: number, okFirst: number, concurrency: number): BatchCase {
	const batch: BatchSpec = {
		step: { operation: 'generate', kind: 'image', model: 'studio-image-v1', options: {} },
		items: Array.from({ length: items }, () => ({ prompt: 'a paper boat' })),
		requestKey: { mode: 'default' },
		timeoutMinutes: 0.05,
		waitMode,
		continueOnFail: false,
	};
	return {
		batch,
		account: { concurrency, holders: 0, priceFactor: 1, credits: 1000 },
		faults: { rules: [lateAfter(okFirst)], deliveries: [] },
	};
}

describe(`submissions handled late (clock ×${WARP})`, () => {
	test('Poll: the only item cut on every try, its run made after it gave up: named by key, given back', async () => {
		await expectRulesKeptAfterLate(lateCase('poll', 1, 0, 1));
	});

	test('Poll: the second item cut on every try while the first ran: its late run named, given back', async () => {
		await expectRulesKeptAfterLate(lateCase('poll', 2, 1, 2));
	});

	test('pause: every try before the pause cut, the run made after the step gave up: named, given back', async () => {
		await expectRulesKeptAfterLate(lateCase('pause', 1, 0, 1));
	});

	test('pause: the item sent after the pause cut on every try and its run made late: named, given back', async () => {
		await expectRulesKeptAfterLate(lateCase('pause', 2, 1, 1));
	});
});
