// A text field sent to the service (the Prompt), read so that an expression giving nothing never becomes a paid run.
// n8n's getNodeParameter hands the node what the expression returned: undefined for {{ $json.prompt }} on an item
// without `prompt`, null where the field is null (Estimate Cost's summary item), and String() of those would send
// the words "undefined" or "null". Fixed text is sent as typed, even the word "undefined".
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/** The field an expression like {{ $json.prompt }} or {{ $json["prompt"] }} reads, if it is only that. */
function jsonFieldOf(expression: string): string | undefined {
	const match = /^=\s*\{\{\s*\$json(?:\.([A-Za-z_$][\w$]*)|\[\s*["']([^"']+)["']\s*\])\s*\}\}\s*$/.exec(expression);
	return match ? (match[1] ?? match[2]) : undefined;
}

/** What the item holds in place of the text, in words. */
function whatTheItemHas(json: Record<string, unknown>, field: string | undefined, value: unknown): string {
	if (field === undefined) return `it gave no value (${String(value)})`;
	if (!(field in json)) return `the item has no "${field}" field`;
	return `the item's "${field}" field is ${String(json[field])}`;
}

/** An expression as the message quotes it: at most 80 characters, without the marker n8n puts in $fromAI ones. */
function shortened(expression: string): string {
	const text = expression.replace(/\/\*n8n-auto-generated-fromAI-override\*\/\s*/g, '').trim();
	return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/**
 * Estimate Cost's summary item (its last one when Put the Summary is "In One Item After the Estimates") carries
 * `summary: true` and no request: the advice says how to leave it out.
 */
function isEstimateSummary(json: Record<string, unknown>): boolean {
	return json.summary === true && 'totalCredits' in json;
}

/**
 * The text of a field sent to the service. An expression that gives undefined or null refuses the item, naming the
 * field and what the item holds; nothing is sent for it.
 */
export function readRequestText(ctx: IExecuteFunctions, name: string, label: string, itemIndex: number): string {
	const value = ctx.getNodeParameter(name, itemIndex, '') as unknown;
	const raw = ctx.getNodeParameter(name, itemIndex, '', { rawExpressions: true }) as unknown;
	if (typeof raw !== 'string' || !raw.startsWith('=')) return String(value ?? '');
	// Empty text is refused by checkRequest ("Prompt is empty"), as typed or from an expression.
	if (value !== undefined && value !== null) return String(value);
	const field = jsonFieldOf(raw);
	const json = (ctx.getInputData()[itemIndex]?.json ?? {}) as Record<string, unknown>;
	const skip = isEstimateSummary(json)
		? `This item is Estimate Cost's summary (summary: true), not a request: set Estimate Cost's Put the Summary ` +
			`to On Every Item so the totals go on each estimate and no summary item follows, or drop the items whose ` +
			`summary is true (for example with a Filter node) before this step.`
		: `${field ? `Give every item a "${field}" field` : 'Make the expression give text for every item'}, or leave ` +
			`out the items without one (for example with a Filter node) before this step.`;
	throw new NodeOperationError(
		ctx.getNode(),
		`${label}: the expression ${shortened(raw.slice(1))} gave nothing: ${whatTheItemHas(json, field, value)}.`,
		{ description: skip, itemIndex },
	);
}
