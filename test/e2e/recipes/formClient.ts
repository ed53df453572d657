// Fills in an n8n form over HTTP as the browser page does (multipart fields `field-0`, `field-1`, …), waits
// for the execution to reach its Form Ending, and reads the result page: its HTML and the file it hands out.
import { untilN8n } from '../shared';

export interface FormResult {
	executionId: string;
	html: string;
	/** The file the result page downloads ("Return Binary File"), as the page's script decodes it. */
	file: { fileName: string; type: string; bytes: Buffer };
}

interface PageBinary {
	fileName: string;
	type: string;
	data: { type: 'Buffer'; data: number[] } | string;
}

function fileOfPage(html: string): FormResult['file'] {
	const encoded = /JSON\.parse\(decodeURIComponent\("([^"]+)"\)\)/.exec(html)?.[1];
	if (!encoded) throw new Error(`The result page hands out no file:\n${html.slice(0, 2000)}`);
	const parsed = JSON.parse(decodeURIComponent(encoded)) as PageBinary | PageBinary[];
	// n8n 2.x lists the files, 1.x gives the one file.
	const binary = Array.isArray(parsed) ? parsed[0] : parsed;
	const bytes = typeof binary.data === 'string' ? Buffer.from(binary.data, 'latin1') : Buffer.from(binary.data.data);
	return { fileName: binary.fileName, type: binary.type, bytes };
}

/** Posts a form page's fields as the browser page does (multipart `field-0`, `field-1`, …); returns the answer. */
export async function postFields(
	url: string,
	fields: Array<string | { fileName: string; type: string; bytes: Buffer }>,
): Promise<string> {
	const body = new FormData();
	fields.forEach((value, i) =>
		typeof value === 'string'
			? body.append(`field-${i}`, value)
			: body.append(`field-${i}`, new Blob([new Uint8Array(value.bytes)], { type: value.type }), value.fileName),
	);
	const posted = await fetch(url, { method: 'POST', body });
	const answer = await posted.text();
	if (!posted.ok) throw new Error(`${url}: HTTP ${posted.status} ${answer.slice(0, 500)}`);
	return answer;
}

/**
 * Posts a Form Trigger's fields; returns where the execution's pages are served. `logOf` gives n8n's log, shown if
 * the form is never served.
 */
export async function postForm(
	formUrl: string,
	fields: Array<string | { fileName: string; type: string; bytes: Buffer }>,
	logOf?: () => string,
): Promise<{ waitingUrl: URL; executionId: string }> {
	// n8n registers an activated workflow's form a moment after activation; until then it answers 404. n8n 2.x
	// activates published workflows after start through its publication outbox, whose lease is 2 minutes: once, on
	// a loaded CI machine, a form was still not served after 2 minutes, so this waits up to 5 and shows n8n's log.
	await untilN8n(
		async () => (await fetch(formUrl)).status !== 404,
		() => `the form at ${formUrl} to be served${logOf ? `; n8n's log ends:\n${logOf().slice(-4000)}` : ''}`,
		300_000,
	);
	const answer = await postFields(formUrl, fields);
	const waitingUrl = new URL((JSON.parse(answer) as { formWaitingUrl: string }).formWaitingUrl);
	return { waitingUrl, executionId: waitingUrl.pathname.split('/').pop()! };
}

/** Polls the execution's status as the page does until it is no longer running; returns that status. */
export async function settledStatus(waitingUrl: URL, timeoutMs = 120_000): Promise<string> {
	// After the query, as the page does: n8n 2.x reads a suffix behind the resume token ("signature=<token>/<suffix>").
	const statusUrl = `${waitingUrl.href}/n8n-execution-status`;
	let status = '';
	return await untilN8n(
		async () => {
			status = await (await fetch(statusUrl)).text();
			return !['new', 'running', 'null'].includes(status) && status;
		},
		() => `the execution behind ${waitingUrl.href} to stop running (it is "${status}")`,
		timeoutMs,
	);
}

/** The page the execution serves now: a next form page, or its ending. */
export async function pageOf(waitingUrl: URL): Promise<string> {
	const page = await fetch(waitingUrl);
	const html = await page.text();
	if (!page.ok) throw new Error(`${waitingUrl.href}: HTTP ${page.status} ${html.slice(0, 500)}`);
	return html;
}

export async function submitForm(
	formUrl: string,
	fields: Array<string | { fileName: string; type: string; bytes: Buffer }>,
	logOf?: () => string,
	timeoutMs = 120_000,
): Promise<FormResult> {
	const { waitingUrl, executionId } = await postForm(formUrl, fields, logOf);
	const status = await settledStatus(waitingUrl, timeoutMs);
	if (!['success', 'form-waiting', 'waiting'].includes(status))
		throw new Error(`Execution ${executionId} ended as "${status}"`);
	const html = await pageOf(waitingUrl);
	return { executionId, html, file: fileOfPage(html) };
}
