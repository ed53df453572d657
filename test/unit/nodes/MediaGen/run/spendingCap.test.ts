/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// nodes/MediaGen/run/spendingCap.ts: Max Credits per Execution, counted from the ledger item each send leaves.
import type { IDataObject, INode } from 'n8n-workflow';

import { learn, learnRun, ledgerItem, refuse, type LedgerItem } from '../../../../../nodes/MediaGen/run/ledger';
import { PriceBook } from '../../../../../nodes/MediaGen/run/priceBook';
import {
	CAP_TOTAL_KEY,
	capRefusalMessage,
	sendUnderCap,
	SpendingCap,
} from '../../../../../nodes/MediaGen/run/spendingCap';
import { catalogue, catalogueModel } from '../../../../helpers/catalogue';
import { runRecord } from '../../../../helpers/runRecord';

type SendOutcome = Parameters<typeof learn>[1];

const image = catalogueModel('studio-image-v1'); // 5 credits at defaults
const video = catalogueModel('lumora-motion-3-fast'); // 90 at defaults
const book = () => new PriceBook(catalogue, { runs: [], note: 'looked through its newest 0 runs' });
const atDefaults = { model: image, body: { options: {} } };
const longer = { model: video, body: { options: { duration: 8 } } };

let keys = 0;
/** A ledger item to send: its own request key unless told. */
const fresh = (key = `k-${++keys}`): LedgerItem => ledgerItem(0, key);
/** A send whose answer names the run (what sendItem leaves in the ledger). */
const answers = (item: LedgerItem, id: string, cost: number) => async () => learnRun(item, runRecord({ id, cost }));
/** A send whose tries ended with `outcomes`. */
const ends =
	(item: LedgerItem, ...outcomes: SendOutcome[]) =>
	async () =>
		outcomes.forEach((o) => learn(item, o));
/** Sends `item` under `cap` with a send that answers with run `id`: the cap's refusal, or undefined. */
const sendRun = (cap: SpendingCap, request: typeof atDefaults, id: string, cost: number, item = fresh()) =>
	cap.send(item, request, answers(item, id, cost));

describe('the spending cap', () => {
	test('refuses what would cross the cap, sending nothing; a refund takes a failed run off', async () => {
		const cap = new SpendingCap(12, {}, book());
		expect(await sendRun(cap, atDefaults, 'r1', 5)).toBeUndefined();
		expect(await sendRun(cap, atDefaults, 'r2', 5)).toBeUndefined();
		const item = fresh();
		const send = jest.fn(answers(item, 'r3', 5));
		const refused = await cap.send(item, atDefaults, send);
		// Priced by the run this step already paid for with the same model and options (the real price).
		expect(refused).toEqual({ cap: 12, spent: 10, price: { credits: 5, basis: 'earlier run', runId: 'r2' } });
		expect(send).not.toHaveBeenCalled();
		expect(item.state).toBe('unsent');
		cap.refund({ id: 'r1', cost: 5 });
		expect(cap.spent).toBe(5);
	});

	test('a run of unknown price goes while credits are left, and its price is learnt for the next one', async () => {
		const cap = new SpendingCap(100, {}, book());
		const item = fresh();
		expect(await cap.send(item, longer, answers(item, 'v1', 144))).toBeUndefined();
		expect(item.run?.id).toBe('v1');
		expect(cap.spent).toBe(144);
		const refused = await sendRun(cap, longer, 'v2', 144);
		expect(refused).toEqual({ cap: 100, spent: 144, price: { credits: 144, basis: 'earlier run', runId: 'v1' } });
	});

	test('nothing of unknown price goes once the cap is reached, and the refusal says why', async () => {
		const cap = new SpendingCap(10, {}, book());
		await sendRun(cap, atDefaults, 'r1', 5);
		await sendRun(cap, atDefaults, 'r2', 5);
		const refused = await sendRun(cap, longer, 'v1', 144);
		expect(refused).toMatchObject({ cap: 10, spent: 10, price: { credits: null } });
		expect(capRefusalMessage(refused!)).toBe(
			'Max Credits per Execution (10) reached: 10 credits are already spent by this step in this execution, ' +
				"and this run's price is not known in advance (this account has no earlier run of lumora-motion-3-fast " +
				'with resolution 720p, duration 8, audio false (looked through its newest 0 runs))',
		);
	});

	test('sends under a cap go one at a time: a run of unknown price is sent alone', async () => {
		const cap = new SpendingCap(1000, {}, book());
		let inFlight = 0;
		let most = 0;
		const send = (item: LedgerItem, id: string, cost: number) => async () => {
			most = Math.max(most, ++inFlight);
			await new Promise((r) => setImmediate(r));
			inFlight--;
			learnRun(item, runRecord({ id, cost }));
		};
		const [a, b] = [fresh(), fresh()];
		await Promise.all([cap.send(a, longer, send(a, 'a', 144)), cap.send(b, atDefaults, send(b, 'b', 5))]);
		expect(most).toBe(1);
		expect(cap.spent).toBe(149);
	});

	test('a run returned again for the same key counts once; the total spans loop passes of one execution', async () => {
		const nodeContext = {};
		const first = new SpendingCap(100, nodeContext, book());
		await sendRun(first, atDefaults, 'same', 5, fresh('k'));
		await sendRun(first, atDefaults, 'same', 5, fresh('k'));
		expect(first.spent).toBe(5);
		expect(new SpendingCap(100, nodeContext, book()).spent).toBe(5);
	});

	test('the total is plain data in the node context: read back after n8n saved and loaded it', async () => {
		const nodeContext = {};
		const first = new SpendingCap(100, nodeContext, book());
		await sendRun(first, atDefaults, 'r1', 5);
		first.plan(7);
		const loaded = JSON.parse(JSON.stringify(nodeContext)) as IDataObject;
		expect(loaded[CAP_TOTAL_KEY]).toEqual({ spent: 12, counted: ['r1'] });
		const later = new SpendingCap(100, loaded, book());
		expect(later.spent).toBe(12);
		later.refund({ id: 'r1', cost: 5 });
		expect(later.spent).toBe(7);
	});

	test('the up-front check sums only prices known in advance', () => {
		const cap = new SpendingCap(12, {}, book());
		expect(cap.firstCertainOverrun([atDefaults, atDefaults, atDefaults])).toEqual({ total: 15, count: 3 });
		expect(cap.firstCertainOverrun([atDefaults, longer, longer])).toBeUndefined();
	});

	test("sendUnderCap: the cap's refusal is the item's (refused, nothing sent); no cap, it just sends", async () => {
		const node = { name: 'Media Gen' } as INode;
		const cap = new SpendingCap(4, {}, book());
		const item = fresh();
		const send = jest.fn(answers(item, 'r1', 5));
		await sendUnderCap(cap, node, { ...atDefaults, itemIndex: 3 } as never, item, send);
		expect(send).not.toHaveBeenCalled();
		expect(item.state).toBe('refused');
		expect(item.failure).toMatchObject({
			message: expect.stringContaining('Max Credits per Execution (4) reached: this run would cost 5 credits'),
			context: { errorCode: 'spending_cap' },
		});
		const free = fresh();
		await sendUnderCap(undefined, node, { ...atDefaults, itemIndex: 0 } as never, free, answers(free, 'r2', 5));
		expect(free).toMatchObject({ state: 'running', run: { id: 'r2' } });
	});
});

describe('a send that brought no run may still have been charged (issues 41, 52)', () => {
	const lost: SendOutcome = { noAnswer: new Error('no usable answer') };
	const busy: SendOutcome = { busy: new Error('409') };
	const refused: SendOutcome = { refused: new Error('400 invalid') };

	test('a lost answer counts at its predicted price, so the next run that would cross the cap is refused', async () => {
		const cap = new SpendingCap(10, {}, book());
		const item = fresh('k-1');
		expect(await cap.send(item, atDefaults, ends(item, lost))).toBeUndefined();
		expect(item.state).toBe('answerLost');
		expect(cap.spent).toBe(5);
		expect(await sendRun(cap, atDefaults, 'r2', 5)).toBeUndefined();
		expect(await sendRun(cap, atDefaults, 'r3', 5)).toMatchObject({ cap: 10, spent: 10 });
	});

	test('a lost answer then busy, or then a refusal, still counts; the same key counts once', async () => {
		const cap = new SpendingCap(100, {}, book());
		const item = fresh('k-1');
		await cap.send(item, atDefaults, ends(item, lost, busy));
		expect(cap.spent).toBe(5);
		// Sent again with the same key: it stays the one run that may have been made.
		await cap.send(item, atDefaults, ends(item, busy, refused));
		expect(item.state).toBe('refusedAfterLost');
		expect(cap.spent).toBe(5);
		const other = fresh('k-2');
		await cap.send(other, atDefaults, ends(other, { ...refused, lostBefore: true }));
		expect(cap.spent).toBe(10);
	});

	test('a lost answer of unknown price fills the cap: no second run of unknown price goes', async () => {
		const cap = new SpendingCap(100, {}, book());
		const item = fresh('v-1');
		await cap.send(item, longer, ends(item, lost));
		expect(cap.spent).toBe(100);
		expect(await sendRun(cap, longer, 'v2', 144)).toMatchObject({ cap: 100, spent: 100, price: { credits: null } });
	});

	test('busy, passing and refused answers with no lost one count nothing', async () => {
		const cap = new SpendingCap(100, {}, book());
		const waited = fresh();
		await cap.send(waited, atDefaults, ends(waited, busy, { passing: new Error('503') }, busy));
		expect(waited.state).toBe('unsent');
		const refusedItem = fresh();
		await cap.send(refusedItem, atDefaults, ends(refusedItem, refused));
		expect(refusedItem.state).toBe('refused');
		expect(cap.spent).toBe(0);
	});

	test("a key that returned another request's run: refused; that run is not this step's, so counts 0", async () => {
		const cap = new SpendingCap(100, {}, book());
		// What sendItem does with the run of another request (keyTakenError names it as takenBy).
		const taken = Object.assign(new Error('Request key "k" already belongs to run gen_x'), {
			context: { requestKey: 'k', takenBy: 'gen_x' },
		});
		const item = fresh('k');
		await cap.send(item, atDefaults, async () => refuse(item, taken));
		await cap.send(item, atDefaults, async () => refuse(item, taken));
		expect(item).toMatchObject({ state: 'refused', failure: taken });
		expect(cap.spent).toBe(0);
	});

	test('a run an earlier execution made with the key (earlier) costs this step nothing', async () => {
		const cap = new SpendingCap(100, {}, book());
		const item = fresh();
		await cap.send(item, atDefaults, async () => {
			learnRun(item, runRecord({ id: 'gen_old', cost: 5, status: 'SUCCEEDED' }));
			item.earlier = true;
		});
		expect(cap.spent).toBe(0);
	});

	test('an item whose typed key may return an earlier run goes first, while credits are left; it is free', async () => {
		const earlier = {
			id: 'gen_old',
			kind: 'video',
			model: video.id,
			prompt: 'a fox',
			options: { duration: 8 },
			cost: 144,
		};
		const history = new PriceBook(catalogue, {
			runs: [earlier as never, { ...earlier, id: 'gen_failed', status: 'FAILED' } as never],
			note: '',
		});
		const item = (itemIndex: number, typedKey = true, prompt = 'a fox') => ({
			...longer,
			itemIndex,
			typedKey,
			body: { ...longer.body, prompt },
		});
		// A failed run (refunded) is given back by no key; a default key is never an earlier execution's.
		expect(history.earlierRunsLike(item(0))).toEqual(['gen_old']);
		const cap = new SpendingCap(200, {}, history);
		const order = cap.sendingOrder([item(0, true, 'a cat'), item(1, false), item(2), item(3)]);
		expect(order.map((r) => r.itemIndex)).toEqual([2, 3, 0, 1]);
		expect(cap.firstCertainOverrun([item(2), item(3)])).toBeUndefined();
		// The first of two like items gets a new run: charged. The run made earlier is still to be given back.
		expect(await sendRun(cap, item(2), 'v_new', 144)).toBeUndefined();
		expect(cap.spent).toBe(144);
		expect(await sendRun(cap, item(3), 'gen_old', 144)).toBeUndefined();
		expect(cap.spent).toBe(144);
		// Given back once, it vouches for no other item: a third like item has a known price again.
		expect(await sendRun(cap, item(4), 'v3', 144)).toMatchObject({ price: { credits: 144 } });
		const full = new SpendingCap(100, { [CAP_TOTAL_KEY]: { spent: 100, counted: [] } }, history);
		const refused = await sendRun(full, item(0), 'gen_old', 144);
		expect(capRefusalMessage(refused!)).toContain(
			'its Request Key may return run gen_old, made and paid for earlier, or start a new run at 144 credits',
		);
	});
});
