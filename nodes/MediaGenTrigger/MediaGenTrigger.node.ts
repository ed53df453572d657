// The Media Generation Trigger: starts a workflow when the service delivers a finished run to its Production URL.
// webhook() stays thin: the Standard Webhooks signature is checked by shared/signature.ts (a delivery failing it is
// read back with the optional API credential, readBack.ts), repeats are dropped (dedupe.ts), and the delivery is
// read, filtered and shaped by delivery.ts, with the files downloaded when asked. Endpoints are registered by hand
// in the account settings, so there is nothing to create or delete on the service.
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

import { MEDIAGEN_NODE_ICON } from '../shared/icon';
import {
	checkSigningSecret,
	describePreviousSecretProblem,
	describeWebhookCredentialProblem,
} from '../shared/signingSecret';
import { downloadOutputs } from '../shared/downloads';
import { KIND_OPTIONS } from '../shared/fields';
import type { RunRecord } from '../shared/records';
import { finishAfterAnswering, isSignatureMismatch } from '../shared/runReadBack';
import { headerOf, verifyDelivery } from '../shared/signature';
import { outcomeOf, readClaim } from './claim';
import { isRepeatDelivery, wasAccepted } from './dedupe';
import { modelIds, passesFilters, readDelivery, runItemJson, type Delivery } from './delivery';
import { confirmClaim, hasApiCredential, refusedDeliveryLog } from './readBack';

/** The answer to a delivery whose read-back outlasts the service's 10 s: the service's retry then gets 200. */
const STILL_CHECKING = {
	error: 'checking',
	message: 'The run is being read back from the service; a retry of this delivery will be answered',
};

export class MediaGenTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Media Generation Trigger',
		name: 'mediaGenTrigger',
		icon: MEDIAGEN_NODE_ICON,
		group: ['trigger'],
		version: 1,
		subtitle: '={{"On " + ($parameter["outcomes"] || []).join(", ")}}',
		// n8n's nodes panel shows one entry for the node and its trigger, headed by the trigger's description
		// (editor-ui's generateMergedNodesAndActions): it says what the package does, generating first.
		description: 'Generate images, videos and songs with AI, and start a workflow when a run finishes',
		defaults: { name: 'Media Generation Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		// n8n labels a credential box with its entry's displayName, else just "Credential" (editor-ui NodeCredentials):
		// the labels say which secret goes in which box, and that the API key is optional.
		credentials: [
			{ name: 'mediaGenWebhookApi', displayName: 'Signing Secret', required: true, testedBy: 'checkSigningSecret' },
			// Optional: with it, a delivery that fails the signature check is read back from the service before refusal.
			{ name: 'mediaGenApi', displayName: 'API Key (Optional)', required: false },
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
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: 'webhook',
				rawBody: true,
			},
		],
		properties: [
			// At most two short notices before the first field: where the URL goes, which secret goes in which box
			// (n8n's notices keep links only: no <b>).
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
					'API Key (Optional) box: with it, a delivery signed with another secret is checked with the ' +
					'service instead of refused.',
				name: 'secretNotice',
				type: 'notice',
				default: '',
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
					'Whether to download the files of succeeded runs into the item as binary data (data, data_1, … and cover for ' +
					'songs)',
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
					'What to do with a signed delivery that is not a run record, such as the account settings\' "send test event"',
			},
			{
				displayName:
					"Nothing arrives? An account's settings list its last 50 deliveries: failed ones most likely mean the " +
					'Signing Secret does not match (correct it, or attach the API key). To catch a run here, click ' +
					'Execute step and run a Generate step whose Webhook URL is the Test URL, with the API key attached ' +
					'here. Runs made with an anonymous ID cannot start this trigger. Wait for those runs in the Generate ' +
					'step instead.',
				name: 'troubleshootingNotice',
				type: 'notice',
				default: '',
			},
		],
	};

	// The API has no endpoint-registration calls: endpoints are added by hand in the account
	// settings (or per run with Webhook URL), so there is nothing to create or delete remotely.
	// Activation is refused while the credential holds no usable secret (n8n shows the message).
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const problem = describeWebhookCredentialProblem(await this.getCredentials('mediaGenWebhookApi'));
				if (problem) {
					throw new NodeOperationError(this.getNode(), problem, {
						description:
							'Open the Media Generation Webhook Signing Secret credential, correct that field, then activate again.',
					});
				}
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	methods = { credentialTest: { checkSigningSecret } };

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const req = this.getRequestObject();
		const res = this.getResponseObject();
		// Every call is answered here (n8n saves the static data before it starts the execution), at most once:
		// a read-back still going near the service's 10 s limit is answered first and finished afterwards.
		let answered = false;
		const answer = (status: number, body: IDataObject): IWebhookResponseData => {
			if (!answered) res.status(status).json(body);
			answered = true;
			return { noWebhookResponse: true };
		};
		const reject = (status: number, message: string) =>
			answer(status, { error: status === 400 ? 'bad_request' : 'unauthorized', message });
		const node = this.getNode();
		const credentials = await this.getCredentials('mediaGenWebhookApi');
		const raw = req.rawBody as Buffer | undefined;
		if (!raw) return reject(400, 'The delivery has no body');
		const headers = req.headers as Record<string, unknown>;
		const verdict = verifyDelivery(headers, raw, credentials);
		const memoryKey = `${this.getWorkflow().id ?? ''}:${node.id ?? node.name}`;
		const store = this.getWorkflowStaticData('node');
		// The reason never includes the secret or the expected signature.
		let readBack: { run: RunRecord; webhookId: string } | undefined;
		if (!verdict.ok) {
			const readable = isSignatureMismatch(verdict) && hasApiCredential(this);
			const claim = readable ? readClaim(headerOf(headers, 'webhook-id'), raw, Date.now()) : undefined;
			const claimed = claim && 'runId' in claim ? claim : undefined;
			if (claimed && wasAccepted(store, memoryKey, claimed.webhookId, Date.now())) {
				return answer(200, { received: true, duplicate: true });
			}
			const checked = claimed
				? await finishAfterAnswering(confirmClaim(this, claimed), () => answer(503, STILL_CHECKING))
				: (claim as { problem: string } | undefined);
			if (!claimed || !checked || 'problem' in checked) {
				if (verdict.field) this.logger.error(`Media Generation Trigger "${node.name}": ${verdict.reason}`);
				else if (isSignatureMismatch(verdict)) {
					const problem = checked && 'problem' in checked ? checked.problem : undefined;
					this.logger.warn(refusedDeliveryLog(this, verdict.reason, problem));
				}
				return reject(verdict.status, verdict.reason);
			}
			readBack = { run: checked.run, webhookId: claimed.webhookId };
			this.logger.warn(
				`Media Generation Trigger "${node.name}": a delivery failed the signature check (${verdict.reason}); ` +
					`its run ${readBack.run.id} read back as ${readBack.run.status} with the API credential, exactly as ` +
					'the delivery said, so it was taken',
			);
		}
		const deliveryId = readBack?.webhookId ?? (verdict as { id: string }).id;
		const previousProblem = describePreviousSecretProblem(credentials.previousSecret);
		if (previousProblem) {
			const note = 'Until then only the Signing Secret is used.';
			this.logger.warn(`Media Generation Trigger "${node.name}": ${previousProblem} ${note}`);
		}
		if (isRepeatDelivery(store, memoryKey, deliveryId, Date.now())) {
			return answer(200, { received: true, duplicate: true });
		}
		const start = (item: INodeExecutionData): IWebhookResponseData => ({
			...answer(200, { received: true }),
			workflowData: [[item]],
		});

		const delivery: Delivery = readBack
			? { run: readBack.run, outcome: outcomeOf(readBack.run.status) }
			: readDelivery(raw, deliveryId);
		if ('testEvent' in delivery) {
			if (this.getNodeParameter('testEvents', 'pass') === 'drop')
				return answer(200, { received: true, ignored: 'test event' });
			return start({ json: delivery.testEvent });
		}
		const { run, outcome } = delivery;
		const filters = {
			outcomes: this.getNodeParameter('outcomes', []) as string[],
			kinds: this.getNodeParameter('kinds', []) as string[],
			models: modelIds(this.getNodeParameter('models', '')),
		};
		if (!passesFilters(run, outcome, filters)) return answer(200, { received: true, filtered: true });
		const item: INodeExecutionData = { json: runItemJson(run, outcome, deliveryId) };
		if (outcome === 'succeeded' && (this.getNodeParameter('downloadOutputs', false) as boolean)) {
			// Answer first: the service counts an answer later than 10 s as a failed delivery and sends it again,
			// and a large file takes longer. n8n starts the execution once this returns, with the files.
			answer(200, { received: true });
			await addDownloads(this, run, item);
		}
		return start(item);
	}
}

/** The run's files as binary data; when they cannot be fetched the item says so and keeps the URLs. */
async function addDownloads(ctx: IWebhookFunctions, run: RunRecord, item: INodeExecutionData): Promise<void> {
	if (!run.outputs?.length) return;
	try {
		const files = await downloadOutputs(ctx, run, 'data');
		item.binary = files.binary;
		item.json.files = files.files as unknown as IDataObject[];
	} catch (error) {
		item.json.downloadError =
			`The files could not be downloaded: ${(error as Error).message}. They stay available at ` +
			`the URLs in "outputs".`;
	}
}
