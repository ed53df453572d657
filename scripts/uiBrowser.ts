/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The browser for the editor tests: Debian's chromium driven by playwright-core (Playwright's own
// browser download cannot work here). Installs chromium with apt-get when it is missing (CI runs as root).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.MEDIAGEN_CHROMIUM ?? '/usr/bin/chromium';

export function ensureChromium(): string {
	if (existsSync(CHROMIUM)) return CHROMIUM;
	console.log(`${CHROMIUM} is missing: installing Debian's chromium with apt-get (a few minutes)…`);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
	execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env });
	if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium, but ${CHROMIUM} is still missing`);
	return CHROMIUM;
}

/**
 * One headless chromium with a fresh profile (playwright-core passes it as --user-data-dir) and a
 * 1280×800 window. Close the context to stop the browser.
 */
export async function launchBrowser(): Promise<BrowserContext> {
	const executablePath = ensureChromium();
	const profile = mkdtempSync(path.join(os.tmpdir(), 'mediagen-chromium-'));
	return await chromium.launchPersistentContext(profile, {
		executablePath,
		headless: true,
		viewport: { width: 1280, height: 800 },
		deviceScaleFactor: 1,
		args: [
			'--headless=new',
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
		],
	});
}
