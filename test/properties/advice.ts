// Rule 3: following the advice in any message literally charges nothing more. A message advises when it tells the
// user to run the step again with Request Key set to a value (a key, an expression) or left as it is. Following it
// means running the same step on the same items with that value in Request Key. Then no request may be paid for again
// (runs charged per request no more than its items that had none charged), and when the follow-up finishes, every run
// charged under a key the advice covers that the first execution did not hand over is in its output. A follow-up whose
// own time limit passed before it had that key's run (its item `timedOut`: on the warped clock a loaded machine can
// spend a whole limit on a few requests) gives the same advice again, and is followed again (runCase.ts).
import type { ExecutionRecord } from './execute';
import { signatureOf, type RunFacts } from './ledgerView';
import { itemsPerSignature, runOfItem, type Checked, type Violation } from './rules';

// The node words every advice with one function (nodes/MediaGen/run/requestKey.ts requestKeyAdvice): Request Key
// "set to \"<key>\"", "set to the expression \"<expression>\"", or "as it is" (the typed expression already gives each
// item its key). Anything else that sends the user to Request Key is advice that cannot be followed literally.
const ADVICE = /Request Key[^.]{0,160}?(?:set to|and run|as it is)|put (?:this|the) key in[^.]{0,80}Request Key/i;
const VALUE = /Request Key (?:set to the expression "([^"]+)"|set to "([^"]+)"|(as it is))/;

export interface Advice {
	/** The Request Key to type: a literal, an n8n expression ("=…"), or undefined for "as it is". */
	value: string | undefined;
	/** The request keys the first execution sent that the advice names or covers (for the run to come back). */
	keys: string[];
	/** Where the message is: "the error", "item 3". */
	where: string;
}

/** The value a message tells the user to put in Request Key, if it says exactly one. */
function valueIn(text: string): { value: string | undefined } | undefined {
	const m = VALUE.exec(text);
	if (!m) return undefined;
	if (m[1] !== undefined) return { value: `=${m[1]}` };
	if (m[2] !== undefined) return { value: m[2] };
	return { value: undefined };
}

/** The advice in an execution's messages, one per distinct value (a message naming no value cannot be followed). */
export function adviceIn(record: ExecutionRecord, facts: Map<string, RunFacts>): { advice: Advice[]; keyless: number } {
	const keys = [...new Set([...facts.values()].map((f) => f.requestKey).filter(Boolean))];
	const sources: Array<{ where: string; text: string }> = [];
	if (record.error) {
		const { message, description } = record.error;
		sources.push({ where: 'the error', text: `${message}\n${description ?? ''}` });
	}
	for (const { json, item } of record.items) {
		const text = [json.error, json.description, json.note, json.warning].filter((t) => typeof t === 'string').join(' ');
		sources.push({ where: `item ${item + 1}`, text });
	}
	const advice = new Map<string, Advice>();
	let keyless = 0;
	for (const { where, text } of sources) {
		if (!ADVICE.test(text)) continue;
		const found = valueIn(text);
		if (!found) {
			keyless++;
			continue;
		}
		const id = found.value ?? '(as it is)';
		// A literal names one key; an expression or "as it is" gives every item the key it was sent.
		const covered = found.value !== undefined && !found.value.startsWith('=') ? [found.value] : keys;
		if (!advice.has(id)) advice.set(id, { value: found.value, keys: covered, where });
	}
	return { advice: [...advice.values()], keyless };
}

/** Picks the advice to follow: the first and the last key named (following each costs a whole execution). */
export function toFollow(advice: Advice[], most: number): Advice[] {
	if (advice.length <= most) return advice;
	return [...advice.slice(0, most - 1), advice[advice.length - 1]];
}

/**
 * Runs charged under a key the advice covers that the first execution did not hand over and no follow-up has in its
 * output yet. `before`: the run facts before the first follow-up.
 */
function notBack(
	c: Checked,
	before: Map<string, RunFacts>,
	follows: ExecutionRecord[],
	advice: Advice,
	first: ExecutionRecord,
) {
	const delivered = new Set(follows.flatMap((f) => f.items.map((i) => runOfItem(i.json))));
	// The advice recovers what the first execution did not hand over; a run already in its output is the user's.
	const handedOver = new Set(first.items.map((i) => runOfItem(i.json)));
	return [...before.values()].filter(
		(r) =>
			r.charged > 0 &&
			!c.holders.has(r.id) &&
			advice.keys.includes(r.requestKey) &&
			!handedOver.has(r.id) &&
			!delivered.has(r.id),
	);
}

/** The follow-up ran out of its own time limit before it had one of these runs: following again is the advice. */
export function outOfTimeFor(
	c: Checked,
	before: Map<string, RunFacts>,
	follows: ExecutionRecord[],
	advice: Advice,
	first: ExecutionRecord,
) {
	const last = follows[follows.length - 1];
	const timedOut = new Set(last.items.filter((i) => i.json.timedOut === true).map((i) => String(i.json.requestKey)));
	const missing = notBack(c, before, follows, advice, first);
	return !last.error && missing.length > 0 && missing.every((r) => timedOut.has(r.requestKey));
}

/**
 * Compares the ledger before and after the follow-ups of one advice (one, or more when one ran out of time): no
 * request paid for again, and the run the key names back. `before` are the run facts before the first follow-up,
 * `c.facts` after the last.
 */
export function checkAdviceFollowed(
	c: Checked,
	before: Map<string, RunFacts>,
	follows: ExecutionRecord[],
	advice: Advice,
	first: ExecutionRecord,
): Violation[] {
	const out: Violation[] = [];
	const last = follows[follows.length - 1];
	const v = (detail: string) =>
		out.push({ rule: 3, execution: last.label, detail: `advice in ${advice.where}: ${detail}` });
	const paid = (runs: Iterable<RunFacts>) => [...runs].filter((r) => r.charged > 0 && !c.holders.has(r.id));
	const items = itemsPerSignature(c);
	const created = new Set(follows.flatMap((f) => f.created));
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
	if (!last.error) {
		const times = follows.length > 1 ? ` after ${follows.length} follow-ups` : '';
		for (const run of notBack(c, before, follows, advice, first))
			v(`run ${run.id}, charged under ${run.requestKey}, is still not in the output${times}`);
	}
	return out;
}
