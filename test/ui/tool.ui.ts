// The node as an AI tool in the editor (`npm run dev`, real n8n 2.40.7, Debian's chromium): example 07, an MCP
// Server Trigger with our Generate, Wait and Get tools, shows on the canvas with the tools attached; the tool's
// panel has the prompt from the model and no Waiting mode (pause mode is hidden on the tool variant), says
// that it answers with file URLs instead of downloading, and shows the Description the agent reads.
// Writes docs/screenshots/mcp-tools-workflow.png and mcp-tool-panel.png (docs/ai-tools.md shows them).
import type { Page } from 'playwright-core';

import { readExample } from '../../scripts/realN8n';
import { createWorkflow, useEditorSession, type Editor } from './editor';

let page: Page;
let ed: Editor;
let workflowId = '';
useEditorSession(async (session) => {
	({ page, ed } = session);
	workflowId = await createWorkflow(session.rest, readExample('07-mcp-server-tools.json'));
});

test('example 07 on the canvas: the MCP Server Trigger with our three tools attached', async () => {
	await ed.openWorkflow(workflowId);
	for (const name of ['MCP Server Trigger', 'Generate Media', 'Wait for Run', 'Get Run'])
		await expect(ed.canvasNode(name).count()).resolves.toBe(1);
	// Each tool hangs from the trigger's Tools input: three edges end there.
	await expect(page.locator('[data-test-id="edge"]').count()).resolves.toBe(3);
	await page.locator('[data-test-id="zoom-to-fit"]').click();
	await ed.settle();
	await ed.shot('mcp-tools-workflow');
});

test("the tool's panel: the prompt from the model, no Waiting mode, URLs instead of downloads", async () => {
	await ed.openNode('Generate Media');
	const text = await ed.parameters.innerText();
	expect(text).toContain("{{ $fromAI('prompt', 'What the picture shows");
	// Waiting (poll or pause) is hidden on the tool variant, and so is Download Outputs, replaced by a notice.
	const labels = await ed.labels();
	expect(labels).toEqual(expect.arrayContaining(['Prompt', 'Request Key', 'Waiting Settings']));
	expect(labels).not.toContain('Waiting');
	expect(labels).not.toContain('Download Outputs');
	expect(text).not.toContain('Poll (Keep the Execution Running)');
	expect(text).toContain("As a tool, this node answers with each file's URL and downloads nothing");
	// What the agent reads about the tool: the operation's own Description, not "Generate media in Media Generation".
	expect(labels).toContain('Description');
	const description = await ed.param('toolDescription').locator('textarea').first().inputValue();
	expect(description).toMatch(/^Makes an image, video or song from a text prompt/);
	await ed.shotPanel('mcp-tool-panel', 'prompt');
	await ed.closeNode();
});
