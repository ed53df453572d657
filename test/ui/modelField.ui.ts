// Generate's Model field in the editor (issue 42, points 3, 5 and 6), through `npm run dev` (sandbox + real n8n with
// the package) in Debian's chromium: a first image from an empty canvas without touching Model (the step runs the
// kind's cheapest free-tier model and About the Model names it); a Kind change empties a model of the old kind; on the
// tool variant, "Let the AI Agent Choose" turns Model into n8n's "defined by the model" field with the kind's model
// IDs and prices in its description. Writes docs/screenshots/model-default.png and model-agent-choice.png.
import type { Page } from 'playwright-core';

import type { DevStack } from '../../scripts/uiDev';
import { exampleId } from '../../scripts/stack';
import { defaultModel, readCatalogue } from '../helpers/catalogue';
import { creditsLeft, scratchWorkflow, useEditorSession, type Editor, type EditorSession } from './editor';

let dev: DevStack;
let page: Page;
let ed: Editor;
let rest: EditorSession['rest'];
useEditorSession((session) => ({ dev, page, ed, rest } = session));

const credits = () => creditsLeft(dev);

/** A workflow with a manual trigger and one node of ours (the action node, or its tool variant), made over REST. */
const scratch = (name: string, parameters: Record<string, unknown>, type = 'mediaGen') =>
	scratchWorkflow(rest, { name, parameters, type });

const generate = (kind: string, model: string) => ({
	resource: 'generation',
	operation: 'generate',
	kind,
	model: { __rl: true, mode: 'list', value: model },
	prompt: 'a lighthouse at dawn',
});

const modelInput = () => ed.param('model').locator('[data-test-id="rlc-input"]').first();

test('a first image from an empty canvas, Model untouched: the cheapest free-tier image model runs, named beforehand', async () => {
	const images = (await readCatalogue(dev.apiBase)).filter((m) => m.kind === 'image');
	const house = defaultModel(images, 'image');
	await ed.newWorkflowFromManualTrigger();
	await ed.searchNodes('generate image', 'Media Generation');
	await ed.clickNodesPanelEntry('Media Generation');
	await page.locator('[data-test-id="node-creator"]').getByText('Generate media', { exact: true }).click();
	await ed.parameters.waitFor();
	await ed.settle();
	// The API key's credential, if n8n has not chosen it (the boxes below read the catalogue with it).
	const credential = ed.parameters.locator('[data-test-id="node-credentials-select"]').first();
	if (!(await credential.locator('input').first().inputValue())) {
		await credential.click();
		await page
			.locator('.el-select-dropdown__item:visible')
			.filter({ hasText: 'Media Generation sandbox' })
			.first()
			.click();
		await ed.closeNode();
		await ed.openNode('Generate media');
	}
	// Model is empty and says what empty means; About the Model names the model the step will use.
	expect(await modelInput().inputValue()).toBe('');
	expect(await modelInput().getAttribute('placeholder')).toBe('Cheapest free-tier model of the kind');
	const lead = `No model chosen: the step uses ${house.name}, the cheapest free-tier image model in the catalogue.`;
	expect(
		await ed.until(
			() => ed.aboutText(),
			(t) => t.startsWith(lead),
		),
	).toMatch(new RegExp(`^${lead} Pick another above\\.\\n${house.name} \\(`));
	await ed.param('prompt').locator('textarea').fill('a red kite over a beach');
	await ed.shotPanel('model-default', 'kind');
	const before = await credits();
	await page.locator('[data-test-id="node-execute-button"]').click();
	const out = page.locator('[data-test-id="output-panel"]');
	await out.locator('[data-test-id="radio-button-schema"]').waitFor({ timeout: 120_000 });
	expect(await page.locator('[data-test-id="node-error-message"]').count()).toBe(0);
	await out.locator('[data-test-id="radio-button-schema"]').click();
	await out.locator('[data-test-id="run-data-schema-item"]').first().waitFor();
	const schema = await out.innerText();
	expect(schema).toMatch(new RegExp(`model\\s+${house.id}\\b`));
	expect(schema).toMatch(/status\s+SUCCEEDED\b/);
	expect(before - (await credits())).toBe(house.credits_at_defaults);
	await ed.closeNode();
});

test('Kind → Music after an image model: the image model is emptied, the list highlights nothing', async () => {
	const songs = (await readCatalogue(dev.apiBase)).filter((m) => m.kind === 'music');
	const cheapest = songs.sort((a, b) => a.credits_at_defaults - b.credits_at_defaults)[0];
	await ed.openWorkflow(await scratch('Kind Change', generate('image', 'studio-image-v1')));
	await ed.openNode('Kind Change');
	expect(
		await ed.until(
			() => modelInput().inputValue(),
			(v) => v !== '',
		),
	).toMatch(/^(Studio Image|studio-image-v1)/);
	await ed.pick('kind', 'Music');
	expect(
		await ed.until(
			() => modelInput().inputValue(),
			(v) => v === '',
		),
	).toBe('');
	const free = cheapest.free_tier ? 'cheapest free-tier' : 'cheapest';
	const lead = `No model chosen: the step uses ${cheapest.name}, the ${free} music model in the catalogue.`;
	expect(
		await ed.until(
			() => ed.aboutText(),
			(t) => t.startsWith(lead),
		),
	).toContain(lead);
	expect(await ed.aboutText()).not.toContain('Studio Image');
	const list = await ed.locatorList();
	expect(list).toHaveLength(songs.length);
	expect(list.join('\n')).not.toContain('Studio Image');
	expect(await page.locator('[data-test-id="rlc-item"][class*="selected"]').count()).toBe(0);
	await page.keyboard.press('Escape');
	// Reopened, nothing of the old kind came back.
	await ed.closeNode();
	await ed.openNode('Kind Change');
	expect(await modelInput().inputValue()).toBe('');
	await ed.closeNode();
});

test('Kind → Video with the prompt from an expression (no input yet): the image model is called out where it is', async () => {
	await ed.openWorkflow(
		await scratch('Kind Change Mapped', { ...generate('image', 'studio-image-v1'), prompt: '={{ $json.prompt }}' }),
	);
	await ed.openNode('Kind Change Mapped');
	expect(
		await ed.until(
			() => modelInput().inputValue(),
			(v) => v !== '',
		),
	).not.toBe('');
	await ed.pick('kind', 'Video');
	// n8n empties Model (and reloads the note under it) on a Kind change only when it can resolve every expression of
	// the node; here it cannot, so the list says it, first and highlighted where n8n shows the chosen model.
	const list = await ed.locatorList();
	expect(list[0]).toBe('Studio Image makes images, not videos: pick a video model below');
	expect(list.slice(1).join('\n')).not.toContain('Studio Image');
	await page.keyboard.press('Escape');
	await ed.closeNode();
});

test('example 2, Kind Image → Music with the prompt from an expression: a notice under Model says the model no longer fits', async () => {
	// The batch example as a user opens it: Prompt {{ $json.prompts }} from steps that have not run yet, so n8n keeps
	// the model and asks the node nothing; the notice comes from the kind in the name n8n saved with the model.
	await ed.openWorkflow(exampleId(2));
	await ed.openNode('Generate Images');
	const notice = ed.parameters.getByText('The model chosen above makes images, not what Kind now asks for.', {
		exact: false,
	});
	await expect(notice.count()).resolves.toBe(0);
	await ed.pick('kind', 'Music');
	await notice.waitFor();
	expect(await notice.innerText()).toContain('Pick a model from the list (it shows the models of the new kind)');
	await ed.shotPanel('kind-change-expression', 'kind');
	// Picking a music model from the list ends it.
	await modelInput().click();
	await page.locator('[data-test-id="rlc-item"]').filter({ hasText: 'Music · ' }).first().click();
	await ed.settle();
	await notice.waitFor({ state: 'detached' });
	await ed.closeNode();
});

test('the tool variant: "Let the AI Agent Choose" gives the agent the image model IDs with their prices', async () => {
	const images = (await readCatalogue(dev.apiBase)).filter((m) => m.kind === 'image');
	const id = await scratch('Agent Tool', generate('image', ''), 'mediaGenTool');
	await ed.openWorkflow(id);
	await ed.openNode('Agent Tool');
	const list = await ed.locatorList();
	expect(list[0]).toBe(`Let the AI Agent Choose: told the ${images.length} image model IDs and prices`);
	expect(list).toHaveLength(images.length + 1);
	await page.locator('[data-test-id="rlc-item"]').first().click();
	await ed.settle();
	// n8n's own "defined by the model" field, its description (read when the panel opens) holding the IDs and prices.
	await ed.closeNode();
	await ed.openNode('Agent Tool');
	const override = ed.param('model').locator('[data-test-id="fromAI-override-field"]');
	await override.waitFor();
	const shown = await ed.until(
		() =>
			ed
				.param('model')
				.locator('textarea, input')
				.evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value).join('\n')),
		(t) => t.includes('studio-image-v1'),
	);
	for (const m of images) expect(shown).toContain(`${m.id} (${m.credits_at_defaults} credits)`);
	expect(
		await ed.until(
			() => ed.aboutText(),
			(t) => t.startsWith('Model comes from an expression, or is "Defined automatically by the model"'),
		),
	).toContain('"Let the AI Agent Choose", first in the model list (click × on the field to see the list), writes them');
	await ed.shotPanel('model-agent-choice', 'kind');
	// Saved as n8n's ✨ button saves it, with the description filled in.
	await page.keyboard.press('Control+s');
	const savedValue = async () => {
		type Saved = { nodes: Array<{ name: string; parameters: { model: { value: string } } }> };
		const saved = await rest<Saved>(`/rest/workflows/${id}`);
		return saved.nodes.find((n) => n.name === 'Agent Tool')!.parameters.model.value;
	};
	// Read until the save has reached n8n (it starts a moment after the key press).
	const value = await ed.until(savedValue, (v) => v.startsWith('={{'));
	expect(value).toMatch(/^=\{\{ \/\*n8n-auto-generated-fromAI-override\*\/ \$fromAI\('Model', `The image model: /);
	await ed.closeNode();
});

test("Kind from an expression: its notice says Model can stay empty (each item its kind's cheapest free-tier model)", async () => {
	await ed.openWorkflow(await scratch('Kind Expression', { ...generate('image', ''), kind: '={{ $json.kind }}' }));
	await ed.openNode('Kind Expression');
	expect(await ed.parameters.innerText()).toContain(
		"Leave Model empty for the cheapest free-tier model of each item's kind, or give it By ID with an expression too",
	);
	await ed.closeNode();
});
