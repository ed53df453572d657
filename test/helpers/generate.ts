// Generate as the tests write it: its parameters built in one place, and one run of it through WorkflowExecute.
import type { ICredentialDataDecryptedObject, IDataObject, INodeExecutionData } from 'n8n-workflow';

import { runNode, type RunOptions, type RunResult } from './engine';

/** The sandbox's free-tier image model: the model a test uses when the model is not its subject. */
export const IMAGE_MODEL = 'studio-image-v1';

/**
 * Generate's parameters: an image run on IMAGE_MODEL (picked by id), read every second. `params` override
 * any of it; a `model` given as a plain id (even an empty one) becomes the picker's value, `waiting` is merged.
 */
export function generateParameters(params: IDataObject = {}): IDataObject {
	return {
		resource: 'generation',
		operation: 'generate',
		kind: 'image',
		...params,
		waiting: { pollIntervalSeconds: 1, ...((params.waiting as IDataObject | undefined) ?? {}) },
		model: { __rl: true, mode: 'id', value: 'model' in params ? params.model : IMAGE_MODEL },
	};
}

/** Runs one Generate step with these parameters on `items`, as the given credentials' account. */
export async function generate(
	credentials: Record<string, ICredentialDataDecryptedObject>,
	params: IDataObject,
	items?: INodeExecutionData[],
	extra: Partial<RunOptions> = {},
): Promise<RunResult> {
	return await runNode({ parameters: generateParameters(params), items, credentials, ...extra });
}
