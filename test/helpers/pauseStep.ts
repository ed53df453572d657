// Generate in pause mode as the pause tests write it: an image run on the free-tier model, one item's prompt each.
import type { IDataObject } from 'n8n-workflow';

import { IMAGE_MODEL } from './generate';

/** Generate's parameters in pause mode; `params` override any of it (`model` as a plain id). */
export function pauseParameters(params: IDataObject = {}): IDataObject {
	return {
		resource: 'generation',
		operation: 'generate',
		kind: 'image',
		prompt: '={{ $json.prompt }}',
		waitMode: 'pause',
		...params,
		model: { __rl: true, mode: 'id', value: params.model ?? IMAGE_MODEL },
	};
}
