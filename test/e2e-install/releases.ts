/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The two releases the install tests publish to the local registry: the previous one, built from the commit
// scripts/previous-release.env names (a `git archive` of it, built with this checkout's node_modules), and
// this checkout; each built as the publish workflow builds it (`npm run build`, then `npm publish` in the folder).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { readEnvFile, REPO } from '../../scripts/realN8n';

export const PACKAGE = 'n8n-nodes-mediagen';
const previous = readEnvFile('previous-release.env');
export const PREVIOUS_VERSION = previous.PREVIOUS_RELEASE_VERSION;
export const PREVIOUS_COMMIT = previous.PREVIOUS_RELEASE_COMMIT;
export const CURRENT_VERSION = (
	JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }
).version;

function run(cwd: string, command: string, args: string[]): void {
	try {
		execFileSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
	} catch (error) {
		const e = error as { stdout?: Buffer; stderr?: Buffer };
		throw new Error(`${command} ${args.join(' ')} in ${cwd} failed:\n${String(e.stdout)}\n${String(e.stderr)}`);
	}
}

/** Builds a source folder with this checkout's node_modules (tsc, gulp: the same devDependencies, none shipped). */
function build(dir: string): void {
	symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'));
	run(dir, 'npm', ['run', 'build']);
}

/**
 * This checkout (its tracked and new files) copied and built in a temp folder, so that building it never
 * rewrites the dist/ another suite is loading; remove the folder when done.
 */
export function currentRelease(): string {
	const dir = mkdtempSync(path.join(os.tmpdir(), `mediagen-release-${CURRENT_VERSION}-`));
	const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO });
	for (const file of listed.toString().split('\0').filter(Boolean)) {
		if (!existsSync(path.join(REPO, file))) continue; // deleted, not yet committed
		mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
		copyFileSync(path.join(REPO, file), path.join(dir, file));
	}
	build(dir);
	return dir;
}

/** The previous release's source at its commit, built; remove the folder when done. */
export function previousRelease(): string {
	try {
		execFileSync('git', ['cat-file', '-e', `${PREVIOUS_COMMIT}^{commit}`], { cwd: REPO, stdio: 'ignore' });
	} catch {
		throw new Error(
			`Commit ${PREVIOUS_COMMIT} (release ${PREVIOUS_VERSION}, scripts/previous-release.env) is not in this ` +
				'clone: fetch the full history (git fetch --unshallow) to run the upgrade test',
		);
	}
	const dir = mkdtempSync(path.join(os.tmpdir(), `mediagen-release-${PREVIOUS_VERSION}-`));
	execFileSync('bash', ['-c', `git archive "${PREVIOUS_COMMIT}" | tar -x -C "${dir}"`], { cwd: REPO });
	const { version } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string };
	if (version !== PREVIOUS_VERSION) {
		rmSync(dir, { recursive: true, force: true });
		throw new Error(`Commit ${PREVIOUS_COMMIT} holds version ${version}, not ${PREVIOUS_VERSION}`);
	}
	build(dir);
	return dir;
}
