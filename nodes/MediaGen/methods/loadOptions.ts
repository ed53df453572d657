// Dropdowns that depend on another field: the looks and photo slots of the chosen app.
import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { currentApp } from './parameters';

export async function getLooks(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return ((await currentApp(this))?.looks ?? []).map((l) => ({ name: l.name, value: l.id, description: l.prompt }));
}

export async function getAppSlots(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return ((await currentApp(this))?.inputs ?? []).map((s) => ({
		name: s.label,
		value: s.id,
		description:
			`${s.hint ?? ''} ${s.min === s.max ? `Exactly ${s.min}` : `${s.min} to ${s.max}`} photo(s), ${s.accept}.`.trim(),
	}));
}
