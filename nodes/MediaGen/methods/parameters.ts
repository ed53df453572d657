// Reading the editor's current parameters while a dropdown opens: a parameter may not exist yet
// (another operation, an older saved node), so each read falls back instead of throwing.
import type { ILoadOptionsFunctions } from 'n8n-workflow';

import { getApps, getModels } from '../helpers/catalogue';
import type { CatalogueApp, CatalogueModel } from '../helpers/catalogueTypes';

export function readParameter(ctx: ILoadOptionsFunctions, name: string, extractValue = false): string {
	try {
		return String(ctx.getNodeParameter(name, '', extractValue ? { extractValue: true } : {}) ?? '');
	} catch {
		return '';
	}
}

export async function currentModel(ctx: ILoadOptionsFunctions): Promise<CatalogueModel | undefined> {
	const id = readParameter(ctx, 'model', true);
	return id ? (await getModels(ctx)).find((m) => m.id === id) : undefined;
}

export async function currentApp(ctx: ILoadOptionsFunctions): Promise<CatalogueApp | undefined> {
	const slug = readParameter(ctx, 'app', true);
	return slug ? (await getApps(ctx)).find((a) => a.slug === slug) : undefined;
}
