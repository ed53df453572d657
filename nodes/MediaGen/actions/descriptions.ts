// Fields that several operations show, defined once; each operation places them and adds their visibility with
// updateDisplayOptions.
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { POLL_INTERVAL_DEFAULT_SECONDS } from '../run/runSettings';

export const requestKeyField: INodeProperties = {
	displayName: 'Request Key',
	name: 'requestKey',
	type: 'string',
	default: '',
	description:
		'What makes a repeat free: the service answers a request with a key it has seen with the run it already made, ' +
		'and charges nothing again. Leave empty: the node makes one per execution and item (one per call from an AI ' +
		'agent or MCP client), so a retry after a lost answer is never charged twice. Set your own (up to 120 ' +
		'characters) to make a re-run of the workflow return the same run; a key shared by several items gets the ' +
		'item number added. Each output item carries its key as requestKey.',
};

export const webhookUrlField: INodeProperties = {
	displayName: 'Webhook URL',
	name: 'webhookUrl',
	type: 'string',
	default: '',
	placeholder: 'https://your-n8n.example.com/webhook/…',
	description:
		'An https address (up to 500 characters) that receives the finished run, for example the production URL of a ' +
		"Media Generation Trigger node. It replaces the account's registered endpoints for this run.",
};

export const maxCreditsField: INodeProperties = {
	displayName: 'Max Credits per Execution',
	name: 'maxCredits',
	type: 'number',
	default: 100,
	description:
		'A spending cap: this step submits no run that would take the credits it spent in this execution over this ' +
		"number (failed runs are refunded and do not count). A run's price is the model list's at default options, " +
		'else what your account was charged for the same model and options. A run whose price cannot be known (new ' +
		'options, talking-avatar audio) is sent alone while credits are left, so the cap can be passed by at most that ' +
		'one run. Leave it out for no cap.',
};

export const runIdField: INodeProperties = {
	displayName: 'Run ID',
	name: 'runId',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. gen_0123456789abcdef',
	description:
		'The ID of a run started with this account, for example the ID from a Generate result (drag it in as an ' +
		'expression)',
};

/** Download Outputs, and in its place on the AI tool variant a notice (n8n gives a tool's caller no binary data). */
export function downloadOutputsFields(description: string, show: IDisplayOptions['show'] = {}): INodeProperties[] {
	return [
		{
			displayName: 'Download Outputs',
			name: 'downloadOutputs',
			type: 'boolean',
			default: true,
			displayOptions: { show: { ...show, '@tool': [false] } },
			description,
		},
		{
			displayName:
				"As a tool, this node answers with each file's URL and downloads nothing: n8n leaves binary data out of " +
				'what an AI agent or MCP client receives',
			name: 'toolFilesNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { ...show, '@tool': [true] } },
		},
	];
}

const waitingOptions: INodeProperties[] = [
	{
		displayName: 'Check Every (Seconds)',
		name: 'pollIntervalSeconds',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 60 },
		default: POLL_INTERVAL_DEFAULT_SECONDS,
		description: 'How often to ask whether the run is done. The service suggests 3 to 5 seconds.',
	},
	{
		displayName: 'Time Limit (Minutes)',
		name: 'timeoutMinutes',
		type: 'number',
		// No fixed precision: the box then shows 0 and 1 rather than 0.00 and 1.00; decimals still work (0.5).
		typeOptions: { minValue: 0 },
		default: 0,
		description:
			'How long to wait before giving up (the run keeps going on the service). 0 uses the suggested limit: 3 minutes ' +
			'for images, 10 for video, 5 for music. In Pause mode the limit is for the whole batch; at 0 it grows with ' +
			'the batch (300 images on 2 slots: 150 × 3 minutes).',
	},
	{
		displayName: 'Put Files In',
		name: 'binaryProperty',
		type: 'string',
		default: 'data',
		description:
			'Name of the binary property for the first file; more files get _1, _2 … and song covers go to cover, cover_1 ' +
			'(or to this name plus _cover when this name is cover)',
	},
	{
		displayName: 'Request Time Limit (Seconds)',
		name: 'requestTimeoutSeconds',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 60,
		description: 'How long one request to the service may take before it is retried or reported',
	},
];

/** The "Waiting" collection, or a subset of it named "Options". */
export function waitingCollection(names?: string[]): INodeProperties {
	return {
		displayName: names ? 'Options' : 'Waiting Settings',
		name: 'waiting',
		type: 'collection',
		placeholder: names ? 'Add Option' : 'Add Waiting Setting',
		default: {},
		options: names ? waitingOptions.filter((o) => names.includes(o.name)) : waitingOptions,
	};
}

/** The operations that start runs and can wait for them (Generate and Run Look). */
const RUN_OPERATIONS = { resource: ['generation', 'app'], operation: ['generate', 'runLook'] };

/**
 * Where "Waiting" is not offered, with `hide` only: n8n's editor hides every field named in the `show` of a field a
 * credential depends on (isAuthRelatedParameter in editor-ui's nodeTypesUtils), and the pause-mode credential depends
 * on `waitMode`: with `show` here, Resource and Operation vanished. A unit test checks it matches RUN_OPERATIONS.
 */
const WAIT_MODE_HIDDEN = {
	resource: ['account', 'file', 'model'],
	operation: ['get', 'getMany', 'wait', 'upload', 'estimateCost'],
	waitForCompletion: [false],
	// The AI tool variant: a tool call cannot pause (run/runSettings.ts refuses it there).
	'@tool': [true],
};

/** Where the notices under Waiting → Pause show, each for the credential type `authentication` names. */
const PAUSE_SHOWN = { ...RUN_OPERATIONS, waitForCompletion: [true], waitMode: ['pause'], '@tool': [false] };

/** Generate's and Run Look's waiting and output fields, placed by the node after both operations' own fields. */
export const runSettingsFields: INodeProperties[] = [
	{
		displayName: 'Wait for Completion',
		name: 'waitForCompletion',
		type: 'boolean',
		default: true,
		displayOptions: { show: RUN_OPERATIONS },
		description:
			'Whether to wait until the run is finished and return its files. Off: the node returns the run record at once ' +
			'(status PENDING) and you can pick it up later with Generation → Wait or a Media Generation Trigger.',
	},
	{
		displayName: 'Waiting',
		name: 'waitMode',
		type: 'options',
		noDataExpression: true,
		displayOptions: { hide: WAIT_MODE_HIDDEN },
		options: [
			{
				name: 'Poll (Keep the Execution Running)',
				value: 'poll',
				description:
					'The node checks every few seconds until every run is done. Works on any n8n; the execution keeps ' +
					'running, and keeps n8n busy, until then.',
			},
			{
				name: 'Pause Until the Service Calls Back',
				value: 'pause',
				description:
					'The execution pauses (listed as waiting) and n8n is free for other work; the service calls n8n back as ' +
					'runs finish, and the execution goes on when all are done. Needs n8n reachable from the internet over ' +
					'https, and a Webhook Signing Secret credential.',
			},
		],
		default: 'poll',
	},
	{
		displayName:
			'Pause mode: the service must be able to reach this n8n from the internet, at a public https address (whoever ' +
			"runs your n8n sets it up). Select a Webhook Signing Secret credential holding your account's signing secret " +
			'(account settings → Webhooks): the service signs the calls back to this execution with it. Runs not ' +
			'finished within the time limit come out marked as timed out, with their run ID, so an IF node can send ' +
			'them on to Generation → Wait.',
		name: 'pauseNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { ...PAUSE_SHOWN, authentication: ['apiKey'] } },
	},
	{
		displayName:
			'Pause mode needs a webhook signing secret, and an anonymous ID has no account settings to get one from: the ' +
			'service does not say which secret signs the calls back to its runs. Choose Poll, which needs no secret, ' +
			"or use an API key, whose account's signing secret is in account settings → Webhooks.",
		name: 'pauseNoticeAnonymous',
		type: 'notice',
		default: '',
		displayOptions: { show: { ...PAUSE_SHOWN, authentication: ['anonymous'] } },
	},
	...downloadOutputsFields(
		'Whether to download the finished files into the item as binary data, ready for Slack, Drive or any file node',
		{ ...RUN_OPERATIONS, waitForCompletion: [true] },
	),
	{ ...waitingCollection(), displayOptions: { show: RUN_OPERATIONS } },
];
