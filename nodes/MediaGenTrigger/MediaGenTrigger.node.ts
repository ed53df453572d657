// The Media Generation Trigger: starts a workflow when the service delivers a finished run to its Production URL.
// Endpoints are registered by hand in the account settings, so there is nothing to create or delete on the service.
import type {
	IDataObject,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { downloadOutputs } from '../shared/downloads';
import { KIND_OPTIONS, splitList } from '../shared/fields';
import { MEDIAGEN_NODE_ICON } from '../shared/icon';
import { verifyDelivery } from '../shared/signature';
import { NOTHING_CHARGED } from '../shared/transport';
import {
	checkSigningSecret,
	describePreviousSecretProblem,
	describeWebhookCredentialProblem,
} from '../shared/signingSecret';
import { takeOnReadBack, type ReadBack } from './claim';
import { isRepeatDelivery } from './dedupe';
import { passesFilters, readDelivery, runItemJson, type Delivery } from './delivery';

/** The answer to a delivery whose read-back outlasts the service's 10 s: the service's retry then gets 200. */
const STILL_CHECKING = {
	error: 'checking',
	message: 'The run is being read back from the service; a retry of this delivery will be answered',
};
const DUPLICATE = { received: true, duplicate: true };

export class MediaGenTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Media Generation Trigger',
		name: 'mediaGenTrigger',
		icon: MEDIAGEN_NODE_ICON,
		group: ['trigger'],
		// 1.1: the API Key box shows only when Check Unverified Deliveries is on, so that n8n, which fills one box of
		// a new node by itself, fills the Signing Secret box. Version 1 nodes keep it on (a hidden default).
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: '={{"On " + ($parameter["outcomes"] || []).join(", ")}}',
		// Heads the nodes panel's one entry for both nodes (editor-ui generateMergedNodesAndActions): generating first.
		description: 'Generate images, videos and songs with AI, and start a workflow when a run finishes',
		defaults: { name: 'Media Generation Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		// n8n labels each credential box with its displayName (else "Credential"): which secret goes where.
		credentials: [
			{ name: 'mediaGenWebhookApi', displayName: 'Signing Secret', required: true, testedBy: 'checkSigningSecret' },
			// With it, a delivery that fails the signature check is read back from the service before refusal. Not
			// `required`: version 1 nodes (always on) were saved without one, and n8n 2.x refuses to publish a node that
			// lacks a required credential. A 1.1 node with the check on and no key is refused when published (checkExists).
			{ name: 'mediaGenApi', displayName: 'API Key', displayOptions: { show: { readBack: [true] } } },
		],
		// The "When will this node trigger my flow?" help of n8n's trigger panel.
		triggerPanel: {
			header: 'Waits for a finished Media Generation run',
			executionsHelp: {
				inactive:
					'Deliveries go to the URL registered in your account settings. Click <b>Execute step</b> to catch ' +
					'one delivery to the <b>Test URL</b> here (register it as an endpoint while testing). Once the ' +
					'workflow is <b>published</b>, every delivery to the <b>Production URL</b> starts an execution.',
				active:
					'The workflow is published: every signed delivery to the <b>Production URL</b> starts an execution ' +
					'(see Executions). Click <b>Execute step</b> to catch one delivery to the Test URL here instead.',
			},
			activationHint:
				'Once you have finished building, publish the workflow and register its Production URL in your account ' +
				'settings.',
		},
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook', rawBody: true }],
		properties: [
			// At most two short notices before the first field (n8n's notices keep links only: no <b>).
			{
				displayName:
					'Copy the Production URL above into your account settings as a webhook endpoint (every run of ' +
					'the account), or into the Webhook URL of a Generate or Run Look step (its runs only). Then publish ' +
					'the workflow.',
				name: 'setupNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName:
					"Signing Secret box: the endpoint's signing secret (for a step's Webhook URL, try your account's). " +
					'Turn on Check Unverified Deliveries to check a delivery signed with another secret with the ' +
					'service, using your API key, instead of refusing it.',
				name: 'secretNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Check Unverified Deliveries',
				name: 'readBack',
				type: 'boolean',
				default: false,
				description:
					'Whether a delivery signed with another secret is read back from the service with your API key (an ' +
					'API Key box appears at the top) and, if it is a finished run of your account, taken. Off: it is ' +
					`refused with 401. A read back starts no run: ${NOTHING_CHARGED} for it.`,
				displayOptions: { show: { '@version': [{ _cnd: { gte: 1.1 } }] } },
			},
			{
				displayName: 'Check Unverified Deliveries',
				name: 'readBack',
				type: 'hidden',
				default: true,
				displayOptions: { show: { '@version': [1] } },
			},
			{
				displayName: 'Outcomes',
				name: 'outcomes',
				type: 'multiOptions',
				options: [
					{ name: 'Succeeded', value: 'succeeded' },
					{ name: 'Failed', value: 'failed' },
				],
				default: ['succeeded', 'failed'],
				description: 'Which finished runs start the workflow. Deliveries left out are still acknowledged.',
			},
			{
				displayName: 'Kinds',
				name: 'kinds',
				type: 'multiOptions',
				options: KIND_OPTIONS,
				default: [],
				description: 'Only runs of these kinds. Leave empty for all.',
			},
			{
				displayName: 'Model IDs',
				name: 'models',
				type: 'string',
				default: '',
				placeholder: 'e.g. model-a, model-b',
				description: 'Only runs of these models, separated by commas. Leave empty for all.',
			},
			{
				displayName: 'Download Outputs',
				name: 'downloadOutputs',
				type: 'boolean',
				default: false,
				description:
					'Whether to download the files of succeeded runs into the item as binary data (data, data_1, … and ' +
					'cover for songs)',
			},
			{
				displayName: 'Test Events',
				name: 'testEvents',
				type: 'options',
				options: [
					{
						name: 'Pass On (Marked as Test)',
						value: 'pass',
						description: 'Start the workflow with the event, marked as a test event',
					},
					{ name: 'Ignore', value: 'drop', description: 'Acknowledge them without starting the workflow' },
				],
				default: 'pass',
				description:
					"What to do with a signed delivery that is not a run record, such as the account settings' " +
					'"send test event"',
			},
			{
				displayName:
					"Nothing arrives? An account's settings list its last 50 deliveries: failed ones most likely mean the " +
					'Signing Secret does not match (correct it, or turn on Check Unverified Deliveries). To catch a run ' +
					'here, click Execute step and run a Generate step whose Webhook URL is the Test URL, with Check ' +
					'Unverified Deliveries on. Runs made with an anonymous ID cannot start this trigger. Wait for those ' +
					'runs in the Generate step instead.',
				name: 'troubleshootingNotice',
				type: 'notice',
				default: '',
			},
		],
	};

	// Activation is refused while the credential holds no usable secret (n8n shows the message).
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const node = this.getNode();
				const problem = describeWebhookCredentialProblem(await this.getCredentials('mediaGenWebhookApi'));
				if (problem) {
					throw new NodeOperationError(node, problem, {
						description:
							'Open the Media Generation Webhook Signing Secret credential, correct that field, then activate again.',
					});
				}
				if (node.typeVersion >= 1.1 && this.getNodeParameter('readBack') === true && !node.credentials?.mediaGenApi) {
					throw new NodeOperationError(node, 'Check Unverified Deliveries is on, but the API Key box is empty', {
						description:
							'Pick your Media Generation API credential in the API Key box at the top of the trigger, or turn ' +
							'Check Unverified Deliveries off, then publish again.',
					});
				}
				return true;
			},
			create: async () => true,
			delete: async () => true,
		},
	};

	methods = { credentialTest: { checkSigningSecret } };

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const node = this.getNode();
		// Every call is answered here, at most once (n8n saves the static data before it starts the execution).
		let answered = false;
		const answer = (status: number, body: IDataObject, item?: INodeExecutionData): IWebhookResponseData => {
			if (!answered) this.getResponseObject().status(status).json(body);
			answered = true;
			return item ? { noWebhookResponse: true, workflowData: [[item]] } : { noWebhookResponse: true };
		};
		const credentials = await this.getCredentials('mediaGenWebhookApi');
		const raw = this.getRequestObject().rawBody as Buffer | undefined;
		if (!raw) return answer(400, { error: 'bad_request', message: 'The delivery has no body' });
		const store = this.getWorkflowStaticData('node');
		const seen = { store, memoryKey: `${this.getWorkflow().id ?? ''}:${node.id ?? node.name}` };

		// 1. Verified: by its signature, or else by the service's record of its run, read back (claim.ts).
		const verdict = verifyDelivery(this.getHeaderData() as Record<string, unknown>, raw, credentials);
		let readBack: ReadBack | undefined;
		if (!verdict.ok) {
			const taken = await takeOnReadBack(this, verdict, raw, seen, () => answer(503, STILL_CHECKING));
			if (taken === 'duplicate') return answer(200, DUPLICATE);
			const error = verdict.status === 400 ? 'bad_request' : 'unauthorized';
			if (taken === 'refused') return answer(verdict.status, { error, message: verdict.reason });
			readBack = taken;
		}
		const previousProblem = describePreviousSecretProblem(credentials.previousSecret);
		const note = 'Until then only the Signing Secret is used.';
		if (previousProblem) this.logger.warn(`Media Generation Trigger "${node.name}": ${previousProblem} ${note}`);

		// 2. Once: a delivery this trigger already accepted is acknowledged and starts nothing.
		const deliveryId = readBack?.webhookId ?? (verdict as { id: string }).id;
		if (isRepeatDelivery(store, seen.memoryKey, deliveryId, Date.now())) return answer(200, DUPLICATE);

		// 3. Read: a run record, or a test event.
		const delivery: Delivery = readBack ?? readDelivery(raw, deliveryId);
		if ('testEvent' in delivery) {
			if (this.getNodeParameter('testEvents', 'pass') === 'drop')
				return answer(200, { received: true, ignored: 'test event' });
			return answer(200, { received: true }, { json: delivery.testEvent });
		}

		// 4. Filtered by the node's Outcomes, Kinds and Model IDs.
		const { run, outcome } = delivery;
		const filters = {
			outcomes: this.getNodeParameter('outcomes', []) as string[],
			kinds: this.getNodeParameter('kinds', []) as string[],
			models: splitList(this.getNodeParameter('models', '')),
		};
		if (!passesFilters(run, outcome, filters)) return answer(200, { received: true, filtered: true });

		// 5. The item, with the files when asked. Answered first: the service counts an answer later than 10 s as a
		// failed delivery and sends it again, and a large file takes longer. The execution starts with the files.
		const item: INodeExecutionData = { json: runItemJson(run, outcome, deliveryId) };
		if (outcome === 'succeeded' && this.getNodeParameter('downloadOutputs', false) && run.outputs?.length) {
			answer(200, { received: true });
			try {
				const files = await downloadOutputs(this, run, 'data');
				item.binary = files.binary;
				item.json.files = files.files as unknown as IDataObject[];
			} catch (error) {
				item.json.downloadError =
					`The files could not be downloaded: ${(error as Error).message}. They stay available at ` +
					`the URLs in "outputs".`;
			}
		}
		return answer(200, { received: true }, item);
	}
}
