// Rule 3: following the advice in any message literally charges nothing more. A message advises when it tells the
// user to run the step again with Request Key set to a value; the value is the request key the message names (a key
// of the account's runs, or "the requestKey here": the item's own). Following it means running the same step on the
// same items with that value typed into Request Key. Then no request may be paid for again (runs charged per request
// no more than its items that had none charged), and when the follow-up finishes, the run that the key names
// (charged, maybe never delivered) is in its output.
import type { ExecutionRecord } from './execute';
import { signatureOf, type RunFacts } from './ledgerView';
import { itemsPerSignature, runOfItem, type Checked, type Violation } from './rules';

const ADVICE = /Request Key[^.]{0,160}?(?:set to|and run)|put (?:this|the) key in[^.]{0,80}Request Key/i;
const ITS_OWN_KEY = /(?:requestKey|request key) here/i;

export interface Advice {
	key: string;
	/** Where the message is: "the error", "item 3". */
	where: string;
}

/** Whether `key` stands in `text` as a whole value (not as the start of a longer key). */
function names(text: string, key: string): boolean {
	let at = text.indexOf(key);
	while (at >= 0) {
		const after = text[at + key.length] ?? ' ';
		if (!/[\w-]/.test(after)) return true;
		at = text.indexOf(key, at + 1);
	}
	return false;
}

/** The advice in an execution's messages, one per key named (a message naming no key cannot be followed). */
export function adviceIn(record: ExecutionRecord, facts: Map<string, RunFacts>): { advice: Advice[]; keyless: number } {
	const known = [...new Set([...facts.values()].map((f) => f.requestKey).filter(Boolean))].sort(
		(a, b) => b.length - a.length,
	);
	const sources: Array<{ where: string; text: string; own?: unknown }> = [];
	if (record.error) {
		const { message, description, context } = record.error;
		sources.push({ where: 'the error', text: `${message}\n${description ?? ''}`, own: context?.requestKey });
	}
	for (const { json, item } of record.items) {
		const text = [json.error, json.description, json.note, json.warning].filter((t) => typeof t === 'string').join(' ');
		sources.push({ where: `item ${item + 1}`, text, own: json.requestKey });
	}
	const advice = new Map<string, Advice>();
	let keyless = 0;
	for (const { where, text, own } of sources) {
		if (!ADVICE.test(text)) continue;
		const key =
			ITS_OWN_KEY.test(text) && typeof own === 'string' && own
				? own
				: [typeof own === 'string' ? own : '', ...known].find((k) => k && names(text, k));
		if (key) {
			if (!advice.has(key)) advice.set(key, { key, where });
		} else keyless++;
	}
	return { advice: [...advice.values()], keyless };
}

/** Picks the advice to follow: the first and the last key named (following each costs a whole execution). */
export function toFollow(advice: Advice[], most: number): Advice[] {
	if (advice.length <= most) return advice;
	return [...advice.slice(0, most - 1), advice[advice.length - 1]];
}

/**
 * Compares the ledger before and after a follow-up: no request paid for again, and the run the key names back.
 * `before` are the run facts before the follow-up, `c.facts` after it.
 */
export function checkAdviceFollowed(
	c: Checked,
	before: Map<string, RunFacts>,
	follow: ExecutionRecord,
	advice: Advice,
): Violation[] {
	const out: Violation[] = [];
	const v = (detail: string) =>
		out.push({ rule: 3, execution: follow.label, detail: `advice in ${advice.where}: ${detail}` });
	const paid = (runs: Iterable<RunFacts>) => [...runs].filter((r) => r.charged > 0 && !c.holders.has(r.id));
	const items = itemsPerSignature(c);
	const created = new Set(follow.created);
	const fresh = paid(c.facts.values()).filter((r) => created.has(r.id));
	const earlier = paid(before.values());
	for (const signature of new Set(fresh.map(signatureOf))) {
		const now = fresh.filter((r) => signatureOf(r) === signature);
		const had = earlier.filter((r) => signatureOf(r) === signature).length;
		const room = Math.max(0, (items.get(signature) ?? 0) - had);
		if (now.length > room) {
			v(
				`${now.length} new run(s) charged for "${now[0].prompt}" (${now.map((r) => `${r.id} ${r.requestKey}`).join(', ')}), ` +
					`whose ${items.get(signature)} item(s) already had ${had} charged run(s)`,
			);
		}
	}
	if (!follow.error) {
		const delivered = new Set(follow.items.map((i) => runOfItem(i.json)));
		for (const run of earlier.filter((r) => r.requestKey === advice.key)) {
			if (!delivered.has(run.id)) v(`run ${run.id}, charged under ${advice.key}, is still not in the output`);
		}
	}
	return out;
}
