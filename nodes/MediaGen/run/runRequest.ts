// One item's run request, from the item to the POST body: Generate and Run Look read their fields into it, and
// checkedRequest (checkRequest.ts) checks it and adds its key, settings and cap.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { CatalogueModel } from '../../shared/records';
import { uploadFile, type PreparedFile } from '../files/upload';
import type { BatchKeys } from './requestKey';
import type { RunSettings } from './runSettings';

/** A reference file: an address sent as it is, or a binary property uploaded just before submitting. */
export type FileSource = { field: string } & ({ url: string } | { file: PreparedFile });

export interface RunRequest {
	itemIndex: number;
	model: CatalogueModel;
	/** The POST body but its files: kind, model, prompt, options, negativePrompt, webhookUrl, requestKey. */
	body: IDataObject;
	images: FileSource[];
	endFrame?: FileSource;
	audio?: FileSource;
	settings: RunSettings;
	/** Request Key was typed (else the node's default, unique per item). */
	typedKey: boolean;
	maxCredits?: number; // undefined: no cap
	/** Fields added to the output item (Run Look's app and look). */
	extraJson?: IDataObject;
	batchKeys?: BatchKeys; // once assigned, for the advice to send them again
}

/** The request's body with every reference file as an address: files from binary properties are uploaded (free). */
export async function withFileAddresses(ctx: IExecuteFunctions, request: RunRequest): Promise<IDataObject> {
	const addressOf = async (source: FileSource) =>
		'url' in source ? source.url : (await uploadFile(ctx, source.file, request.itemIndex, source.field)).url;
	const body = { ...request.body };
	const images: string[] = [];
	for (const source of request.images) images.push(await addressOf(source));
	if (images.length) body.imageUrls = images;
	if (request.endFrame) body.endImageUrl = await addressOf(request.endFrame);
	if (request.audio) body.audioUrl = await addressOf(request.audio);
	return body;
}

/** What the item asked for (kind, model, prompt, options; app and look for Run Look), for its error item. */
export function askedFor(request: RunRequest): IDataObject {
	const { kind, model, prompt, options } = request.body;
	return { kind, model, prompt, options, ...request.extraJson };
}

/** The field an expression like {{ $json.prompt }} or {{ $json["prompt"] }} reads, if it is only that. */
function jsonFieldOf(expression: string): string | undefined {
	const match = /^=\s*\{\{\s*\$json(?:\.([A-Za-z_$][\w$]*)|\[\s*["']([^"']+)["']\s*\])\s*\}\}\s*$/.exec(expression);
	return match ? (match[1] ?? match[2]) : undefined;
}

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
 * The text of a field sent to the service. An expression giving undefined (an item without the field) or null refuses
 * the item, since String() of those would send the words "undefined" or "null" as a paid run; fixed text is as typed.
 */
export function readRequestText(ctx: IExecuteFunctions, name: string, label: string, itemIndex: number): string {
	const value = ctx.getNodeParameter(name, itemIndex, '') as unknown;
	const raw = ctx.getNodeParameter(name, itemIndex, '', { rawExpressions: true }) as unknown;
	if (typeof raw !== 'string' || !raw.startsWith('=')) return String(value ?? '');
	// Empty text is refused by checkRequest ("Prompt is empty"), as typed or from an expression.
	if (value !== undefined && value !== null) return String(value);
	const field = jsonFieldOf(raw);
	const json = (ctx.getInputData()[itemIndex]?.json ?? {}) as Record<string, unknown>;
	// Estimate Cost's summary item (Put the Summary: In One Item After the Estimates) is no request.
	const skip =
		json.summary === true && 'totalCredits' in json
			? `This item is Estimate Cost's summary (summary: true), not a request: set Estimate Cost's Put the Summary ` +
				`to On Every Item so the totals go on each estimate and no summary item follows, or drop the items whose ` +
				`summary is true (for example with a Filter node) before this step.`
			: `${field ? `Give every item a "${field}" field` : 'Make the expression give text for every item'}, or leave ` +
				`out the items without one (for example with a Filter node) before this step.`;
	const has = whatTheItemHas(json, field, value);
	const message = `${label}: the expression ${shortened(raw.slice(1))} gave nothing: ${has}.`;
	throw new NodeOperationError(ctx.getNode(), message, { description: skip, itemIndex });
}
