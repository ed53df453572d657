/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// The package as users install it: `npm pack` (prepack builds), then the tarball laid out in
// `<N8N_USER_FOLDER>/.n8n/nodes` the way n8n's Community Nodes installer does it
// (n8n 2.40.7, packages/cli/src/modules/community-packages/community-packages.service.ts,
// downloadPackage): unpack into `nodes/node_modules/<name>`, drop dev/peer/optional dependencies
// from its package.json, `npm install` its (here: no) dependencies with scripts off, and record
// it in `nodes/package.json`. At start-up n8n scans `nodes/node_modules/n8n-nodes-*`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const REPO = path.resolve(__dirname, '..');
export const PACKAGE_NAME = 'n8n-nodes-mediagen';

let packed: string | undefined;

/**
 * The tarball `npm pack` makes of this repo. `MEDIAGEN_TARBALL` names one made earlier (the e2e
 * script packs once for every n8n version); otherwise it is packed now, once per process.
 */
export function packTarball(): string {
	const given = process.env.MEDIAGEN_TARBALL;
	if (given && existsSync(given)) return given;
	if (packed && existsSync(packed)) return packed;
	const dir = mkdtempSync(path.join(os.tmpdir(), 'mediagen-pack-'));
	try {
		// .npmrc sets ignore-scripts=true (for `npm ci`), which would skip prepack and pack no dist/
		execFileSync('npm', ['pack', '--ignore-scripts=false', '--pack-destination', dir], {
			cwd: REPO,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
	} catch (error) {
		const e = error as { stdout?: Buffer; stderr?: Buffer };
		throw new Error(`npm pack failed:\n${String(e.stdout ?? '').slice(-3000)}\n${String(e.stderr ?? '').slice(-3000)}`);
	}
	const file = readdirSync(dir).find((f) => f.endsWith('.tgz'));
	if (!file) throw new Error(`npm pack left no tarball in ${dir}`);
	const listing = execFileSync('tar', ['-tzf', path.join(dir, file)], { encoding: 'utf8' });
	if (!listing.includes('package/dist/nodes/MediaGen/MediaGen.node.js')) {
		throw new Error(`The tarball ${file} holds no built node:\n${listing}`);
	}
	packed = path.join(dir, file);
	return packed;
}

/** Installs the tarball into `<userFolder>/.n8n/nodes` as n8n's installer does; returns the package folder. */
export function installCommunityPackage(userFolder: string, tarball = packTarball()): string {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const pkgDir = path.join(nodesDir, 'node_modules', PACKAGE_NAME);
	rmSync(pkgDir, { recursive: true, force: true });
	mkdirSync(pkgDir, { recursive: true });
	execFileSync('tar', ['-xzf', tarball, '-C', pkgDir, '--strip-components=1']);
	const pkgJsonPath = path.join(pkgDir, 'package.json');
	const { devDependencies, peerDependencies, optionalDependencies, ...pkgJson } = JSON.parse(
		readFileSync(pkgJsonPath, 'utf8'),
	) as Record<string, unknown> & { version: string };
	void devDependencies;
	void peerDependencies;
	void optionalDependencies;
	writeFileSync(pkgJsonPath, JSON.stringify(pkgJson, null, 2));
	execFileSync(
		'npm',
		[
			'install',
			'--audit=false',
			'--fund=false',
			'--bin-links=false',
			'--install-strategy=shallow',
			'--ignore-scripts=true',
			'--package-lock=false',
		],
		{ cwd: pkgDir, stdio: ['ignore', 'ignore', 'inherit'] },
	);
	const ledgerPath = path.join(nodesDir, 'package.json');
	const ledger = existsSync(ledgerPath)
		? (JSON.parse(readFileSync(ledgerPath, 'utf8')) as { dependencies?: Record<string, string> })
		: { name: 'installed-nodes', private: true, dependencies: {} };
	ledger.dependencies = { ...ledger.dependencies, [PACKAGE_NAME]: pkgJson.version };
	writeFileSync(ledgerPath, JSON.stringify(ledger, null, 2));
	return pkgDir;
}
