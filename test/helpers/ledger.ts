// The sandbox's credit ledger read the way the tests check it: what an owner has spent, what each charge to an owner
// or of one run took.
// Shared by the engine tests (helpers/sandbox.ts) and the real-n8n suites.
import type { Sandbox } from '../../sandbox/server';

/** Net credits an owner has spent (charges minus refunds; top-ups left out). */
export const spentBy = (sb: Sandbox, ownerId: string): number =>
	-sb.engine.ledger.filter((l) => l.ownerId === ownerId && l.reason !== 'topup').reduce((s, l) => s + l.delta, 0);

/** The credits each charge to an owner took (refunds aside), oldest first. */
export const chargesOf = (sb: Sandbox, ownerId: string): number[] =>
	sb.engine.ledger.filter((l) => l.ownerId === ownerId && l.reason === 'charge').map((l) => -l.delta);

/** The credits each charge of one run took (refunds aside): `[5]` for a run charged once. */
export const runCharges = (sb: Sandbox, runId: string): number[] =>
	sb.engine.ledger.filter((l) => l.runId === runId && l.reason === 'charge').map((l) => -l.delta);
