// Rule 5: the node's claim that nothing was charged is one structured field, checked against the ledger:
//   - `nothingCharged: true` on an output item is about that item: about the runs of its request key when it names
//     one, else counted against the runs made for its request (model and prompt);
//   - `nothingCharged: true` in a thrown error's context is about the item it names (request key, item index), or
//     about the whole execution when it names none; its `notStarted` lists items (from 1) a stopped step never started.
// And the words agree with the field: an item or error that says "nothing was charged" without the field, or whose
// field says so for an item that may have been charged, breaks the rule too; so does any other wording of the claim
// ("cost nothing", "not charged"), so a new wording cannot slip past the check.
import type { IDataObject } from 'n8n-workflow';

import { requestOf } from './batchCase';
import type { ExecutionRecord } from './execute';
import { baseKeyOf, signatureOf, type RunFacts } from './ledgerView';
import { itemsPerSignature, type Checked, type Violation } from './rules';

const CLAIM = /nothing was charged|(?:was|were|is|are) not charged|cost nothing|nothing is charged/i;
/** The node's one wording of the claim; any other CLAIM match is a second wording, and breaks the rule. */
const ONE_WORDING = /nothing was charged/gi;
/** "Items 3, 4 were not started, so nothing was charged for them": said beside `notStarted`, which the check reads. */
const NOT_STARTED =
	/Items? ([\d, ]+?)(?: and \d+ more)? (?:was|were) not started, so nothing was charged for (?:it|them)\./g;

/** The words of an item or error that may claim nothing was charged, less the not-started note. */
const wordsOf = (...texts: unknown[]) =>
	texts
		.filter((t) => typeof t === 'string')
		.join(' ')
		.replace(NOT_STARTED, '');

/** The item an error names: `itemIndex` (from 0), or `item` (from 1) where the node names it as people count. */
function itemOf(context: IDataObject): number | undefined {
	if (typeof context.itemIndex === 'number') return context.itemIndex;
	return typeof context.item === 'number' ? context.item - 1 : undefined;
}

export function checkClaims(c: Checked, record: ExecutionRecord): Violation[] {
	const out: Violation[] = [];
	const v = (detail: string) => out.push({ rule: 5, execution: record.label, detail });
	const charged = record.created
		.map((id) => c.facts.get(id)!)
		.filter((f) => f && f.charged > 0 && !c.holders.has(f.id));
	const keyedRuns = (key: string): RunFacts[] =>
		charged.filter((r) => r.requestKey === key || baseKeyOf(r.requestKey) === key);
	const claimed = new Map<string, number>();
	const claimItem = (item: number) => {
		const signature = signatureOf(requestOf(c.case.batch, item));
		claimed.set(signature, (claimed.get(signature) ?? 0) + 1);
	};
	const claimKey = (key: string, where: string) => {
		const runs = keyedRuns(key);
		if (runs.length)
			v(
				`${where} has nothingCharged, but ${runs.map((r) => `${r.id} (${r.charged} credits)`).join(', ')} under key ${key}`,
			);
	};
	const fieldMatchesWords = (where: string, field: unknown, words: string) => {
		if (field !== true && CLAIM.test(words))
			v(`${where} says "${CLAIM.exec(words)![0]}" without the nothingCharged field`);
		const other = words.replace(ONE_WORDING, '');
		if (CLAIM.test(other)) v(`${where} says "${CLAIM.exec(other)![0]}": a second wording of "nothing was charged"`);
	};

	for (const { json, item } of record.items) {
		fieldMatchesWords(`item ${item + 1}`, json.nothingCharged, wordsOf(json.error, json.description, json.note));
		if (json.nothingCharged !== true) continue;
		claimItem(item);
		if (typeof json.requestKey === 'string' && json.requestKey) claimKey(json.requestKey, `item ${item + 1}`);
	}

	const error = record.error;
	if (error) {
		const context = (error.context ?? {}) as IDataObject;
		fieldMatchesWords('the error', context.nothingCharged, wordsOf(error.message, error.description));
		const notStarted = Array.isArray(context.notStarted) ? (context.notStarted as number[]) : [];
		for (const item of notStarted) claimItem(item - 1);
		if (context.nothingCharged === true) {
			if (typeof context.requestKey === 'string') {
				claimKey(context.requestKey, 'the error');
				if (itemOf(context) !== undefined) claimItem(itemOf(context)!);
			} else if (itemOf(context) !== undefined) claimItem(itemOf(context)!);
			else if (charged.length)
				v(
					`the error has nothingCharged for the whole execution, but it charged ` +
						charged.map((r) => `${r.id} (${r.charged})`).join(', '),
				);
		}
	}

	// Counted per request: runs charged for it ≤ its items that do not say they cost nothing.
	const items = itemsPerSignature(c);
	for (const [signature, claims] of claimed) {
		const runs = charged.filter((r) => signatureOf(r) === signature);
		const room = (items.get(signature) ?? 0) - claims;
		if (runs.length > room) {
			v(
				`${claims} item(s) asking for "${runs[0].prompt}" have nothingCharged, but ${runs.length} run(s) ` +
					`were charged for their ${items.get(signature)} item(s): ${runs.map((r) => r.id).join(', ')}`,
			);
		}
	}
	return out;
}
