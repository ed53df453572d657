/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// n8n's verification scan, run locally: @n8n/scan-community-package's own analyzer (analyzePackage and the
// ESLint config it builds) on the two legs it lints for a published version: the source files it takes from
// the attested commit (SOURCE_FILE_PATTERNS) and the unpacked `npm pack` tarball (compiled .js and
// package.json). Prints every finding, warnings included (the analyzer's verdict shows them only beside an
// error); passes when the only one is the author's missing e-mail, which a maintainer sets before publishing.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import { createRequire } from 'module';
import * as os from 'os';
import * as path from 'path';

import { describeFinding, type Finding, findingsFromResults, isMissingAuthorEmail } from './findings';
import { authorEmail } from './readiness';

// The tarball leg's patterns, as analyzePackageByName passes them.
const TARBALL_PATTERNS = ['**/*.js', 'package.json'];

type Scanner = typeof import('@n8n/scan-community-package/scanner/scanner.mjs');

const root = path.resolve(__dirname, '../..');
const SCANNER = '@n8n/scan-community-package/scanner/scanner.mjs';
// ESLint and fast-glob as the scanner resolves them, not whatever copies this repo hoists.
const scannerRequire = createRequire(require.resolve(SCANNER));

/** Lints as analyzePackage does (same config, options and file list) but keeps the findings. */
async function lintLikeTheAnalyzer(scanner: Scanner, dir: string, patterns: string[]) {
	const { ESLint } = scannerRequire('eslint') as typeof import('eslint');
	const glob = scannerRequire('fast-glob') as typeof import('fast-glob');
	const eslint = new ESLint({
		cwd: dir,
		allowInlineConfig: false,
		overrideConfigFile: true,
		overrideConfig: (await scanner.buildScanConfig()) as never,
	});
	const files = glob.sync(patterns, { cwd: dir, absolute: true, ignore: ['node_modules/**', '**/package-lock.json'] });
	return { files: files.length, findings: findingsFromResults(await eslint.lintFiles(files), dir) };
}

async function scanLeg(scanner: Scanner, name: string, dir: string, patterns: string[]): Promise<Finding[]> {
	const verdict = await scanner.analyzePackage(dir, patterns);
	const { files, findings } = await lintLikeTheAnalyzer(scanner, dir, patterns);
	const hasError = findings.some((finding) => finding.severity === 'error');
	const outcome = verdict.passed ? 'passed' : `failed (${verdict.message})`;
	console.log(`${name}: ${files} files, analyzer ${outcome}, ${findings.length} finding(s)`);
	if (files < 2) throw new Error(`${name}: only ${files} file(s) to scan; is the package built?`);
	if (verdict.passed === hasError) {
		throw new Error(`${name}: the analyzer's verdict and the findings disagree; update this script to the scanner.`);
	}
	return findings.map((finding) => ({ ...finding, file: `${name}/${finding.file}` }));
}

/** `npm pack` with scripts on (prepack builds dist/; .npmrc turns scripts off for npm ci), then unpacked. */
function packAndUnpack(): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'verify-community-'));
	execFileSync('npm', ['pack', '--ignore-scripts=false', '--loglevel=warn', '--pack-destination', dir], {
		cwd: root,
		stdio: ['ignore', 'ignore', 'inherit'],
	});
	const tarball = fs.readdirSync(dir).find((file) => file.endsWith('.tgz'));
	if (!tarball) throw new Error('npm pack wrote no tarball');
	const unpacked = path.join(dir, 'package');
	fs.mkdirSync(unpacked);
	execFileSync('tar', ['-xzf', path.join(dir, tarball), '-C', unpacked, '--strip-components=1']);
	return unpacked;
}

async function main(): Promise<number> {
	const scanner: Scanner = await import(SCANNER);
	const tarballDir = packAndUnpack();
	try {
		const findings = [
			...(await scanLeg(scanner, 'source', root, scanner.SOURCE_FILE_PATTERNS)),
			...(await scanLeg(scanner, 'tarball', tarballDir, TARBALL_PATTERNS)),
		];
		const emailIsSet = authorEmail(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))) !== '';
		for (const finding of findings) console.log(describeFinding(finding, emailIsSet));
		const unexpected = findings.filter((finding) => !isMissingAuthorEmail(finding, emailIsSet));
		if (unexpected.length > 0) {
			console.error(`verify:community: ${unexpected.length} finding(s) besides the author e-mail: fix them.`);
			return 1;
		}
		console.log(
			findings.length === 0
				? 'verify:community: no findings.'
				: 'verify:community: only the author e-mail is missing (CONTRIBUTING.md, Publishing).',
		);
		return 0;
	} finally {
		fs.rmSync(path.dirname(tarballDir), { recursive: true, force: true });
	}
}

main().then(
	(code) => (process.exitCode = code),
	(error) => {
		console.error(error);
		process.exitCode = 1;
	},
);
