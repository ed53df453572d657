// Reading the editor's current parameters while a dropdown opens: a parameter may not exist yet
// (another operation, an older saved node), so each read falls back instead of throwing.
import type { ILoadOptionsFunctions } from 'n8n-workflow';

import { defaultModel, getApps, getModels, lookUpModel } from '../catalogue/catalogue';
import { isToolCall } from '../run/toolCall';
import { AGENT_CHOICE_NAME } from '../tool/agentModelChoice';
import {
	KIND_NOUNS,
	kindLabel,
	parseKind,
	type CatalogueApp,
	type CatalogueModel,
	type MediaKind,
} from '../../shared/records';

export function readParameter(ctx: ILoadOptionsFunctions, name: string, extractValue = false): string {
	try {
		return String(ctx.getNodeParameter(name, '', extractValue ? { extractValue: true } : {}) ?? '');
	} catch {
		return '';
	}
}

/** The Kind chosen in the editor, or undefined when an expression chooses it per item. */
export function editorKind(ctx: ILoadOptionsFunctions): MediaKind | undefined {
	// An expression arrives as written, or resolved against the editor's first input item, which may be
	// empty: either way no single kind is known unless it resolved to one.
	const raw = ctx.getCurrentNodeParameters?.()?.kind;
	if (raw === undefined || raw === null) return 'image';
	if (typeof raw === 'string' && raw.startsWith('=')) return undefined;
	return parseKind(raw);
}

// The Model id as the editor sent it ('' when none is chosen), or undefined when an expression holds it: the editor
// resolves expressions before asking, and sends null for one it cannot resolve yet ($fromAI, or an input field
// before the previous step has run).
function editorModelId(ctx: ILoadOptionsFunctions): string | undefined {
	const raw = ctx.getCurrentNodeParameters?.()?.model;
	const value = raw && typeof raw === 'object' && '__rl' in raw ? (raw as { value?: unknown }).value : raw;
	if (value === null) return undefined;
	const id = readParameter(ctx, 'model', true).trim();
	return id.startsWith('=') || id.includes('{{') ? undefined : id;
}

/** What About the Model says when an expression holds Model: on the tool variant, most likely n8n's AI fill. */
function modelExpressionProblem(ctx: ILoadOptionsFunctions, kind: MediaKind | undefined): string {
	if (!isToolCall(ctx)) return 'The model comes from an expression, so its options are known only when the step runs.';
	const models = kind ? `${kind} model IDs` : 'model IDs';
	return (
		'Model comes from an expression, or is "Defined automatically by the model": the AI agent then knows the ' +
		`${models} only from its Description. "${AGENT_CHOICE_NAME}", first in the model list (click × on the ` +
		'field to see the list), writes them there with their prices from the catalogue. A model ID the catalogue ' +
		'lacks is refused without charge.'
	);
}

// The model for About the Model and the Options box, or what to tell the user instead. With Model left empty it is
// the kind's default model (`chosen: false`), the one the step will use.
export async function findModelFor(
	ctx: ILoadOptionsFunctions,
): Promise<{ model: CatalogueModel; musicMode?: string; chosen: boolean } | { problem: string }> {
	const id = editorModelId(ctx);
	const kind = editorKind(ctx);
	const musicMode = readParameter(ctx, 'musicMode') || undefined;
	if (id === undefined) return { problem: modelExpressionProblem(ctx, kind) };
	if (!id) {
		if (!kind) return { problem: 'No model chosen: each item uses the cheapest free-tier model of its kind.' };
		const model = defaultModel(await getModels(ctx), kind);
		if (!model) return { problem: `The catalogue has no ${kind} model: change Kind.` };
		return { model, musicMode, chosen: false };
	}
	const found = lookUpModel(await getModels(ctx), id, kind);
	if ('missing' in found) {
		return {
			problem:
				`"${id}" is not a model in the catalogue. Pick one from the list, or use one of these ` +
				`${kind ? `${kind} ` : ''}model IDs: ${found.missing.map((m) => m.id).join(', ')}.`,
		};
	}
	if ('otherKind' in found) {
		// Only a model of another kind than the one asked for, so a kind was asked for.
		const model = found.otherKind;
		return {
			problem:
				`${model.name} makes ${KIND_NOUNS[model.kind]}, not ${KIND_NOUNS[kind!]}: change Kind to ` +
				`${kindLabel(model.kind)}, or pick ${kind === 'image' ? 'an' : 'a'} ${kind} model.`,
		};
	}
	return { model: found.model, musicMode, chosen: true };
}

export async function currentApp(ctx: ILoadOptionsFunctions): Promise<CatalogueApp | undefined> {
	const slug = readParameter(ctx, 'app', true);
	return slug ? (await getApps(ctx)).find((a) => a.slug === slug) : undefined;
}

/** One sentence for a dropdown or notice when the catalogue could not be read (credential, address, service). */
export function describeLoadProblem(error: unknown): string {
	const e = error as { message?: string; description?: string | null };
	const message = String(e?.message ?? error).trim();
	const description = typeof e?.description === 'string' ? e.description.trim() : '';
	const more = description && !message.includes(description) ? ` ${description}` : '';
	return `Could not read the catalogue: ${message}${more}`;
}
