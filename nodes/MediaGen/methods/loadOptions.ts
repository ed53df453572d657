// Dropdowns that depend on another field: music modes of the model, looks and photo slots of the app.
import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { promptLimit } from '../helpers/resolveOptions';
import { currentApp, currentModel } from './parameters';

export async function getLooks(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const app = await currentApp(this);
	return (app?.looks ?? []).map((l) => ({ name: l.name, value: l.id, description: l.prompt }));
}

export async function getAppSlots(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const app = await currentApp(this);
	return (app?.inputs ?? []).map((s) => ({
		name: s.label,
		value: s.id,
		description: `${s.hint ?? ''} ${s.min === s.max ? `Exactly ${s.min}` : `${s.min} to ${s.max}`} photo(s), ${s.accept}.`.trim(),
	}));
}

export async function getMusicModes(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const model = await currentModel(this);
	if (!model) return [];
	const modes = model.options.tier ?? Object.keys(model.music?.modes ?? {});
	return modes.map((mode) => {
		const limit = promptLimit(model, mode);
		const prompt = Number.isFinite(limit) ? ` Prompt up to ${limit} characters.` : '';
		return { name: mode, value: mode, description: `${model.music?.modes?.[mode] ?? ''}${prompt}`.trim() };
	});
}
