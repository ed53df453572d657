/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Lint findings from n8n's community-package rules, and the one finding the repo expects while the author's
// e-mail is unset: it is the maintainer's to fill in (CONTRIBUTING.md, Publishing), every other finding is a defect.
import * as path from 'path';

export interface Finding {
	file: string;
	line: number;
	column: number;
	severity: 'error' | 'warning';
	ruleId: string;
	message: string;
}

export const AUTHOR_EMAIL_RULE = '@n8n/community-nodes/valid-author';
// Worded with or without a final stop, depending on the plugin's version.
const AUTHOR_EMAIL_MESSAGE = 'The "author" field must include a non-empty email';

interface LintResultLike {
	filePath: string;
	messages: Array<{ line: number; column: number; severity: number; ruleId: string | null; message: string }>;
}

/** ESLint's results (what the scanner's analyzer lints) as findings, file paths relative to `root`. */
export function findingsFromResults(results: LintResultLike[], root: string): Finding[] {
	return results.flatMap((result) =>
		result.messages.map((message) => ({
			file: path.relative(root, result.filePath),
			line: message.line,
			column: message.column,
			severity: message.severity === 2 ? ('error' as const) : ('warning' as const),
			ruleId: message.ruleId ?? 'eslint',
			message: message.message,
		})),
	);
}

// eslint's "stylish" lines: "  12:3  error  Some message  plugin/rule-id"
const STYLISH_LINE = /^\s+(\d+):(\d+)\s+(error|warning)\s+(.*?)\s+(\S+)$/;

/** Findings from ESLint's stylish text (what `n8n-node lint` prints); colours are stripped first. */
export function findingsFromStylish(text: string, root: string): Finding[] {
	const findings: Finding[] = [];
	let file = '';
	// n8n-node lint forces colours (ESC [ ... m)
	const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
	for (const line of plain.split(/\r?\n/)) {
		if (path.isAbsolute(line.trim()) && !/^\s/.test(line)) {
			file = path.relative(root, line.trim());
			continue;
		}
		const match = STYLISH_LINE.exec(line);
		if (!match || !file) continue;
		findings.push({
			file,
			line: Number(match[1]),
			column: Number(match[2]),
			severity: match[3] as Finding['severity'],
			message: match[4],
			ruleId: match[5],
		});
	}
	return findings;
}

/** The scanner's complaint that package.json's author has no e-mail, while it indeed has none. */
export function isMissingAuthorEmail(finding: Finding, emailIsSet: boolean): boolean {
	return (
		!emailIsSet &&
		finding.ruleId === AUTHOR_EMAIL_RULE &&
		path.basename(finding.file) === 'package.json' &&
		finding.message.replace(/\.$/, '') === AUTHOR_EMAIL_MESSAGE
	);
}

export function describeFinding(finding: Finding, emailIsSet: boolean): string {
	const where = `${finding.file}:${finding.line}:${finding.column}`;
	const note = isMissingAuthorEmail(finding, emailIsSet)
		? '  [author e-mail missing: expected until a maintainer fills it in, CONTRIBUTING.md "Publishing"]'
		: '';
	return `${where}  ${finding.severity}  ${finding.ruleId}  ${finding.message}${note}`;
}
