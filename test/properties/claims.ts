// Rule 5: "nothing was charged" (and the node's other words for it: "not charged", "cost nothing") appears only
// where the ledger agrees. A claim on an output item is about that item: about the runs of its request key when the
// item names one, else counted against the runs made for its request (model and prompt). A thrown error's claim is
// about the item it names (request key, item index), or about the whole execution ("Nothing was submitted and
// nothing was charged", or an error naming no item); "Items 3, 4 were not started and cost nothing" about those.
import { requestOf } from './batchCase';
import type { ExecutionRecord } from './execute';
import { baseKeyOf, signatureOf, type RunFacts } from './ledgerView';
import { itemsPerSignature, type Checked, type Violation } from './rules';

const CLAIM = /nothing was charged|(?:was|were|is|are) not charged|cost nothing|nothing is charged/i;
const WHOLE_EXECUTION = /nothing was submitted and nothing was charged/i;
const NOT_STARTED = /Items ([\d, ]+?)(?: and \d+ more)? were not started and cost nothing\.?/;

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
	const claimKey = (key: string, where: string, quote: string) => {
		const runs = keyedRuns(key);
		if (runs.length)
			v(
				`${where} says "${quote}", but ${runs.map((r) => `${r.id} (${r.charged} credits)`).join(', ')} under key ${key}`,
			);
	};

	for (const { json, item } of record.items) {
		const text = [json.error, json.description, json.note].filter((t) => typeof t === 'string').join(' ');
		const quote = CLAIM.exec(text)?.[0];
		if (!quote) continue;
		claimItem(item);
		if (typeof json.requestKey === 'string' && json.requestKey) claimKey(json.requestKey, `item ${item + 1}`, quote);
	}

	const error = record.error;
	if (error) {
		const text = `${error.message}\n${error.description ?? ''}`;
		const notStarted = NOT_STARTED.exec(text);
		for (const n of notStarted?.[1].split(',').map((s) => Number(s.trim())) ?? []) if (n > 0) claimItem(n - 1);
		const rest = text.replace(NOT_STARTED, '');
		const quote = CLAIM.exec(rest)?.[0];
		const context = error.context ?? {};
		if (WHOLE_EXECUTION.test(rest) || (quote && context.requestKey === undefined && context.itemIndex === undefined)) {
			if (charged.length)
				v(
					`the error says "${quote}", but this execution charged ${charged.map((r) => `${r.id} (${r.charged})`).join(', ')}`,
				);
		} else if (quote && typeof context.requestKey === 'string') {
			claimKey(context.requestKey, 'the error', quote);
			if (typeof context.itemIndex === 'number') claimItem(context.itemIndex);
		} else if (quote && typeof context.itemIndex === 'number') claimItem(context.itemIndex);
	}

	// Counted per request: runs charged for it ≤ its items that do not say they cost nothing.
	const items = itemsPerSignature(c);
	for (const [signature, claims] of claimed) {
		const runs = charged.filter((r) => signatureOf(r) === signature);
		const room = (items.get(signature) ?? 0) - claims;
		if (runs.length > room) {
			v(
				`${claims} item(s) asking for "${runs[0].prompt}" say nothing was charged for them, but ${runs.length} run(s) ` +
					`were charged for their ${items.get(signature)} item(s): ${runs.map((r) => r.id).join(', ')}`,
			);
		}
	}
	return out;
}
