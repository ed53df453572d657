/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Fills in an n8n form over HTTP as the browser page does (multipart fields `field-0`, `field-1`, …), waits
// for the execution to reach its Form Ending, and reads the result page: its HTML and the file it hands out.
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

export async function submitForm(
	formUrl: string,
	fields: Array<string | { fileName: string; type: string; bytes: Buffer }>,
	timeoutMs = 120_000,
): Promise<FormResult> {
	const body = new FormData();
	fields.forEach((value, i) =>
		typeof value === 'string'
			? body.append(`field-${i}`, value)
			: body.append(`field-${i}`, new Blob([new Uint8Array(value.bytes)], { type: value.type }), value.fileName),
	);
	const posted = await fetch(formUrl, { method: 'POST', body });
	const answer = await posted.text();
	if (!posted.ok) throw new Error(`${formUrl}: HTTP ${posted.status} ${answer.slice(0, 500)}`);
	const waitingUrl = new URL((JSON.parse(answer) as { formWaitingUrl: string }).formWaitingUrl);
	const executionId = waitingUrl.pathname.split('/').pop()!;
	const statusUrl = new URL(waitingUrl);
	statusUrl.pathname += '/n8n-execution-status';
	// The page polls this status until the execution is no longer running, then loads the result page.
	let status = '';
	for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
		status = await (await fetch(statusUrl)).text();
		if (!['new', 'running', 'null'].includes(status)) break;
		await new Promise((r) => setTimeout(r, 500));
	}
	if (!['success', 'form-waiting', 'waiting'].includes(status))
		throw new Error(`Execution ${executionId} ended as "${status}"`);
	const page = await fetch(waitingUrl);
	const html = await page.text();
	if (!page.ok) throw new Error(`${waitingUrl.href}: HTTP ${page.status} ${html.slice(0, 500)}`);
	return { executionId, html, file: fileOfPage(html) };
}
