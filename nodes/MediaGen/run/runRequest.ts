// What Generate and Run Look do alike once an item's model and prompt are known: the checks every run request
// gets before a credit is spent (checkRequest.ts's, with the free tier's models named for an anonymous ID, and
// the request's settings), then the request itself with its key and the item as the batch path takes it
// (preparedRun.ts). Each operation reads its own fields and words its own refusal.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { CatalogueModel } from '../../shared/records';
import { readMaxCredits } from '../../shared/fields';
import { identityOf } from '../../shared/transport';
import { freeTierModelIds, getModels } from '../catalogue/catalogue';
import { checkRequest, checkSettings, type RequestDraft } from './checkRequest';
import type { FileSource, PreparedRun } from './preparedRun';
import { defaultRequestKey } from './requestKey';
import { readRunSettings } from './runSettings';

/** An item's run request as its operation read it, before the checks. */
export interface RunRequest {
	model: CatalogueModel;
	/** The request as sent, without files, webhook URL and request key: kind, model, prompt, options, … */
	body: IDataObject;
	/** What the model checks look at (the identity and the free tier's models are added here). */
	draft: Omit<RequestDraft, 'identity' | 'freeModelIds'>;
	webhookUrl?: string;
	/** The Request Key as typed; undefined for the node's default key. */
	requestKey?: string;
	/** Max Credits per Execution as entered. */
	maxCredits: unknown;
	/** Fields added to the output item (Run Look's app and look). */
	extraJson?: IDataObject;
}

/** Every problem of the request against its model and of its settings; empty when it may be sent. */
export async function runRequestProblems(ctx: IExecuteFunctions, request: RunRequest): Promise<string[]> {
	const identity = await identityOf(ctx);
	const anonymous = identity.kind === 'anonymous';
	return [
		...checkRequest(request.model, {
			...request.draft,
			identity: identity.kind,
			freeModelIds: anonymous ? freeTierModelIds(await getModels(ctx)) : undefined,
		}),
		...checkSettings({
			webhookUrl: request.webhookUrl,
			requestKey: request.requestKey,
			maxCredits: request.maxCredits,
			apiBaseUrl: identity.baseUrl,
		}),
	];
}

/** The checked request with its key and its files, as the batch path and pause mode take an item. */
export function preparedRunOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	request: RunRequest,
	files: { images: FileSource[]; endFrame?: FileSource; audio?: FileSource },
): PreparedRun {
	const body: IDataObject = { ...request.body };
	if (request.webhookUrl) body.webhookUrl = request.webhookUrl;
	body.requestKey = request.requestKey ?? defaultRequestKey(ctx, itemIndex);
	return {
		itemIndex,
		body,
		...files,
		settings: readRunSettings(ctx, itemIndex),
		model: request.model,
		typedKey: request.requestKey !== undefined,
		maxCredits: readMaxCredits({ maxCredits: request.maxCredits as IDataObject[string] }),
		...(request.extraJson ? { extraJson: request.extraJson } : {}),
	};
}
