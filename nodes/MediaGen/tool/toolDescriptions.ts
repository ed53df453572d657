// What an AI agent reads about each operation as a tool. Without this field n8n's text is "<action> in Media
// Generation"; n8n reads it by name on 1.x and 2.x (getToolDescriptionForNode).
import type { INodeProperties } from 'n8n-workflow';

const ANSWER =
	'Answers with JSON per run: runId, status, kind, model, cost and each file as outputs[].url (a link, no file data).';

const STILL_RUNNING =
	'If the run is still going when the call ends, the answer says so, with its runId: fetch it later with a Wait ' +
	'or Get tool and that runId (calling this again would start and charge a new run).';

const DESCRIPTIONS: Record<string, Record<string, string>> = {
	generation: {
		generate:
			'Makes an image, video or song from a text prompt with the Media Generation service. Each call starts one ' +
			`new run and costs credits (the answer says how many, and the credits left). ${ANSWER} ${STILL_RUNNING}`,
		estimateCost:
			'Tells what a Media Generation run with this prompt and these options would cost, before paying for it: ' +
			'credits (null when the price cannot be known in advance), how the price was found (basis), the credits ' +
			'left and whether they are enough. Free: starts no run and charges nothing. Call it before Generate when ' +
			'the user cares about cost.',
		wait:
			'Waits for a Media Generation run started earlier, given its runId, and returns it with its file links. ' +
			`Free: starts nothing. ${ANSWER}`,
		get: `Reads one Media Generation run by its runId, finished or not. Free: starts nothing. ${ANSWER}`,
		getMany: 'Lists the newest Media Generation runs of the account with their status and file links. Free.',
	},
	app: {
		runLook:
			'Runs a ready-made look of a Media Generation app on photos given by URL. Each call starts one new run and ' +
			`costs credits. ${ANSWER} ${STILL_RUNNING}`,
		estimateCost:
			'Tells what running a look of a Media Generation app would cost, before paying for it: credits (or null ' +
			'when unknown), the basis of the price, the credits left and whether they are enough. Free: starts nothing.',
		getMany: 'Lists the Media Generation apps and their looks. Free.',
	},
	model: {
		getMany:
			'Lists the Media Generation models: each ID, kind (image, video, music), price in credits and limits. Free.',
	},
	account: {
		get: 'Reads the Media Generation account: credits left, tier and how many runs can go at once. Free.',
	},
	file: {
		upload: 'Uploads a file to Media Generation and returns its URL, for use as a reference image or audio. Free.',
	},
};

/** The tool's Description, shown only on the tool variant, one default per operation. */
export const toolDescriptionFields: INodeProperties[] = Object.entries(DESCRIPTIONS).flatMap(([resource, texts]) =>
	Object.entries(texts).map(([operation, text]) => ({
		displayName: 'Description',
		name: 'toolDescription',
		type: 'string',
		typeOptions: { rows: 3 },
		default: text,
		displayOptions: { show: { '@tool': [true], resource: [resource], operation: [operation] } },
		description: 'What the AI agent reads about this tool: what it does, what it costs and what it returns',
	})),
);
