/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Driving n8n's editor as a person does: sign in, open a workflow, open a node, pick from dropdowns,
// read what the panels show. Selectors are n8n's own data-test-id attributes (editor-ui 2.40.7).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Locator, Page, Request } from 'playwright-core';

import { CUSTOM_PREFIX, REPO } from '../../scripts/realN8n';
import { launchBrowser } from '../../scripts/uiBrowser';
import { startDev, type DevStack } from '../../scripts/uiDev';
import { manualStart, SANDBOX_KEY } from '../e2e/shared';
import { until } from '../helpers/until';

export const SCREENSHOTS = path.join(REPO, 'docs/screenshots');

/** The REST API with the owner's session, for setting up scratch workflows and credentials. */
export async function restSession(dev: DevStack) {
	const login = await fetch(`${dev.editorUrl}/rest/login`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ emailOrLdapLoginId: dev.email, password: dev.password }),
	});
	if (!login.ok) throw new Error(`n8n login: HTTP ${login.status}`);
	const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
	return async <T>(p: string, init: RequestInit = {}): Promise<T> => {
		const res = await fetch(`${dev.editorUrl}${p}`, {
			...init,
			headers: { cookie, 'content-type': 'application/json', 'browser-id': 'ui-tests', ...(init.headers ?? {}) },
		});
		const text = await res.text();
		if (!res.ok) throw new Error(`n8n ${p}: HTTP ${res.status} ${text.slice(0, 500)}`);
		return (JSON.parse(text) as { data: T }).data;
	};
}

/** What each editor test file starts from: `npm run dev`, a chromium page, the driver and a REST session. */
export interface EditorSession {
	dev: DevStack;
	browser: BrowserContext;
	page: Page;
	ed: Editor;
	rest: Awaited<ReturnType<typeof restSession>>;
	close(): Promise<void>;
}

async function openEditorSession(): Promise<EditorSession> {
	const dev = await startDev();
	const browser = await launchBrowser();
	const page = browser.pages()[0] ?? (await browser.newPage());
	page.setDefaultTimeout(30_000);
	const close = async () => {
		await browser.close();
		await dev.stop();
	};
	return { dev, browser, page, ed: new Editor(page, dev), rest: await restSession(dev), close };
}

/**
 * A test file's editor session: opened before its first test (`ready` gets it first, to keep its parts and make
 * workflows over REST), then signed in with the login `npm run dev` printed; closed after the file's last test.
 */
export function useEditorSession(ready: (session: EditorSession) => unknown): void {
	let session: EditorSession | undefined;
	beforeAll(async () => {
		session = await openEditorSession();
		await ready(session);
		await session.ed.signIn();
	}, 20 * 60_000);
	afterAll(async () => await session?.close());
}

/** The sandbox account's credits, as the service tells them. */
export async function creditsLeft(dev: DevStack): Promise<number> {
	const res = await fetch(`${dev.apiBase}/me`, { headers: { authorization: `Bearer ${dev.apiKey}` } });
	return ((await res.json()) as { credits: number }).credits;
}

type Rest = EditorSession['rest'];

/** A workflow (nodes, connections, settings, pinned data) saved through n8n's REST API; its ID. */
export async function createWorkflow(
	rest: Rest,
	workflow: { name?: unknown; nodes?: unknown; connections?: unknown; settings?: unknown; pinData?: unknown },
): Promise<string> {
	const { name, nodes, connections, settings, pinData } = workflow;
	const body = JSON.stringify({ name, nodes, connections, settings, pinData });
	return (await rest<{ id: string }>('/rest/workflows', { method: 'POST', body })).id;
}

/** One node of ours in a scratch workflow: the action node unless `type` names another (e.g. 'mediaGenTool'). */
export interface ScratchNode {
	name: string;
	parameters: Record<string, unknown>;
	type?: string;
	credentials?: object;
	/** Node settings beside its parameters (onError, …). */
	settings?: Record<string, unknown>;
	/** What Start's output is pinned to, one item each. */
	pinned?: Array<Record<string, unknown>>;
}

/** A workflow "UI test: <name>": Start → the node (a tool hangs from nothing), saved over REST; its ID. */
export async function scratchWorkflow(rest: Rest, node: ScratchNode): Promise<string> {
	const { name, parameters, type = 'mediaGen', credentials = SANDBOX_KEY, settings = {}, pinned } = node;
	const ours = { id: 'gen', name, type: `${CUSTOM_PREFIX}${type}`, typeVersion: 1, position: [240, 0] };
	return await createWorkflow(rest, {
		name: `UI test: ${name}`,
		nodes: [manualStart(), { ...ours, parameters, credentials, ...settings }],
		connections: type.endsWith('Tool') ? {} : { Start: { main: [[{ node: name, type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
		pinData: pinned && { Start: pinned.map((json) => ({ json })) },
	});
}

export class Editor {
	/** The editor's requests to n8n still without an answer (the push connection, which stays open, aside). */
	private readonly inFlight = new Set<Request>();

	constructor(
		readonly page: Page,
		readonly dev: DevStack,
	) {
		// n8n 2.x saves as you go; a leave-page prompt would only block the next navigation.
		page.on('dialog', (d) => void d.accept().catch(() => undefined));
		page.on('request', (r) => {
			if (r.url().startsWith(dev.editorUrl) && !r.url().includes('/rest/push')) this.inFlight.add(r);
		});
		page.on('requestfinished', (r) => this.inFlight.delete(r));
		page.on('requestfailed', (r) => this.inFlight.delete(r));
	}

	async signIn(email = this.dev.email, password = this.dev.password): Promise<void> {
		await this.page.goto(`${this.dev.editorUrl}/signin`);
		await this.page.locator('[data-test-id="emailOrLdapLoginId"] input').fill(email);
		await this.page.locator('[data-test-id="password"] input').fill(password);
		await this.page.locator('[data-test-id="form-submit-button"]').click();
		await this.page.waitForURL(/\/(home|workflows)/, { timeout: 60_000 });
	}

	async openWorkflow(id: string): Promise<void> {
		await this.page.goto(`${this.dev.editorUrl}/workflow/${id}`);
		await this.page.locator('[data-test-id="canvas-node"]').first().waitFor();
		await this.page.waitForLoadState('networkidle');
	}

	/** A new, empty workflow on the canvas. */
	async newWorkflow(): Promise<void> {
		await this.page.goto(`${this.dev.editorUrl}/workflow/new`);
		await this.page.locator('[data-test-id="canvas-add-button"]').waitFor();
		await this.page.waitForLoadState('networkidle');
	}

	/** A new workflow with a Manual Trigger added as a person does, and the nodes panel open for the next step. */
	async newWorkflowFromManualTrigger(): Promise<void> {
		await this.newWorkflow();
		await this.page.locator('[data-test-id="canvas-add-button"]').click();
		await this.searchNodes('manual', 'Trigger manually');
		await this.clickNodesPanelEntry('Trigger manually');
		await this.page.locator('[data-test-id="canvas-node"]').first().waitFor();
		await this.page.keyboard.press('Escape');
		await this.page.locator('[data-test-id="canvas-handle-plus"]').first().click();
	}

	/** n8n's nodes panel, open and searched: waits for the entry named `expect` and returns its description. */
	async searchNodes(query: string, expect: string): Promise<string> {
		const input = this.page.locator('[data-test-id="node-creator-search-bar"]').first();
		await input.fill(query);
		const entry = this.page
			.locator('[data-test-id="node-creator"] [data-test-id="item-iterator-item"]')
			.filter({ has: this.page.locator('[data-test-id="node-creator-item-name"]').getByText(expect, { exact: true }) })
			.first();
		await entry.waitFor();
		return (await entry.locator('[data-test-id="node-creator-item-description"]').innerText()).trim();
	}

	/**
	 * Clicks an entry of the open nodes panel by its exact name (the caller waits for what it opens). The panel
	 * re-renders its list while a search settles and slides while it opens, so a click that meets a detached or
	 * moving entry is tried again on the entry as it is then, until one lands (a click that throws was not made).
	 */
	async clickNodesPanelEntry(name: string, ms = 60_000): Promise<void> {
		const entry = this.page
			.locator('[data-test-id="node-creator"] [data-test-id="node-creator-item-name"]')
			.getByText(name, { exact: true })
			.first();
		for (const deadline = Date.now() + ms; ; ) {
			try {
				await entry.click({ timeout: 5_000 });
				return;
			} catch (error) {
				if (Date.now() > deadline) throw error;
			}
		}
	}

	canvasNode(name: string): Locator {
		return this.page.locator('[data-test-id="canvas-node"]').filter({ hasText: name });
	}

	get ndv(): Locator {
		return this.page.locator('[data-test-id="ndv"]');
	}

	get parameters(): Locator {
		return this.page.locator('[data-test-id="node-parameters"]');
	}

	async openNode(name: string): Promise<void> {
		await this.canvasNode(name).dblclick();
		await this.parameters.waitFor();
		await this.settle();
	}

	async closeNode(): Promise<void> {
		await this.page.locator('[data-test-id="ndv-close-button"]').click();
		await this.ndv.waitFor({ state: 'hidden' });
	}

	/**
	 * Waits until the editor is quiet: two frames drawn since the last action (a change starts its loads on the
	 * next tick), no request to n8n in flight, and no list, options field or dropdown showing it is loading.
	 */
	async settle(): Promise<void> {
		const loading = this.page
			.locator('.resource-list-loading:visible, .loading-row:visible, .el-loading-mask:visible')
			.or(this.page.getByText(/^(Fetching \w+|Loading options\.\.\.)$/).filter({ visible: true }));
		const quiet = async () => {
			await this.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
			return this.inFlight.size === 0 && (await loading.count()) === 0;
		};
		if (!(await this.until(quiet, (q) => q, 30_000))) {
			const urls = [...this.inFlight].map((r) => r.url().replace(this.dev.editorUrl, ''));
			throw new Error(`The editor was still loading after 30 s (requests in flight: ${urls.join(', ') || 'none'})`);
		}
	}

	param(name: string): Locator {
		return this.parameters.locator(`[data-test-id="parameter-input-${name}"]`).first();
	}

	/** The value an input or select shows (for a model or app locator: the picked entry). */
	async valueOf(name: string): Promise<string> {
		const field = this.param(name);
		const locator = field.locator('[data-test-id="rlc-input"]');
		if (await locator.count()) return await locator.first().inputValue();
		return await field.locator('input, textarea').first().inputValue();
	}

	/** Opens a dropdown (options parameter) and returns its entries' titles, first lines only. */
	async entries(name: string): Promise<string[]> {
		await this.param(name).click();
		const items = this.page.locator('.el-select-dropdown__item:visible, [role="option"]:visible');
		await items.first().waitFor();
		const texts = (await items.allInnerTexts()).map((t) => t.split('\n')[0].trim());
		await this.page.keyboard.press('Escape');
		await items.first().waitFor({ state: 'hidden' }); // the next dropdown must not be confused with this one
		return texts;
	}

	/** Picks the dropdown entry whose title (first line; descriptions follow it) is `entry`. */
	async pick(name: string, entry: string): Promise<void> {
		await this.param(name).click();
		const items = this.page.locator('.el-select-dropdown__item:visible');
		await items.first().waitFor();
		const titles = (await items.allInnerTexts()).map((t) => t.split('\n')[0].trim());
		const index = titles.indexOf(entry);
		if (index < 0) throw new Error(`"${entry}" is not among the entries of ${name}: ${titles.join(', ')}`);
		await items.nth(index).click();
		await this.settle();
	}

	/** Opens the model (or app) list and returns what it shows, optionally after typing a search. */
	async locatorList(search?: string): Promise<string[]> {
		if (await this.page.locator('input[data-test-id="rlc-search"]:visible').count())
			await this.page.keyboard.press('Escape');
		await this.parameters.locator('[data-test-id="rlc-input"]').first().click();
		if (search !== undefined) await this.page.locator('input[data-test-id="rlc-search"]:visible').fill(search);
		const items = this.page.locator('[data-test-id="rlc-item"]');
		await this.settle();
		// The first opening of a list waits for the catalogue, and a search is sent after a pause in the typing
		// (or answered from the editor's cache): read until the list shows entries, each matching the search.
		const shown = async () => (await items.allInnerTexts()).map((t) => t.trim());
		const needle = search?.toLowerCase() ?? '';
		return await this.until(shown, (texts) => texts.length > 0 && texts.every((t) => t.toLowerCase().includes(needle)));
	}

	async pickFromList(name: string, search = name.split(' (')[0]): Promise<void> {
		await this.locatorList(search);
		await this.page.locator('[data-test-id="rlc-item"]').filter({ hasText: name }).first().click();
		await this.settle();
	}

	/** The text of the resource-locator dropdown (items or its error view). */
	async locatorDropdownText(): Promise<string> {
		const error = this.page.locator('[data-test-id="rlc-error-container"]');
		if (await error.count()) return (await error.innerText()).trim();
		return (await this.page.locator('[data-test-id="rlc-item"]').allInnerTexts()).join('\n');
	}

	/** The resource mapper boxes of the panel: [About the Model, Options]. */
	mappers(): Locator {
		return this.parameters.locator('[data-test-id="resource-mapper-container"]');
	}

	async aboutText(): Promise<string> {
		return (await this.mappers().nth(0).innerText()).trim();
	}

	async optionsText(): Promise<string> {
		return (await this.mappers().nth(1).innerText()).trim();
	}

	/** Polls until `read` gives a value `ok` accepts (a panel still loading), or returns the last value. */
	async until<T>(read: () => Promise<T>, ok: (value: T) => boolean, ms = 15_000): Promise<T> {
		// Past `ms` the probe itself ends the wait: the caller's expect then shows the last value, which says more
		// than a timeout would.
		const deadline = Date.now() + ms;
		let value: T;
		await until(async () => ok((value = await read())) || Date.now() > deadline, 'the editor', ms + 60_000, 250);
		return value!;
	}

	/** The labels of the Options box's fields once it has loaded, or [] when it shows a notice. */
	async options(expectedCount: number): Promise<string[]> {
		return await this.until(
			() => this.optionLabels(),
			(v) => v.length === expectedCount,
		);
	}

	/** The labels of the Options box's fields, in order. */
	async optionLabels(): Promise<string[]> {
		const labels = this.mappers().nth(1).locator('.parameter-item [data-test-id="input-label"]');
		return (await labels.allInnerTexts()).map((t) => t.split('\n')[0].trim());
	}

	/** Labels of the open panel whose text does not fit (n8n cuts them with "…"). */
	async cutLabels(): Promise<string[]> {
		return await this.parameters.evaluate((root) =>
			Array.from(root.querySelectorAll('[data-test-id="input-label"] label span'))
				.filter(
					(el) =>
						(el as HTMLElement).scrollWidth > (el as HTMLElement).clientWidth + 1 ||
						(el.parentElement && el.parentElement.scrollWidth > el.parentElement.clientWidth + 1),
				)
				.map((el) => (el.textContent ?? '').trim()),
		);
	}

	/** The panel's labels from the top, credential boxes included (each shows as "Credential"). */
	async fieldOrder(): Promise<string[]> {
		const labels = this.parameters.locator('[data-test-id="credentials-label"], [data-test-id="input-label"] label');
		return (await labels.allInnerTexts()).map((t) => t.split('\n')[0].trim());
	}

	async labels(): Promise<string[]> {
		return (await this.parameters.locator('[data-test-id="input-label"] label').allInnerTexts()).map((t) =>
			t.split('\n')[0].trim(),
		);
	}

	/** Adds a field of an "Additional Fields" collection, or lists what it offers. */
	async collectionOffers(index = 0): Promise<string[]> {
		await this.parameters.locator('[data-test-id="collection-parameter-add"]').nth(index).click();
		const items = this.page.locator(
			'[data-test-id="collection-parameter-option"]:visible, .el-select-dropdown__item:visible',
		);
		await items.first().waitFor();
		const texts = (await items.allInnerTexts()).map((t) => t.trim());
		await this.page.keyboard.press('Escape');
		await items.first().waitFor({ state: 'hidden' }); // a list left open would take the next test's clicks
		return texts;
	}

	/**
	 * A picture of the parameters column, scrolled so that `top` (a parameter name, or "credentials" for the
	 * credential boxes at the head of the panel) is its first field.
	 */
	async shotPanel(name: string, top: string): Promise<string> {
		const first =
			top === 'credentials'
				? this.parameters.locator('[data-test-id="node-credentials-slot"]').first()
				: this.param(top);
		await first.evaluate(
			(el) =>
				el.closest('.parameter-item, [data-test-id="parameter-item"]')?.scrollIntoView({ block: 'start' }) ??
				el.scrollIntoView({ block: 'start' }),
		);
		await this.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
		const box = (await this.parameters.boundingBox())!;
		const viewport = this.page.viewportSize()!;
		return await this.shot(name, undefined, {
			x: box.x - 16,
			y: 60,
			width: box.width + 32,
			height: viewport.height - 100,
		});
	}

	async shot(
		name: string,
		target?: Locator,
		clip?: { x: number; y: number; width: number; height: number },
	): Promise<string> {
		mkdirSync(SCREENSHOTS, { recursive: true });
		const file = path.join(SCREENSHOTS, `${name}.png`);
		await this.page.mouse.move(2, 790); // no hover effects in the picture: let their transitions end
		await this.page.evaluate(() =>
			Promise.all(
				document
					.getAnimations()
					.filter((a) => a.effect?.getComputedTiming().iterations !== Infinity)
					.map((a) => a.finished.catch(() => undefined)),
			),
		);
		if (target) await target.screenshot({ path: file, animations: 'disabled' });
		else await this.page.screenshot({ path: file, clip, animations: 'disabled' });
		return file;
	}
}

/** The help tooltip of a labelled field (n8n shows it on hovering the label's "?" icon). */
export async function helpOf(page: Page, scope: Locator, label: string): Promise<string> {
	const row = scope.locator('label.n8n-input-label').filter({ hasText: label }).first();
	const tip = page.locator('[data-test-id="tooltip-content"]:visible').last();
	for (let attempt = 1; ; attempt++) {
		await page.mouse.move(2, 790);
		await row.hover();
		await row.locator('[class*="_infoIcon_"] > span').first().hover();
		try {
			await tip.waitFor({ timeout: 4000 });
			const text = (await tip.innerText()).trim();
			await page.mouse.move(2, 790);
			return text;
		} catch (error) {
			if (attempt === 3) throw error; // a dialog still fading in or out can swallow the first hover
		}
	}
}
