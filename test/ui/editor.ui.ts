// The editor as a person sees it: `npm run dev` (sandbox + real n8n 2.40.7 with the package, credentials
// and examples), driven in Debian's chromium through playwright-core. Every scenario asserts what the
// panels show. Screenshots of the main panels are written to docs/screenshots/ (README.md and docs/generating.md show them).
import type { Page } from 'playwright-core';

import { newWebhookSecret } from '../../sandbox/webhooks';
import { exampleId } from '../../scripts/stack';
import type { DevStack } from '../../scripts/uiDev';
import {
	createWorkflow,
	creditsLeft,
	helpOf,
	scratchWorkflow,
	useEditorSession,
	type Editor,
	type EditorSession,
} from './editor';
import { CUSTOM_PREFIX } from '../../scripts/realN8n';
import { SANDBOX_KEY } from '../e2e/shared';

let dev: DevStack;
let page: Page;
let ed: Editor;
let rest: EditorSession['rest'];
useEditorSession((session) => ({ dev, page, ed, rest } = session));

const API_CREDENTIAL = SANDBOX_KEY;
const NO_OPTIONS = 'No options to show yet: the note under Model says why.';
const credits = () => creditsLeft(dev);

/** A workflow with a manual trigger and one Media Generation node, made through n8n's REST API. */
const scratch = (name: string, parameters: Record<string, unknown>, credentials: object = API_CREDENTIAL) =>
	scratchWorkflow(rest, { name, parameters, credentials });

const generate = (kind: string, model = '', extra: Record<string, unknown> = {}) => ({
	resource: 'generation',
	operation: 'generate',
	kind,
	model: { __rl: true, mode: 'list', value: model },
	prompt: 'a lighthouse at dawn',
	...extra,
});

describe('npm run dev', () => {
	test('prints a login that signs in; the examples and the credentials are in place', async () => {
		expect(dev.email).toMatch(/@/);
		expect(page.url()).toMatch(/\/(home|workflows)/); // signed in with it (beforeAll)
		await page.goto(`${dev.editorUrl}/home/workflows`);
		const names = page.locator('[data-test-id="resources-list-item-workflow"] [data-test-id="workflow-card-name"]');
		await names.first().waitFor();
		const workflows = (await names.allInnerTexts()).filter((t) => t.startsWith('Media Generation:'));
		expect(workflows).toHaveLength(6);
		expect(workflows).toContain('Media Generation: generate an image and save it');
		await page.goto(`${dev.editorUrl}/home/credentials`);
		await page
			.locator('[data-test-id="resources-list-search"]')
			.locator('xpath=descendant-or-self::input')
			.first()
			.fill('Media Generation sandbox');
		const cards = page.locator('[data-test-id="resources-list-item"]');
		await ed.settle();
		await cards.first().waitFor();
		const creds = (await cards.allInnerTexts()).join('\n');
		for (const name of [
			'Media Generation sandbox',
			'Media Generation sandbox (free tier)',
			'Media Generation sandbox webhook',
		])
			expect(creds).toContain(name);
	});
});

describe('from an empty canvas: finding and adding the nodes', () => {
	// What a person looking for an image or video generator types; n8n matches the whole query in order against
	// the name or one search alias (the package's codex).
	const SEARCHES = [
		'Media Generation',
		'image',
		'song',
		'text to image',
		'generate image',
		'image generation',
		'AI image',
		'text to video',
	];
	// The one entry for the node and its trigger is headed by the trigger's description: it says what the package does.
	const WHAT_IT_DOES = 'Generate images, videos and songs with AI, and start a workflow when a run finishes';

	test.each(SEARCHES)(
		'the first-step panel finds "Media Generation" by "%s", describing what it does',
		async (query) => {
			await ed.newWorkflow();
			await page.locator('[data-test-id="canvas-add-button"]').click();
			const description = await ed.searchNodes(query, 'Media Generation');
			expect(description).toBe(WHAT_IT_DOES);
			if (query === 'generate image')
				await ed.shot('nodes-panel-search', page.locator('[data-test-id="node-creator"]'));
		},
	);

	test('the trigger is added from the search results with its Signing Secret filled, and its panel explains the set-up', async () => {
		await ed.newWorkflow();
		await page.locator('[data-test-id="canvas-add-button"]').click();
		await ed.searchNodes('song', 'Media Generation');
		await ed.clickNodesPanelEntry('Media Generation');
		await ed.clickNodesPanelEntry('On new Media Generation event');
		await ed.parameters.waitFor();
		await ed.settle();
		expect(await ed.parameters.innerText()).toContain('Copy the Production URL above into your account settings');
		// One box shown, the required one, so n8n fills it (one credential of each kind exists here).
		const boxes = ed.parameters.locator('[data-test-id="credentials-label"]');
		const filled = ed.parameters.locator('[data-test-id="node-credentials-select"] input');
		expect((await boxes.allInnerTexts()).map((t) => t.split('\n')[0].trim())).toEqual(['Signing Secret']);
		await ed.until(
			() => filled.first().inputValue(),
			(value) => value === 'Media Generation sandbox webhook',
		);
		await ed.shot('trigger-new', ed.ndv);
		// Check Unverified Deliveries shows the API Key box.
		await ed.parameters.locator('[data-test-id="parameter-input-readBack"] .el-switch').click();
		await ed.until(
			async () => (await boxes.allInnerTexts()).map((t) => t.split('\n')[0].trim()),
			(labels) => labels.join() === 'Signing Secret,API Key',
		);
		await ed.closeNode();
		expect(await ed.canvasNode('Media Generation Trigger').count()).toBe(1);
	});

	test('a trigger without a Signing Secret is marked on the canvas, and n8n will not publish it', async () => {
		const id = await createWorkflow(rest, {
			name: 'UI test: Trigger Without Secret',
			nodes: [
				{
					id: 'trigger',
					name: 'Media Generation Trigger',
					type: `${CUSTOM_PREFIX}mediaGenTrigger`,
					typeVersion: 1.1,
					position: [0, 0],
					webhookId: 'f0b7e7a2-58c4-4bd6-9a3c-7d1e2f3a4b5c',
					parameters: {},
				},
			],
			connections: {},
			settings: { executionOrder: 'v1' },
		});
		// Published as the editor's Publish button does: refused, naming what is missing.
		const { versionId } = await rest<{ versionId: string }>(`/rest/workflows/${id}`);
		const refused = await rest(`/rest/workflows/${id}/activate`, {
			method: 'POST',
			body: JSON.stringify({ versionId }),
		})
			.then(() => 'published')
			.catch((error: Error) => error.message);
		expect(refused).toMatch(/HTTP 400/);
		expect(refused).toContain('Node \\"Media Generation Trigger\\":\\n  - Missing required credential: Signing Secret');
		const found = await rest<{ active?: boolean; activeVersionId?: string | null }>(`/rest/workflows/${id}`);
		expect(found.activeVersionId ?? null).toBeNull();
		// On the canvas the node is marked until its box is filled (opening it fills it: the one such credential).
		await ed.openWorkflow(id);
		const marked = ed.canvasNode('Media Generation Trigger').locator('[data-test-id="node-issues"]');
		await marked.waitFor();
		await ed.shot('trigger-no-secret', ed.canvasNode('Media Generation Trigger'));
	});

	test('"What happens next?" finds the action node; its actions are listed and Generate opens with Resource and Operation', async () => {
		await ed.newWorkflowFromManualTrigger();
		for (const query of ['image', 'video', 'song', 'generate image']) {
			expect(await ed.searchNodes(query, 'Media Generation')).toBe(WHAT_IT_DOES);
		}
		await ed.clickNodesPanelEntry('Media Generation');
		const actions = page.locator('[data-test-id="node-creator"]');
		await actions.getByText('Generate media', { exact: true }).waitFor();
		const listed = await actions.innerText();
		for (const action of ['Upload a file', 'Run an app look', 'Get a run', 'Wait for a run', 'Get the account'])
			expect(listed).toContain(action);
		await ed.shot('nodes-panel-actions', actions);
		await actions.getByText('Generate media', { exact: true }).click();
		await ed.parameters.waitFor();
		await ed.settle();
		const labels = await ed.fieldOrder();
		expect(labels.slice(0, 3)).toEqual(['Credential', 'Resource', 'Operation']);
		expect(labels).toEqual(expect.arrayContaining(['Kind', 'Model', 'Prompt', 'Wait for Completion', 'Waiting']));
		// n8n names a new node after its action: short, on the canvas, the panel title and in error messages.
		await expect(ed.ndv.getByText('Generate media', { exact: true }).count()).resolves.toBeGreaterThan(0);
		await ed.closeNode();
		const names = await page.locator('[data-test-id="canvas-node"]').allInnerTexts();
		const generateNode = names.find((text) => text.includes('Generate media'));
		expect(generateNode?.split('\n')[0].trim()).toBe('Generate media');
	});
});

describe('the panel of every operation', () => {
	const OPERATIONS: Array<[string, string, boolean]> = [
		['generation', 'generate', true],
		['generation', 'get', false],
		['generation', 'getMany', false],
		['generation', 'wait', false],
		['app', 'runLook', true],
		['app', 'getMany', false],
		['file', 'upload', false],
		['account', 'get', false],
		['model', 'getMany', false],
	];

	test.each(OPERATIONS)(
		'%s → %s: the credential first, then Resource and Operation; Wait for Completion only where runs start',
		async (resource, operation, startsRuns) => {
			const id = await scratch(`Panel ${resource} ${operation}`, { resource, operation });
			await ed.openWorkflow(id);
			await ed.openNode(`Panel ${resource} ${operation}`);
			const labels = await ed.fieldOrder();
			expect(labels.slice(0, 3)).toEqual(['Credential', 'Resource', 'Operation']);
			expect(labels.includes('Wait for Completion')).toBe(startsRuns);
			expect(labels.includes('Waiting')).toBe(startsRuns);
			if (resource === 'file') await ed.shotPanel('upload-panel', 'credentials');
			await ed.closeNode();
		},
	);

	test('pause mode keeps Resource and Operation, and asks for the signing secret next to the API key', async () => {
		const id = await scratch('Paused', generate('image', 'studio-image-v1', { waitMode: 'pause' }));
		await ed.openWorkflow(id);
		await ed.openNode('Paused');
		const labels = await ed.fieldOrder();
		// the API key's credential and the webhook signing secret's, then the fields
		expect(labels.slice(0, 4)).toEqual(['Credential', 'Signing Secret', 'Resource', 'Operation']);
		expect(await ed.parameters.innerText()).toContain("your account's signing secret");
		await ed.closeNode();
	});
});

describe('the canvas', () => {
	test.each([1, 2, 3, 4, 5, 6])('example %i shows our nodes with their icon and a subtitle', async (n) => {
		await ed.openWorkflow(exampleId(n));
		const ours = page.locator('[data-test-id="canvas-node"]').filter({ has: page.locator('img[src*="mediagen"]') });
		expect(await ours.count()).toBeGreaterThan(0);
		for (const text of await ours.allInnerTexts()) {
			const lines = text
				.split('\n')
				.map((l) => l.trim())
				.filter(Boolean);
			expect(lines.length).toBeGreaterThanOrEqual(2); // name, then subtitle
			expect(text).not.toMatch(/undefined|\[object/);
		}
		if (n === 3) await ed.shot('canvas', undefined, { x: 40, y: 180, width: 1240, height: 420 });
	});
});

// Each test opens a workflow of its own, set up through the REST API as it needs it, so none depends on what
// an earlier one left on screen (an open dropdown, a picked model).
describe('Generate, kind by kind', () => {
	async function openGenerate(parameters: Record<string, unknown>): Promise<void> {
		await ed.openWorkflow(await scratch('Generate', parameters));
		await ed.openNode('Generate');
	}

	test("image: the model list shows names with prices and is searchable; the options are the model's, each at its default", async () => {
		await openGenerate(generate('image'));
		// Model empty: About the Model names the model the step will use, and the Options box shows its options.
		expect(await ed.aboutText()).toMatch(
			/^No model chosen: the step uses Studio Image, the cheapest free-tier image model in the catalogue\./,
		);
		const list = await ed.locatorList();
		expect(list).toHaveLength(14);
		for (const entry of list) expect(entry).toMatch(/^.+ \(.+\) · \d+ credits?/);
		expect(list[0]).toBe('Image · Studio Image (Studio) · 5 credits, free tier');
		await ed.shot('model-list', undefined, { x: 430, y: 60, width: 420, height: 420 });
		expect(await ed.locatorList('lumora')).toEqual([
			'Image · Lumora Image 2 Fast (Lumora) · 15 credits',
			'Image · Lumora Image 2 (Lumora) · 25 credits',
		]);
		await page.keyboard.press('Escape');
		await ed.pickFromList('Studio Image (Studio)');
		expect(await ed.valueOf('model')).toBe('Image · Studio Image (Studio) · 5 credits, free tier');
		expect(await ed.aboutText()).toContain('Studio Image (Studio) · 5 credits at its defaults, free tier.');
		expect(await ed.options(3)).toEqual([
			'Resolution (default: 1K)',
			'Aspect Ratio (default: 1:1)',
			'File Format (default: PNG)',
		]);
		for (const [field, value] of [
			['resolution', 'Model Default (1K)'],
			['aspect', 'Model Default (1:1)'],
			['format', 'Model Default (PNG)'],
		]) {
			expect(await ed.valueOf(field)).toBe(value);
		}
		expect(await ed.entries('format')).toEqual(['Model Default (PNG)', 'PNG (default)', 'JPG', 'WEBP']);
		expect(await ed.cutLabels()).toEqual([]);
		await ed.shotPanel('generate-panel', 'credentials');
	});

	test('image: Additional Fields offer no driving audio and no end frame', async () => {
		await openGenerate(generate('image', 'studio-image-v1'));
		const offers = (await ed.collectionOffers()).join('\n');
		expect(offers).not.toMatch(/Driving Audio|End Frame/);
		expect(offers).toMatch(/Negative Prompt/);
	});

	test('Kind → Video: the image model is emptied and About the Model names the default; a video model brings its options, Sound at its default', async () => {
		await openGenerate(generate('image', 'studio-image-v1'));
		await ed.pick('kind', 'Video');
		const lead = 'No model chosen: the step uses Studio Video, the cheapest free-tier video model in the catalogue.';
		expect(
			await ed.until(
				() => ed.aboutText(),
				(t) => t.startsWith(lead),
			),
		).toContain(lead);
		// The options field keeps the image model's notice while it fetches the video model's fields.
		expect(
			await ed.until(
				() => ed.parameters.innerText(),
				(t) => !t.includes('Fetching options') && !t.includes('Studio Image'),
			),
		).not.toContain('Studio Image');
		const list = await ed.locatorList();
		expect(list).toHaveLength(15);
		expect(list).toContain('Video · Orchid Avatar (Orchid) · 185 credits, needs driving audio');
		await page.keyboard.press('Escape');
		await ed.pickFromList('Lumora Motion 3 (Lumora)');
		expect(await ed.options(4)).toEqual([
			'Resolution (default: 1080p)',
			'Aspect Ratio (default: 16:9)',
			'Duration (Seconds) (default: 8)',
			'Sound (default: On)',
		]);
		expect(await ed.valueOf('audio')).toBe('Model Default (On)');
		expect(await ed.entries('audio')).toEqual(['Model Default (On)', 'On (default)', 'Off']);
		expect(await ed.entries('duration')).toEqual(['Model Default (8)', '5', '8 (default)', '10']);
		expect(await ed.aboutText()).toContain(
			'Prompt up to 4,000 characters · up to 2 reference images · takes an end frame · takes a negative prompt.',
		);
		expect(await ed.cutLabels()).toEqual([]);
		const offers = (await ed.collectionOffers()).join('\n');
		expect(offers).toMatch(/Driving Audio File/);
		expect(offers).toMatch(/End Frame File/);
		await ed.shotPanel('video-options', 'model');
		// Reopened, the Model box still shows the model's name, not its ID.
		await ed.closeNode();
		await ed.openNode('Generate');
		expect(await ed.valueOf('model')).toMatch(/^Video · Lumora Motion 3 \(Lumora\)/);
	});

	test('a talking-avatar model says it needs driving audio', async () => {
		await openGenerate(generate('video'));
		await ed.pickFromList('Orchid Avatar');
		expect(await ed.aboutText()).toContain(
			'Needs driving audio: add Additional Fields → Driving Audio File or Driving Audio URL.',
		);
	});

	test('Kind → Music lists only music models; each music mode offers only its fields, Voice at "Any Voice"', async () => {
		await openGenerate(generate('video'));
		await ed.pick('kind', 'Music');
		const list = await ed.locatorList();
		expect(list).toEqual(['Music · Cadence Song (Cadence) · 60 credits']);
		expect(await page.locator('[data-test-id="rlc-item"][class*="selected"]').count()).toBe(0);
		await ed.pickFromList('Cadence Song');
		expect(await ed.entries('musicMode')).toEqual(['Describe', 'Lyrics', 'Instrumental']);
		expect(await ed.options(1)).toEqual(['Style (≤ 1000 chars)']);
		await ed.pick('musicMode', 'Lyrics');
		expect(await ed.options(3)).toEqual(['Style (≤ 1000 chars)', 'Song Title (≤ 80 chars)', 'Voice']);
		expect(await ed.valueOf('vocal')).toBe('Any Voice (Model Chooses)');
		expect(await ed.entries('vocal')).toEqual(['Any Voice (Model Chooses)', 'Male (m)', 'Female (f)']);
		expect(await ed.aboutText()).toContain(
			'Prompt up to 5,000 characters in Lyrics mode (Describe 3,000, Lyrics 5,000, Instrumental 1,000)',
		);
		expect(await ed.cutLabels()).toEqual([]);
		expect((await ed.labels()).join('\n')).not.toMatch(/Name or ID/);
		await ed.shotPanel('music-modes', 'musicMode');
		await ed.pick('musicMode', 'Instrumental');
		expect(await ed.options(1)).toEqual(['Song Title (≤ 80 chars)']);
	});

	test('a model typed By ID that does not exist is named once, in About the Model', async () => {
		await openGenerate(generate('video'));
		await ed.parameters.locator('[data-test-id="rlc-mode-selector"]').click();
		await page.locator('.el-select-dropdown__item:visible').filter({ hasText: 'By ID' }).click();
		await ed.parameters.locator('[data-test-id="rlc-input"]').fill('no-such-model');
		await page.keyboard.press('Tab');
		await ed.settle();
		// Under load the box may still show the empty Model's text until its reload for the typed ID has come back.
		const about = await ed.until(
			() => ed.aboutText(),
			(text) => !text.startsWith('No model chosen'),
		);
		expect(about).toMatch(
			/^"no-such-model" is not a model in the catalogue\. Pick one from the list, or use one of these video model IDs: /,
		);
		expect(await ed.optionsText()).toBe(NO_OPTIONS);
		await ed.closeNode();
	});
});

describe('bad values typed in the editor stop before any credit is spent', () => {
	test("a prompt over the model's limit: the error panel gives the message and what to do", async () => {
		const id = await scratch('Too Long', generate('image', 'studio-image-v1'));
		await ed.openWorkflow(id);
		await ed.openNode('Too Long');
		await ed.param('prompt').locator('textarea').fill('x'.repeat(2001));
		const before = await credits();
		await page.locator('[data-test-id="node-execute-button"]').click();
		const error = page.locator('[data-test-id="node-error-message"]');
		await error.waitFor({ timeout: 60_000 });
		expect(await error.innerText()).toContain('Prompt is 2001 characters long; Studio Image takes at most 2000.');
		const panel = await page.locator('[data-test-id="output-panel"]').innerText();
		expect(panel).toMatch(/Nothing was (sent|submitted) and nothing was charged/);
		expect(await credits()).toBe(before);
		await ed.shot('error-panel', page.locator('[data-test-id="output-panel"]'));
		await ed.closeNode();
	});

	test('an option value the model does not allow, typed as an expression', async () => {
		const id = await scratch(
			'Bad Option',
			generate('video', 'lumora-motion-3', {
				modelOptions: { mappingMode: 'defineBelow', value: { resolution: '=8K' } },
			}),
		);
		await ed.openWorkflow(id);
		await ed.openNode('Bad Option');
		const before = await credits();
		await page.locator('[data-test-id="node-execute-button"]').click();
		const error = page.locator('[data-test-id="node-error-message"]');
		await error.waitFor({ timeout: 60_000 });
		expect(await error.innerText()).toContain(
			'Resolution (resolution) "8K" is not allowed for Lumora Motion 3. Allowed values: "720p", "1080p" (default "1080p").',
		);
		expect(await page.locator('[data-test-id="output-panel"]').innerText()).toMatch(
			/Nothing was (sent|submitted) and nothing was charged/,
		);
		expect(await credits()).toBe(before);
		await ed.closeNode();
	});

	test('options left at "Model Default" run at the model\'s price (a video with sound: 300 credits)', async () => {
		const id = await scratch('Untouched', generate('video', 'lumora-motion-3'));
		await ed.openWorkflow(id);
		await ed.openNode('Untouched');
		expect(await ed.valueOf('audio')).toBe('Model Default (On)');
		const before = await credits();
		await page.locator('[data-test-id="node-execute-button"]').click();
		const out = page.locator('[data-test-id="output-panel"]');
		await out.locator('[data-test-id="radio-button-schema"]').waitFor({ timeout: 120_000 });
		await out.locator('[data-test-id="radio-button-schema"]').click();
		await out.locator('[data-test-id="run-data-schema-item"]').first().waitFor();
		const schema = await out.innerText();
		expect(schema).toMatch(/cost\s+300\b/);
		expect(schema).toMatch(/audio\s+true\b/);
		expect(before - (await credits())).toBe(300);
		await ed.closeNode();
	});
});

describe('a batch with one bad item', () => {
	// Four prompts from the trigger's pinned data; the third is over Studio Image's 2000 characters.
	const LONG = `A lighthouse keeper's diary, page after page: ${'storm and calm, '.repeat(130)}`;
	const PROMPTS = ['a red kite', 'a blue kite', LONG, 'a green kite'];

	const batch = (name: string, onError?: string) =>
		scratchWorkflow(rest, {
			name,
			parameters: generate('image', 'studio-image-v1', { prompt: '={{ $json.prompt }}' }),
			settings: onError ? { onError } : {},
			pinned: PROMPTS.map((prompt) => ({ prompt })),
		});

	test('On Error → Stop: the error names the 3rd item as "item 3" and quotes its prompt; nothing is charged', async () => {
		const id = await batch('Batch Stop');
		await ed.openWorkflow(id);
		await ed.openNode('Batch Stop');
		const before = await credits();
		await page.locator('[data-test-id="node-execute-button"]').click();
		const error = page.locator('[data-test-id="node-error-message"]');
		await error.waitFor({ timeout: 60_000 });
		const message = await error.innerText();
		expect(message).toContain(`1 of 4 items cannot be sent: item 3 ("${LONG.slice(0, 20)}`);
		expect(message).toContain(`Prompt is ${LONG.length} characters long; Studio Image takes at most 2000.`);
		expect(message).not.toMatch(/\[item \d\]/);
		expect(await page.locator('[data-test-id="output-panel"]').innerText()).toContain(
			'Nothing was submitted and nothing was charged',
		);
		expect(await credits()).toBe(before);
		await ed.closeNode();
	});

	test('every item refused for one reason: the reason said once, with its advice, the items named', async () => {
		const name = 'Batch One Cause';
		const id = await scratchWorkflow(rest, {
			name,
			// Kind Music with an image model, as a Kind change under an expression Prompt can leave it.
			parameters: generate('music', 'studio-image-v1', { prompt: '={{ $json.prompt }}' }),
			pinned: ['a red kite', 'a blue kite', 'a green kite', 'a gold kite'].map((prompt) => ({ prompt })),
		});
		await ed.openWorkflow(id);
		await ed.openNode(name);
		const before = await credits();
		await page.locator('[data-test-id="node-execute-button"]').click();
		const error = page.locator('[data-test-id="output-panel"] [data-test-id="node-error-message"]');
		await error.waitFor({ timeout: 60_000 });
		const message = await error.innerText();
		expect(message).toMatch(/^4 of 4 items cannot be sent: items 1, 2, 3 and 4: \S/);
		const reason = message.replace(/^4 of 4 items cannot be sent: items 1, 2, 3 and 4: /, '');
		const panel = await page.locator('[data-test-id="output-panel"]').innerText();
		// Said once in the panel (the title), the advice once below it.
		expect(panel.split(reason).length - 1).toBe(1);
		expect(panel).toContain('Nothing was submitted and nothing was charged: fix these items and run again.');
		expect(await credits()).toBe(before);
		await ed.shot('batch-one-cause', page.locator('[data-test-id="output-panel"]'));
		await ed.closeNode();
	});

	test('On Error → Continue: three images, and the 3rd item says why, with no "undefined" in the table', async () => {
		const id = await batch('Batch Continue', 'continueRegularOutput');
		await ed.openWorkflow(id);
		await ed.openNode('Batch Continue');
		const before = await credits();
		await page.locator('[data-test-id="node-execute-button"]').click();
		const out = page.locator('[data-test-id="output-panel"]');
		await out.getByText('4 items').first().waitFor({ timeout: 120_000 });
		await out.locator('[data-test-id="radio-button-table"]').click();
		await out
			.locator('table')
			.getByText(`Prompt is ${LONG.length} characters long`, { exact: false })
			.first()
			.waitFor();
		const table = await out.locator('table').innerText();
		expect(table).toContain(`Prompt is ${LONG.length} characters long`);
		expect(table).not.toContain('undefined');
		expect(before - (await credits())).toBe(15);
		await ed.closeNode();
	});
});

describe('outputs preview in the output panel', () => {
	async function runAndView(example: number, node: string) {
		await ed.openWorkflow(exampleId(example));
		await page.locator('[data-test-id="execute-workflow-button"]').click();
		await page.getByText('Workflow executed successfully').first().waitFor({ timeout: 180_000 });
		await ed.openNode(node);
		const out = page.locator('[data-test-id="output-panel"]');
		await out.locator('[data-test-id="radio-button-binary"]').click();
		await out.locator('[data-test-id="ndv-view-binary-data"]').first().click();
		return out;
	}

	test('the image example: the PNG is shown', async () => {
		const out = await runAndView(1, 'Generate Image');
		// The example's Model field shows the list's name, not the raw id.
		expect(await ed.valueOf('model')).toBe('Image · Studio Image (Studio) · 5 credits, free tier');
		const img = out.locator('img[src*="binary-data"]');
		await img.waitFor();
		await page.waitForFunction(
			(el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0,
			await img.elementHandle(),
		);
		expect(await img.getAttribute('src')).toContain('mimeType=image%2Fpng');
		await ed.shot('output-preview', undefined, { x: 430, y: 60, width: 830, height: 560 });
		await ed.closeNode();
	});

	test.each([
		['video', 3, 'Generate Video', 'video', /video\/mp4|mimeType=video%2Fmp4/],
		['song', 4, 'Generate Song', 'audio', /audio\/mpeg|mimeType=audio%2Fmpeg/],
	])('the %s example: the file plays as media', async (_label, example, node, element, type) => {
		const out = await runAndView(example as number, node as string);
		const media = out.locator(element as string).first();
		await media.waitFor();
		const source = await media.evaluate(
			(m) => m.querySelector('source')?.getAttribute('type') ?? (m as HTMLMediaElement).src,
		);
		expect(source).toMatch(type as RegExp);
		await ed.closeNode();
	});
});

describe('credentials', () => {
	async function openCredential(name: string) {
		await page.goto(`${dev.editorUrl}/home/credentials`);
		await page
			.locator('[data-test-id="resources-list-search"]')
			.locator('xpath=descendant-or-self::input')
			.first()
			.fill(name);
		await ed.settle();
		await page
			.locator('[data-test-id="resources-list-item"]')
			.filter({ has: page.getByText(name, { exact: true }) })
			.first()
			.click();
		const dialog = page.locator('[data-test-id="credential-edit-dialog"]:visible');
		await dialog.locator('label.n8n-input-label').first().waitFor();
		return dialog;
	}

	async function connectionResult(dialog: ReturnType<Page['locator']>): Promise<string> {
		await dialog
			.getByText(/Connection tested successfully|Couldn.t connect with these settings/)
			.first()
			.waitFor({ timeout: 60_000 });
		const more = dialog.getByText('More details');
		if (await more.count()) {
			await more.first().click();
			await more.first().waitFor({ state: 'detached' }); // the details are shown in its place
		}
		return (await dialog.innerText()).trim();
	}

	async function makeCredential(name: string, data: Record<string, string>): Promise<string> {
		const c = await rest<{ id: string }>('/rest/credentials', {
			method: 'POST',
			body: JSON.stringify({ name, type: 'mediaGenApi', data }),
		});
		return c.id;
	}

	test('the API key dialog: help texts, and a good key connects', async () => {
		const dialog = await openCredential('Media Generation sandbox');
		expect(await connectionResult(dialog)).toContain('Connection tested successfully');
		expect(await helpOf(page, dialog, 'API Key')).toContain('sk_ followed by 40 hex characters');
		expect(await helpOf(page, dialog, 'Base URL')).toContain('ending in /v1');
		await ed.shot('credential', dialog);
		await page.keyboard.press('Escape');
	});

	test('the free-tier and webhook dialogs explain what they are for', async () => {
		let dialog = await openCredential('Media Generation sandbox (free tier)');
		expect(await dialog.innerText()).toContain('The free tier covers only the free house image engine');
		expect(await helpOf(page, dialog, 'Anonymous ID')).toContain('8 to 80 characters');
		await page.keyboard.press('Escape');
		dialog = await openCredential('Media Generation sandbox webhook');
		expect(await helpOf(page, dialog, 'Signing Secret')).toContain('whsec_');
		await page.keyboard.press('Escape');
	});

	test.each<[string, { apiKey: string; baseUrl?: string }, string]>([
		['a malformed key', { apiKey: 'sk_12' }, 'The API key does not have the expected shape'],
		[
			'an unknown key',
			{ apiKey: `sk_${'ab'.repeat(20)}` },
			'The service did not accept this API key: it is unknown, revoked or mistyped.',
		],
		[
			'a Base URL without /v1',
			{ apiKey: 'from the dev stack', baseUrl: 'root' },
			'The Base URL does not lead to the API: it must be the version 1 root, ending in /v1',
		],
	])('%s gets a clear reason from the connection test', async (label, data, reason) => {
		const apiKey = data.apiKey === 'from the dev stack' ? dev.apiKey : data.apiKey;
		const baseUrl = data.baseUrl === 'root' ? dev.apiBase.replace(/\/v1$/, '') : dev.apiBase;
		await makeCredential(`UI test ${label}`, { baseUrl, apiKey });
		const dialog = await openCredential(`UI test ${label}`);
		expect(await connectionResult(dialog)).toContain(reason);
		await page.keyboard.press('Escape');
	});

	test('with a broken credential the model list and the boxes say what is wrong', async () => {
		const credId = await makeCredential('UI test broken for list', { baseUrl: dev.apiBase, apiKey: 'sk_12' });
		const id = await scratch('Broken', generate('video', 'lumora-motion-3'), {
			mediaGenApi: { id: credId, name: 'UI test broken for list' },
		});
		await ed.openWorkflow(id);
		await ed.openNode('Broken');
		expect(await ed.aboutText()).toMatch(/^Could not read the catalogue: The API key does not have the expected shape/);
		await ed.parameters.locator('[data-test-id="rlc-input"]').first().click();
		await ed.settle();
		expect(await ed.locatorDropdownText()).toContain('The API key does not have the expected shape');
		await page.keyboard.press('Escape');
		// n8n does not reload the box when the credential changes: the note says when it was read, and what to do.
		expect(await ed.aboutText()).toContain('once the credential is fixed, close and reopen the node to read it again');
		await ed.parameters.locator('[data-test-id="node-credentials-select"]').first().click();
		await page
			.locator('.el-select-dropdown__item:visible')
			.getByText('Media Generation sandbox', { exact: true })
			.click();
		await ed.settle();
		await ed.closeNode();
		await ed.openNode('Broken');
		const about = await ed.until(
			() => ed.aboutText(),
			(t) => t.includes('credits at its defaults'),
		);
		expect(about).not.toContain('Could not read the catalogue');
		await ed.closeNode();
	});
});

describe('pause mode: a failure the step decides', () => {
	// Checked before anything is sent or paused, so the same error in the output panel whatever the time limit.
	test.each([0.2, 5])(
		"a prompt over the limit with a %s-minute time limit: the node's error in the output panel, nothing charged",
		async (minutes) => {
			const name = `Paused Too Long ${String(minutes).replace('.', '-')}`;
			const id = await scratch(
				name,
				generate('image', 'studio-image-v1', {
					prompt: 'x'.repeat(2001),
					waitMode: 'pause',
					waiting: { timeoutMinutes: minutes },
				}),
				{
					...API_CREDENTIAL,
					mediaGenWebhookApi: { id: 'mediagenSandboxWebhook', name: 'Media Generation sandbox webhook' },
				},
			);
			await ed.openWorkflow(id);
			await ed.openNode(name);
			const before = await credits();
			await page.locator('[data-test-id="node-execute-button"]').click();
			const error = page.locator('[data-test-id="node-error-message"]');
			await error.waitFor({ timeout: 60_000 });
			expect(await error.innerText()).toBe('Prompt is 2001 characters long; Studio Image takes at most 2000.');
			expect(await page.locator('[data-test-id="output-panel"]').innerText()).toMatch(
				/Nothing was (sent|submitted) and nothing was charged/,
			);
			expect(await credits()).toBe(before);
			await ed.closeNode();
		},
	);
});

describe('pause mode with the wrong signing secret', () => {
	test('the run is read back with the API credential: the execution succeeds with its file and one warning naming the secret', async () => {
		const credential = await rest<{ id: string }>('/rest/credentials', {
			method: 'POST',
			body: JSON.stringify({
				name: 'UI test endpoint secret (not the account one)',
				type: 'mediaGenWebhookApi',
				data: { secret: newWebhookSecret(), previousSecret: '' },
			}),
		});
		const id = await scratch(
			'Paused Wrong Secret',
			generate('image', 'studio-image-v1', { waitMode: 'pause', waiting: { timeoutMinutes: 0.2 } }),
			{ ...API_CREDENTIAL, mediaGenWebhookApi: { id: credential.id, name: 'UI test endpoint secret' } },
		);
		await ed.openWorkflow(id);
		await page.locator('[data-test-id="execute-workflow-button"]').click();
		const filter = encodeURIComponent(JSON.stringify({ workflowId: id }));
		const list = async () =>
			(await rest<{ results: Array<{ id: string; status: string }> }>(`/rest/executions?filter=${filter}`)).results;
		// The refused delivery wakes the step, which reads the run back with the API credential and takes it.
		const ended = await ed.until(
			async () => (await list()).find((e) => !['new', 'running', 'waiting'].includes(e.status)),
			(e) => e !== undefined,
			240_000,
		);
		expect(ended?.status).toBe('success');
		const details = await rest<{ data: string }>(`/rest/executions/${ended!.id}`);
		expect(details.data).toContain('1 delivery to this step failed the signature check');
		expect(details.data).toContain('To stop this warning, check the secret in the Webhook Signing Secret credential');
		expect(details.data).toContain('SUCCEEDED');
	});
});

describe('trigger and Run Look', () => {
	/** The trigger example's executions, newest first, as n8n lists them. */
	async function triggerExecutions(): Promise<Array<{ id: string; status: string }>> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId: exampleId(6) }));
		const page = await rest<{ results: Array<{ id: string; status: string }> }>(
			`/rest/executions?filter=${filter}&limit=50`,
		);
		return page.results;
	}

	test("the set-up the trigger's notice describes works: a Generate step's Webhook URL starts the trigger", async () => {
		const before = new Set((await triggerExecutions()).map((e) => e.id));
		const id = await scratch(
			'To Trigger',
			generate('image', 'studio-image-v1', { additionalFields: { webhookUrl: dev.triggerUrl } }),
		);
		await ed.openWorkflow(id);
		await ed.openNode('To Trigger');
		await page.locator('[data-test-id="node-execute-button"]').click();
		const out = page.locator('[data-test-id="output-panel"]');
		await out
			.locator('[data-test-id="radio-button-schema"], [data-test-id="node-error-message"]')
			.first()
			.waitFor({ timeout: 120_000 });
		expect(await page.locator('[data-test-id="node-error-message"]').count()).toBe(0);
		const started = await ed.until(
			async () => (await triggerExecutions()).filter((e) => !before.has(e.id) && e.status === 'success'),
			(list) => list.length > 0,
			60_000,
		);
		expect(started).toHaveLength(1);
		await ed.closeNode();
	});

	test('the trigger panel shows its Production URL and how to set it up and test it', async () => {
		await ed.openWorkflow(exampleId(6));
		await ed.openNode('Media Generation Trigger');
		await ed.parameters.locator('[title="Click to display webhook URLs"]').click();
		await ed.parameters.locator('[data-test-id="radio-button-production"]').click();
		expect(await ed.parameters.innerText()).toContain(dev.triggerUrl);
		const text = await ed.parameters.innerText();
		expect(text).toContain('Then publish the workflow');
		expect(text).not.toMatch(/Activate the workflow/);
		expect(text).toContain('To catch a run here, click Execute step and run a Generate step whose Webhook URL is');
		expect(text).toContain("Signing Secret box: the endpoint's signing secret");
		expect(text).toContain('Turn on Check Unverified Deliveries to check a delivery signed with another secret');
		expect(text).not.toMatch(/_sandbox|testEvent: true/);
		expect(await ed.ndv.innerText()).toContain('Waits for a finished Media Generation run');
		await ed.closeNode();
	});

	test("App → Run Look: apps, then the app's looks and photo slots", async () => {
		await ed.openWorkflow(exampleId(5));
		await ed.openNode('Royal Pet Portrait');
		expect(await ed.valueOf('app')).toBe('Pet Portrait (image, 2 looks)');
		const apps = await ed.locatorList();
		expect(apps.length).toBeGreaterThan(1);
		for (const app of apps) expect(app).toMatch(/^.+ \((image|video|music), \d+ looks?\)$/);
		await page.keyboard.press('Escape');
		expect((await ed.entries('look')).length).toBe(2);
		const slots = await ed.entries('slotId');
		expect(slots.length).toBeGreaterThan(0);
		await ed.closeNode();
	});
});
