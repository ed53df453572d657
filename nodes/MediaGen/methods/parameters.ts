// Reading the editor's current parameters while a dropdown opens: a parameter may not exist yet
// (another operation, an older saved node), so each read falls back instead of throwing.
import type { ILoadOptionsFunctions } from 'n8n-workflow';

import { getApps, getModels, lookUpModel } from '../catalogue/catalogue';
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

/**
 * The chosen model for the Options box, or what to tell the user instead: no model yet, an id typed by
 * hand that the catalogue lacks, or a model of another kind.
 */
export async function findModelFor(
	ctx: ILoadOptionsFunctions,
): Promise<{ model: CatalogueModel; musicMode?: string } | { problem: string }> {
	const id = readParameter(ctx, 'model', true).trim();
	const kind = editorKind(ctx);
	const wanted = kind ? `${kind === 'image' ? 'an' : 'a'} ${kind} model` : 'a model';
	if (!id) return { problem: `Pick ${wanted} above: what it accepts appears here.` };
	if (id.startsWith('=') || id.includes('{{')) {
		return { problem: 'The model comes from an expression, so its options are known only when the step runs.' };
	}
	const found = lookUpModel(await getModels(ctx), id, kind);
	if ('missing' in found) {
		const ids = found.missing.map((m) => m.id);
		return {
			problem:
				`"${id}" is not a model in the catalogue. Pick one from the list, or use one of these ` +
				`${kind ? `${kind} ` : ''}model IDs: ${ids.join(', ')}.`,
		};
	}
	if ('otherKind' in found) {
		// Only a model of another kind than the one asked for, so a kind was asked for.
		const model = found.otherKind;
		return {
			problem:
				`${model.name} makes ${KIND_NOUNS[model.kind]}, not ${KIND_NOUNS[kind!]}: change Kind to ` +
				`${kindLabel(model.kind)}, or pick ${wanted}.`,
		};
	}
	return { model: found.model, musicMode: readParameter(ctx, 'musicMode') || undefined };
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
