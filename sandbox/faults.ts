// Seeded fault injection per route: a rate with kinds, or a scripted sequence.
import type { FaultKind, FaultRule, RateLimitStyle } from './config';

/** mulberry32: small, fast, seedable. */
export function seeded(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** A fault to apply to one request. */
export interface PickedFault {
	kind: FaultKind;
	slowMs: number;
	/**
	 * Only for "late" (and "drop", handled late in strict mode): how long after the cut the request is handled,
	 * before the clock scale.
	 */
	lateMs?: number;
	retryAfterSeconds: number;
	/** Set only when the rule sets it; injected 429s default to Retry-After in seconds. */
	rateLimitStyle?: RateLimitStyle;
}

interface ActiveRule extends FaultRule {
	random: () => number;
	position: number;
}

/** A "late" request is handled 1 to 7 s after the cut (before the clock scale), drawn so a seed repeats it. */
const LATE_MIN_MS = 1000;
const LATE_SPREAD_MS = 6000;

function faultOf(rule: ActiveRule, kind: FaultKind): PickedFault {
	const fault: PickedFault = { kind, slowMs: rule.slowMs ?? 2000, retryAfterSeconds: rule.retryAfterSeconds ?? 1 };
	// A cut submission is handled late in strict mode (sandbox/http/injectedFault.ts), so a drop draws its delay too.
	if (kind === 'late' || kind === 'drop')
		fault.lateMs = rule.lateMs ?? Math.round(LATE_MIN_MS + LATE_SPREAD_MS * rule.random());
	if (rule.rateLimitStyle) fault.rateLimitStyle = rule.rateLimitStyle;
	return fault;
}

export class FaultInjector {
	private rules: ActiveRule[] = [];

	set(rules: FaultRule[]): void {
		this.rules = rules.map((r, i) => ({ ...r, random: seeded(r.seed ?? 1234 + i), position: 0 }));
	}

	/** The fault to apply to this request, if any. `route` is like "POST /generations/:id". */
	pick(route: string): PickedFault | undefined {
		for (const rule of this.rules) {
			if (rule.route !== '*' && rule.route !== route) continue;
			if (rule.script) {
				if (rule.position >= rule.script.length) continue;
				const step = rule.script[rule.position++];
				if (step === 'ok') return undefined;
				return faultOf(rule, step);
			}
			if (rule.rate && rule.random() < rule.rate) {
				const kinds = rule.kinds?.length ? rule.kinds : (['500', '502', '503', 'drop', 'slow'] as FaultKind[]);
				return faultOf(rule, kinds[Math.floor(rule.random() * kinds.length)]);
			}
		}
		return undefined;
	}
}
