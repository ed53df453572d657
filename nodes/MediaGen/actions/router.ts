// Routes resource + operation to its operation file. Nothing else happens here.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import * as accountGet from './account/get.operation';
import * as appGetMany from './app/getMany.operation';
import * as appRunLook from './app/runLook.operation';
import * as fileUpload from './file/upload.operation';
import * as generationGenerate from './generation/generate.operation';
import * as generationGet from './generation/get.operation';
import * as generationGetMany from './generation/getMany.operation';
import * as generationWait from './generation/wait.operation';
import * as modelGetMany from './model/getMany.operation';

type Operation = { execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> };

const operations: Record<string, Record<string, Operation>> = {
	generation: { generate: generationGenerate, get: generationGet, getMany: generationGetMany, wait: generationWait },
	app: { getMany: appGetMany, runLook: appRunLook },
	file: { upload: fileUpload },
	account: { get: accountGet },
	model: { getMany: modelGetMany },
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const handler = operations[resource]?.[operation];
	if (!handler) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`);
	}
	return [await handler.execute.call(this)];
}
