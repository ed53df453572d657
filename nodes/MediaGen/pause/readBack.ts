// Pause mode: a call to the resume URL whose signature does not check out is still a wake-up call. Which
// secret signs a run's own Webhook URL is not in the service's description, so a genuine delivery may fail
// the check. The node then believes only what it reads back from the service with the user's own API
// credential (shared/runReadBack.ts), and only for a run this batch already knows: by the ID in the call's
// body, or at the position its URL names. Anything else gets no read, so a forged call costs at most one
// read and can only make the node learn the truth sooner.
import type { IWebhookFunctions } from 'n8n-workflow';

import { identityOf } from '../../shared/transport';
import type { BatchMemory } from './batchMemory';
import { positionFromQuery, type PauseState } from './pauseState';

export interface WakeTarget {
	position: number;
	runId: string;
}

function knownRunId(state: PauseState, memory: BatchMemory, position: number): string | undefined {
	return memory.runs.get(position)?.run.id ?? state.items[position]?.runId;
}

/** The run a call may wake: one this batch knows by the ID in the body, else the one at the URL's position. */
export function wakeTarget(
	state: PauseState,
	memory: BatchMemory,
	body: unknown,
	query: unknown,
): WakeTarget | undefined {
	const id = (body as { id?: unknown } | undefined)?.id;
	if (typeof id === 'string' && id) {
		for (let position = 0; position < state.items.length; position++) {
			if (knownRunId(state, memory, position) === id) return { position, runId: id };
		}
	}
	const position = positionFromQuery(query, state);
	if (position === undefined) return undefined;
	const runId = knownRunId(state, memory, position);
	return runId ? { position, runId } : undefined;
}

/**
 * What an anonymous ID can know of the secret: the spec has per-account endpoint secrets in account settings and
 * says nothing of the calls back to an anonymous ID's runs.
 */
export const ANONYMOUS_SECRET =
	'An anonymous ID has no account settings, and the service does not say which secret signs the calls back to ' +
	'its runs';

/** What an anonymous ID can do instead: the two ways the spec offers. */
export const ANONYMOUS_CHOICES =
	'choose Waiting → Poll, which needs no secret, or use a Media Generation API credential (an API key), whose ' +
	"account's signing secret is in account settings → Webhooks";

/** Whether the step calls the service with an anonymous ID. */
export async function callsAnonymously(ctx: IWebhookFunctions): Promise<boolean> {
	return (await identityOf(ctx).catch(() => undefined))?.kind === 'anonymous';
}

/**
 * The warning the output carries once per execution when runs were taken on their read-back: the delivery
 * reached n8n but was signed with a secret the credential does not hold.
 */
export function unsignedWarning(ctx: IWebhookFunctions, memory: BatchMemory, anonymous = false): string {
	const count = memory.readBackTaken;
	const credential = ctx.getNode().credentials?.mediaGenWebhookApi?.name;
	const named = credential ? `the Webhook Signing Secret credential "${credential}"` : 'the Webhook Signing Secret';
	const what =
		`${count} deliver${count === 1 ? 'y' : 'ies'} to this step failed the signature check ` +
		`(${memory.lastFailure ?? 'signature does not match'}). Nothing was lost: the node read ` +
		`${count === 1 ? 'that run' : 'those runs'} back from the service with your ` +
		`${anonymous ? 'anonymous ID' : 'API credential'} and took ${count === 1 ? 'it' : 'them'} from there.`;
	if (anonymous) {
		return (
			`${what} ${ANONYMOUS_SECRET}, so this will happen again, at one extra read per delivery and nothing more. ` +
			`To avoid it, ${ANONYMOUS_CHOICES}.`
		);
	}
	return (
		`${what} To stop this warning, check the secret in ${named}: ` +
		"it is not the one that signs deliveries to a run's own Webhook URL. Ask the service which secret that " +
		'is (it may differ from the account signing secret in account settings → Webhooks). Leaving it as it is ' +
		'costs one extra read per delivery and nothing more.'
	);
}
