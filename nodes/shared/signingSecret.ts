// The webhook signing secret ("whsec_" + base64): its shape, the HMAC key it holds, and the connection test of the
// credential that keeps it (used by both nodes). No message echoes the secret.
import type { ICredentialsDecrypted, ICredentialTestFunctions, INodeCredentialTestResult } from 'n8n-workflow';

/** Shorter keys are refused: 16 bytes is the least a real endpoint secret has. */
const MIN_KEY_BYTES = 16;

export const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The HMAC key of a signing secret ("whsec_" + base64; the bare base64 form is read too, as the standardwebhooks
 * library does), or why it has none. Lenient decoding would turn " ", "whsec_" or "whsec_!!" into an empty key
 * that anyone can sign with, so the base64 must survive a round trip.
 */
export function readWebhookSecret(
	secret: unknown,
): { key: Buffer } | { problem: 'blank' | 'prefixOnly' | 'notBase64' | 'tooShort' } {
	const value = typeof secret === 'string' ? secret.trim() : '';
	if (!value) return { problem: 'blank' };
	const text = value.replace(/^whsec_/, '');
	if (!text) return { problem: 'prefixOnly' };
	const key = Buffer.from(text, 'base64');
	const padded = text.includes('=') ? text : text + '='.repeat((4 - (text.length % 4)) % 4);
	if (!BASE64.test(text) || key.toString('base64') !== padded) return { problem: 'notBase64' };
	return key.length < MIN_KEY_BYTES ? { problem: 'tooShort' } : { key };
}

export function describeWebhookSecretProblem(secret: unknown, field = 'Signing Secret'): string | undefined {
	const read = readWebhookSecret(secret);
	if ('key' in read) return undefined;
	// An anonymous ID has no account settings, so no secret to copy: the credential's help says what to enter then.
	const copy =
		'Copy the whole secret again from account settings → Webhooks (an anonymous ID has none: see the help of ' +
		"the credential's Signing Secret).";
	const problems = {
		blank:
			`The ${field} is empty: it takes a signing secret, whsec_ followed by base64 text. An account finds its ` +
			'secrets in account settings → Webhooks; an anonymous ID has no account settings and no secret (the help of ' +
			"the credential's Signing Secret says what to enter then).",
		prefixOnly: `The ${field} holds only the prefix whsec_ and no key. ${copy}`,
		notBase64:
			`The ${field} does not have the expected shape: whsec_ followed by base64 text (letters, digits, ` +
			`"+", "/" and up to two "=" at the end), with nothing else inside. ${copy}`,
		tooShort:
			`The ${field} is too short: the part after whsec_ must decode to at least ${MIN_KEY_BYTES} bytes. ` + copy,
	};
	return problems[read.problem];
}

/** A blank Previous Signing Secret is absent: no problem. Anything else must hold a usable key. */
export function describePreviousSecretProblem(previous: unknown): string | undefined {
	const blank = typeof previous !== 'string' || previous.trim() === '';
	return blank ? undefined : describeWebhookSecretProblem(previous, 'Previous Signing Secret');
}

/** The first problem of a signing-secret credential. */
export function describeWebhookCredentialProblem(data: { secret?: unknown; previousSecret?: unknown }) {
	return describeWebhookSecretProblem(data.secret) ?? describePreviousSecretProblem(data.previousSecret);
}

/** The credential's connection test: the shape of both fields (the service never asks for the secret). */
export async function checkSigningSecret(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const problem = describeWebhookCredentialProblem(credential.data ?? {});
	return problem
		? { status: 'Error', message: problem }
		: { status: 'OK', message: 'The signing secret has the expected shape' };
}
