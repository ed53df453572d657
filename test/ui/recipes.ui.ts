/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The recipes (examples/recipes/) in the editor (`npm run dev`, real n8n 2.40.7, Debian's chromium): each
// canvas as a user imports it, and the colleagues' form filled in and submitted in the browser, its result
// page showing the picture. Writes docs/screenshots/recipe-*.png (docs/recipes.md and the README show them).
import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { Page } from 'playwright-core';

import { REPO } from '../../scripts/realN8n';
import type { DevStack } from '../../scripts/uiDev';
import { untilN8n } from '../e2e/shared';
import { createWorkflow, useEditorSession, type Editor, type EditorSession } from './editor';

interface Recipe {
	name: string;
	nodes: Array<{ name: string; type: string; webhookId?: string }>;
	connections: unknown;
	settings: unknown;
}

const CANVASES: Array<[file: string, shot: string]> = [
	['form-for-colleagues.json', 'recipe-form-for-colleagues'],
	['prompts-to-google-drive.json', 'recipe-prompts-to-google-drive'],
	['finished-videos-to-slack.json', 'recipe-finished-videos-to-slack'],
	['generate-to-wordpress.json', 'recipe-generate-to-wordpress'],
	['song-to-email.json', 'recipe-song-to-email'],
	['photo-to-video.json', 'recipe-photo-to-video'],
];
const readRecipe = (file: string) =>
	JSON.parse(readFileSync(path.join(REPO, 'examples/recipes', file), 'utf8')) as Recipe;

let dev: DevStack;
let page: Page;
let ed: Editor;
let rest: EditorSession['rest'];
const idOf: Record<string, string> = {};
useEditorSession(async (session) => {
	({ dev, page, ed, rest } = session);
	for (const [file] of CANVASES) idOf[file] = await createWorkflow(rest, readRecipe(file));
});

test.each(CANVASES)('%s on the canvas, with its sticky note', async (file, shot) => {
	await ed.openWorkflow(idOf[file]);
	const nodes = readRecipe(file).nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote');
	for (const node of nodes) await expect(ed.canvasNode(node.name).count()).resolves.toBe(1);
	await expect(page.locator('[data-test-id="sticky"]').count()).resolves.toBe(1);
	await page.locator('[data-test-id="zoom-to-fit"]').click();
	await ed.settle();
	await ed.shot(shot);
});

test('a colleague fills in the form: the result page shows the picture and downloads it', async () => {
	const file = 'form-for-colleagues.json';
	// Published, as a team shares it: the form answers on its production URL.
	const { versionId } = await rest<{ versionId: string }>(`/rest/workflows/${idOf[file]}`);
	await rest(`/rest/workflows/${idOf[file]}/activate`, { method: 'POST', body: JSON.stringify({ versionId }) });
	const trigger = readRecipe(file).nodes.find((n) => n.type === 'n8n-nodes-base.formTrigger')!;
	const formUrl = `${dev.editorUrl}/form/${trigger.webhookId}`;
	// n8n 2.40 registers a published workflow's webhooks a moment after answering: wait until the form is served.
	await untilN8n(async () => (await fetch(formUrl)).status !== 404, 'the form to be served', 60_000);
	const opened = await page.goto(formUrl);
	if (!opened?.ok()) throw new Error(`The form answered HTTP ${opened?.status()}: ${await page.innerText('body')}`);
	await page.locator('#field-0').fill('a lighthouse at dawn, watercolour');
	await page.locator('#field-1').selectOption('16:9');
	await ed.shot('recipe-form');
	const download = page.waitForEvent('download', { timeout: 120_000 });
	await page.locator('button[type="submit"]').click();
	await page.getByText('Here is your picture').waitFor({ timeout: 120_000 });
	const picture = page.locator('img[src*="/files/outputs/"]');
	await picture.waitFor();
	// The picture is shown, not just referenced: it has loaded with its real size.
	await page.waitForFunction(() => {
		const img = document.querySelector<HTMLImageElement>('img[src*="/files/outputs/"]');
		return !!img && img.complete && img.naturalWidth > 0;
	});
	expect((await download).suggestedFilename()).toMatch(/^a-lighthouse-at-dawn-watercolour-.*\.png$/);
	await ed.shot('recipe-form-result');
});
