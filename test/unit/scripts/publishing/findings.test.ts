// scripts/publishing/findings.ts: the findings of n8n's lint and community scan, read and worded.
import {
	describeFinding,
	type Finding,
	findingsFromResults,
	findingsFromStylish,
	isMissingAuthorEmail,
} from '../../../../scripts/publishing/findings';

const AUTHOR_EMAIL: Finding = {
	file: 'package.json',
	line: 14,
	column: 2,
	severity: 'error',
	ruleId: '@n8n/community-nodes/valid-author',
	message: 'The "author" field must include a non-empty email.',
};

describe('community-package findings', () => {
	test('the missing author e-mail is the one expected finding, and only while the e-mail is unset', () => {
		expect(isMissingAuthorEmail(AUTHOR_EMAIL, false)).toBe(true);
		expect(isMissingAuthorEmail({ ...AUTHOR_EMAIL, message: AUTHOR_EMAIL.message.slice(0, -1) }, false)).toBe(true);
		expect(isMissingAuthorEmail(AUTHOR_EMAIL, true)).toBe(false);
		expect(describeFinding(AUTHOR_EMAIL, false)).toBe(
			'package.json:14:2  error  @n8n/community-nodes/valid-author  The "author" field must include a non-empty ' +
				'email.  [author e-mail missing: expected until a maintainer fills it in, CONTRIBUTING.md "Publishing"]',
		);
	});

	test.each([
		['a missing author name', { message: 'The "author" field must include a non-empty name.' }],
		['another rule', { ruleId: '@n8n/community-nodes/credential-unnecessary-password' }],
		['the same rule on another file', { file: 'nodes/package.jsonx' }],
	])('%s is not excused', (_, change) => {
		expect(isMissingAuthorEmail({ ...AUTHOR_EMAIL, ...change }, false)).toBe(false);
	});

	test("n8n-node lint's coloured stylish output gives file, position, severity, rule and message", () => {
		const esc = '\u001b';
		const text = [
			`${esc}[0m${esc}[4m/tmp/stage/package.json${esc}[24m${esc}[0m`,
			`${esc}[0m  ${esc}[2m14:2${esc}[22m  ${esc}[31merror${esc}[39m  The "author" field must include a non-empty ` +
				`email  ${esc}[2m@n8n/community-nodes/valid-author${esc}[22m${esc}[0m`,
			'/tmp/stage/credentials/A.credentials.ts',
			"  26:3  warning  Field 'x' does not appear to be sensitive  @n8n/community-nodes/credential-unnecessary-password",
			'',
			`${esc}[31m${esc}[1m✖ 2 problems (1 error, 1 warning)${esc}[22m${esc}[39m`,
		].join('\n');
		expect(findingsFromStylish(text, '/tmp/stage')).toEqual([
			{ ...AUTHOR_EMAIL, message: 'The "author" field must include a non-empty email' },
			{
				file: 'credentials/A.credentials.ts',
				line: 26,
				column: 3,
				severity: 'warning',
				ruleId: '@n8n/community-nodes/credential-unnecessary-password',
				message: "Field 'x' does not appear to be sensitive",
			},
		]);
	});

	test("ESLint's results become findings relative to the scanned folder", () => {
		const results = [
			{
				filePath: '/pkg/package.json',
				messages: [{ line: 14, column: 2, severity: 2, ruleId: AUTHOR_EMAIL.ruleId, message: AUTHOR_EMAIL.message }],
			},
			{ filePath: '/pkg/dist/a.js', messages: [{ line: 1, column: 1, severity: 1, ruleId: null, message: 'm' }] },
		];
		expect(findingsFromResults(results, '/pkg')).toEqual([
			AUTHOR_EMAIL,
			{ file: 'dist/a.js', line: 1, column: 1, severity: 'warning', ruleId: 'eslint', message: 'm' },
		]);
	});
});
