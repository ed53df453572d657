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
	retryAfterSeconds: number;
	/** Set only when the rule sets it; injected 429s default to Retry-After in seconds. */
	rateLimitStyle?: RateLimitStyle;
}

function faultOf(rule: FaultRule, kind: FaultKind): PickedFault {
	const fault: PickedFault = { kind, slowMs: rule.slowMs ?? 2000, retryAfterSeconds: rule.retryAfterSeconds ?? 1 };
	if (rule.rateLimitStyle) fault.rateLimitStyle = rule.rateLimitStyle;
	return fault;
}

interface ActiveRule extends FaultRule {
	random: () => number;
	position: number;
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
