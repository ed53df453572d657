// Panels a new user reads (issue 42, points 4 and 7), in the editor of `npm run dev` (sandbox + real n8n with the
// package) driven in Debian's chromium: the trigger panel says at a glance where the Production URL goes and which
// secret goes in which credential box; Estimate Cost's Table view shows the total in its first column and no
// "undefined" cell. Writes docs/screenshots/trigger-panel.png and estimate-table.png.
import type { Page } from 'playwright-core';

import { exampleId } from '../../scripts/stack';
import type { DevStack } from '../../scripts/uiDev';
import { creditsLeft, scratchWorkflow, useEditorSession, type Editor, type EditorSession } from './editor';

let dev: DevStack;
let page: Page;
let ed: Editor;
let rest: EditorSession['rest'];
useEditorSession((session) => ({ dev, page, ed, rest } = session));
const credits = () => creditsLeft(dev);

test('the trigger panel: labelled credential boxes, then at most two short notices before the first field', async () => {
	await ed.openWorkflow(exampleId(6));
	await ed.openNode('Media Generation Trigger');
	await ed.parameters.locator('[title="Click to display webhook URLs"]').click();
	await ed.parameters.locator('[data-test-id="radio-button-production"]').click();
	expect(await ed.parameters.innerText()).toContain(dev.triggerUrl);
	// Each box says what goes in it (n8n would label both "Credential").
	const boxes = await ed.parameters.locator('[data-test-id="credentials-label"]').allInnerTexts();
	// The API Key box shows only with Check Unverified Deliveries on (so n8n fills the Signing Secret box itself).
	expect(boxes.map((t) => t.split('\n')[0].trim())).toEqual(['Signing Secret']);
	// The notices n8n shows before the first field's label, in page order.
	const before = await ed.parameters.evaluate((root) => {
		const texts: string[] = [];
		for (const el of Array.from(root.querySelectorAll('[role="alert"], [data-test-id="input-label"]'))) {
			if (el.getAttribute('role') !== 'alert') break;
			texts.push((el as HTMLElement).innerText.trim());
		}
		return texts;
	});
	expect(before.length).toBeLessThanOrEqual(2);
	for (const notice of before) expect(notice.split(/\s+/).length).toBeLessThanOrEqual(45);
	const said = before.join('\n');
	expect(said).toContain('Copy the Production URL above into your account settings as a webhook endpoint');
	expect(said).toContain("Signing Secret box: the endpoint's signing secret");
	expect(said).toContain('Turn on Check Unverified Deliveries');
	expect(await ed.labels()).toContain('Outcomes');
	expect(await ed.parameters.innerText()).not.toContain('testEvent');
	// The panel from its top: the Production URL, the box, the two notices and the first fields.
	await ed.parameters.evaluate((el) => el.scrollIntoView({ block: 'start' }));
	const panel = (await ed.parameters.boundingBox())!;
	await ed.shot('trigger-panel', undefined, {
		x: panel.x - 16,
		y: 60,
		width: panel.width + 32,
		height: page.viewportSize()!.height - 100,
	});
	await ed.closeNode();
});

test('Estimate Cost in Table view: the total in the first column, no "undefined" cell, nothing charged', async () => {
	const name = 'Estimate Three Pictures';
	const id = await scratchWorkflow(rest, {
		name,
		parameters: {
			resource: 'generation',
			operation: 'estimateCost',
			kind: 'image',
			model: { __rl: true, mode: 'list', value: 'studio-image-v1' },
			prompt: '={{ $json.prompt }}',
		},
		pinned: ['a red kite', 'a blue kite', 'a green kite'].map((prompt) => ({ prompt })),
	});
	const left = await credits();
	await ed.openWorkflow(id);
	await ed.openNode(name);
	await page.locator('[data-test-id="node-execute-button"]').click();
	const out = page.locator('[data-test-id="output-panel"]');
	await out.getByText('4 items').first().waitFor({ timeout: 60_000 });
	await out.locator('[data-test-id="radio-button-table"]').click();
	const total = `Total: 15 credits; ${left.toLocaleString('en-US')} left; enough`;
	const cell = out.locator('table td').getByText(total, { exact: true });
	await cell.waitFor();
	const table = await out.locator('table').innerText();
	expect(table).not.toContain('undefined');
	expect(table.match(/5 credits \(list price\)/g)).toHaveLength(3);
	expect(table).toContain('list price');
	// The total is on screen, inside the output panel, without scrolling the table sideways.
	const [panel, box] = [(await out.boundingBox())!, (await cell.boundingBox())!];
	expect(box.x).toBeGreaterThanOrEqual(panel.x);
	expect(box.x + box.width).toBeLessThanOrEqual(panel.x + panel.width);
	expect(await credits()).toBe(left);
	await ed.shot('estimate-table', out);
	await ed.closeNode();
});
