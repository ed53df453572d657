/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Installed, upgraded and removed the way self-hosters do it, on each n8n version (scripts/n8n-versions.env):
// Settings → Community Nodes → Install in chromium, the package coming from the local npm registry
// (scripts/localRegistry.ts) as the previous release; credentials of all three kinds and the example
// workflows saved, example 01 run; then the card's Update button to this build, the same workflows run
// again with the same results, every credential still passing n8n's own test, no node with parameter issues;
// then Uninstall through the screen, and what becomes of the workflows that use the node.
import path from 'node:path';
import type { Page } from 'playwright-core';

import { executeWorkflow, n8nCli, N8N_MAIN_VERSION, N8N_VERSIONS, REPO, TYPE_PREFIX } from '../../scripts/realN8n';
import {
	credentialWorks,
	installedPackages,
	nodeTypeNames,
	ownerPage,
	saveCredentialsAndExamples,
	startEmptyN8n,
	useInstallWorld,
	type InstalledN8n,
} from './installHarness';
import { CURRENT_VERSION, PACKAGE, PREVIOUS_VERSION } from './releases';

const SCREENSHOTS = path.join(REPO, 'docs/screenshots');
/** The examples saved before the upgrade; those run headlessly (Manual Trigger, no binary input) come first. */
const SAVED = [
	'01-generate-image.json',
	'02-batch-of-prompts.json',
	'04-song-lyrics.json',
	'06-trigger-finished-runs.json',
];
const RUN = ['01-generate-image.json', '02-batch-of-prompts.json'];

const world = useInstallWorld();

function card(page: Page) {
	return page.locator('[data-test-id="community-package-card"]').filter({ hasText: PACKAGE });
}

interface ItemSummary {
	keys: string[];
	status: unknown;
	model: unknown;
	binary: string[];
}
type RunSummary = Record<string, ItemSummary[]>;

/** The summary of one headless run of a saved example that stays equal across an upgrade. */
async function runSummary(at: InstalledN8n, workflowId: string): Promise<RunSummary> {
	const run = await executeWorkflow(at.n8n, workflowId);
	if (run.resultData.error) throw new Error(`Workflow ${workflowId} failed: ${run.resultData.error.message}`);
	const out: RunSummary = {};
	for (const [node, tasks] of Object.entries(run.resultData.runData)) {
		const items = tasks[0]?.data?.main[0] ?? [];
		out[node] = items.map((i) => ({
			keys: Object.keys(i.json).sort(),
			status: i.json.status,
			model: i.json.model,
			binary: Object.keys(i.binary ?? {}).sort(),
		}));
	}
	return out;
}

/**
 * What an upgrade must keep: the same items, statuses, models and files, and every field a workflow may read. A new
 * version may add fields (such as createdDate beside createdAt), never drop or rename one.
 */
function expectKeptAcrossUpgrade(after: RunSummary, before: RunSummary): void {
	expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
	for (const [node, items] of Object.entries(before)) {
		const rest = (list: ItemSummary[]) => list.map((i) => ({ status: i.status, model: i.model, binary: i.binary }));
		expect(rest(after[node])).toEqual(rest(items));
		items.forEach((item, i) => expect(after[node][i].keys).toEqual(expect.arrayContaining(item.keys)));
	}
}

/** Nodes of a saved workflow that the editor marks with parameter or credential issues. */
async function nodesWithIssues(page: Page, base: string, workflowId: string): Promise<string[]> {
	await page.goto(`${base}/workflow/${workflowId}`);
	await page.locator('[data-test-id="canvas-node"]').first().waitFor();
	await page.waitForLoadState('networkidle');
	const flagged = page.locator('[data-test-id="canvas-node"]').filter({
		has: page.locator('[data-test-id="node-issues"], [data-test-id="canvas-node-status-issues"]'),
	});
	return await flagged.allInnerTexts();
}

describe.each(N8N_VERSIONS)('n8n %s', (version) => {
	it(`installs ${PREVIOUS_VERSION} through Settings → Community Nodes, updates it to ${CURRENT_VERSION} with the Update button, and uninstalls it`, async () => {
		const at = await startEmptyN8n(world(), version);
		const page = await ownerPage(world(), at);
		const shots = version === N8N_MAIN_VERSION;

		try {
			expect(await installedPackages(at)).toEqual([]);

			// The dialog: package name, the risk checkbox (Install stays disabled until it is ticked).
			await page.goto(`${at.base}/settings/community-nodes`);
			await page
				.getByRole('button', { name: /Install/ })
				.first()
				.click();
			const dialog = page.getByRole('dialog').filter({ has: page.locator('[data-test-id="package-name-input"]') });
			await dialog.waitFor();
			const nameInput = dialog.locator(
				'[data-test-id="package-name-input"] input, input[data-test-id="package-name-input"]',
			);
			await nameInput.first().fill(`${PACKAGE}@${PREVIOUS_VERSION}`);
			const install = dialog.locator('[data-test-id="install-community-package-button"]');
			expect(await install.isDisabled()).toBe(true);
			await dialog.locator('[data-test-id="user-agreement-checkbox"]').click();
			expect(await install.isDisabled()).toBe(false);
			if (shots) await dialog.screenshot({ path: path.join(SCREENSHOTS, 'install-dialog.png') });
			await install.click();

			// The installed list: the card names the package, its version and both nodes; a newer version is offered.
			await card(page)
				.filter({ hasText: `v${PREVIOUS_VERSION}` })
				.waitFor({ timeout: 180_000 });
			const listed = (await installedPackages(at)).find((p) => p.packageName === PACKAGE)!;
			expect(listed.installedVersion).toBe(PREVIOUS_VERSION);
			expect(listed.updateAvailable).toBe(CURRENT_VERSION);
			expect(listed.installedNodes.map((n) => n.type).sort()).toEqual([
				`${TYPE_PREFIX}mediaGen`,
				`${TYPE_PREFIX}mediaGenTrigger`,
			]);
			const cardText = await card(page).innerText();
			expect(cardText).toContain('Media Generation');
			expect(cardText).toContain('Media Generation Trigger');
			const update = card(page).getByRole('button', { name: 'Update' });
			await update.waitFor();
			if (shots) await page.screenshot({ path: path.join(SCREENSHOTS, 'installed-list.png') });

			// The nodes panel offers the installed nodes.
			expect(await nodeTypeNames(at)).toEqual(expect.arrayContaining([`${TYPE_PREFIX}mediaGen`]));
			await page.goto(`${at.base}/workflow/new`);
			await page.locator('[data-test-id="canvas-add-button"]').click();
			await page.locator('[data-test-id="node-creator-search-bar"]').first().fill('Media Generation');
			const entry = page
				.locator('[data-test-id="node-creator"] [data-test-id="node-creator-item-name"]')
				.getByText('Media Generation', { exact: true });
			await entry.first().waitFor();

			// Saved before the upgrade: three credentials, four examples; two run.
			const setup = await saveCredentialsAndExamples(world(), at, SAVED);
			const before: Record<string, RunSummary> = {};
			for (const name of RUN) before[name] = await runSummary(at, setup.workflowIds[name]);
			// The sandbox is shared by this file's tests: count the charges of this test's account.
			const charges = () =>
				world().sandbox.engine.ledger.filter((l) => l.reason === 'charge' && l.ownerId === setup.accountId).length;
			const chargedBefore = charges();

			// The Update button and its confirmation.
			await page.goto(`${at.base}/settings/community-nodes`);
			await card(page).getByRole('button', { name: 'Update' }).click();
			await page.getByRole('button', { name: 'Confirm update' }).click();
			await card(page)
				.filter({ hasText: `v${CURRENT_VERSION}` })
				.waitFor({ timeout: 180_000 });
			const updated = (await installedPackages(at)).find((p) => p.packageName === PACKAGE)!;
			expect(updated.installedVersion).toBe(CURRENT_VERSION);
			expect(updated.updateAvailable).toBeUndefined();

			// Same results, every credential valid, no parameter issues.
			for (const name of RUN) expectKeptAcrossUpgrade(await runSummary(at, setup.workflowIds[name]), before[name]);
			expect(chargedBefore).toBeGreaterThan(0);
			expect(charges()).toBe(2 * chargedBefore); // the same runs, each charged once again
			expect(await credentialWorks(at, setup.credentialIds.apiKey)).toMatchObject({ status: 'OK' });
			expect(await credentialWorks(at, setup.credentialIds.anonymous)).toMatchObject({ status: 'OK' });
			const { data: webhook } = await (
				await fetch(`${at.base}/rest/credentials/${setup.credentialIds.webhook}?includeData=true`, {
					headers: { cookie: at.cookie },
				})
			).json();
			// The webhook credential has no test request: it is still of its type, its secret still stored (n8n
			// returns it masked).
			expect(webhook.type).toBe('mediaGenWebhookApi');
			expect(typeof webhook.data.secret === 'string' && webhook.data.secret.length > 0).toBe(true);
			for (const name of SAVED) expect(await nodesWithIssues(page, at.base, setup.workflowIds[name])).toEqual([]);

			// Uninstall through the card's menu and its confirmation.
			await page.goto(`${at.base}/settings/community-nodes`);
			await card(page).locator('[data-test-id="action-toggle"], .action-toggle').first().click();
			await page
				.getByText(/Uninstall/)
				.last()
				.click();
			const confirm = page.getByRole('button', { name: 'Confirm uninstall' });
			await confirm.waitFor();
			const warning = await page.getByRole('dialog').last().innerText();
			await confirm.click();
			await card(page).waitFor({ state: 'detached', timeout: 120_000 });
			expect(await installedPackages(at)).toEqual([]);
			expect(await nodeTypeNames(at)).not.toContain(`${TYPE_PREFIX}mediaGen`);

			// What becomes of a workflow that uses the node: it stays saved; running it fails on the missing type.
			const failure = await n8nCli(at.n8n, ['execute', `--id=${setup.workflowIds[RUN[0]]}`]).then(
				(out) => `ran: ${out}`,
				(error: { stdout?: string; message: string }) => `${error.stdout ?? ''}\n${error.message}`,
			);
			console.log(`n8n ${version}, uninstall warning:\n${warning}\nrunning example 01 afterwards:\n${failure}`);
			expect(failure).toContain(`Unrecognized node type: ${TYPE_PREFIX}mediaGen`);
			const kept = await (
				await fetch(`${at.base}/rest/workflows/${setup.workflowIds[RUN[0]]}`, { headers: { cookie: at.cookie } })
			).json();
			expect(kept.data.nodes.map((n: { type: string }) => n.type)).toContain(`${TYPE_PREFIX}mediaGen`);
		} finally {
			await page.close();
			await at.stop();
		}
	});
});
