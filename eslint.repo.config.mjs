// ESLint for the code that does not ship (emulator, tests, scripts, benchmarks): TypeScript's recommended
// rules. The shipped code (nodes/, credentials/, index.ts, package.json) is linted by eslint.config.mjs, which
// must stay n8n's default for `n8n-node lint` in strict mode. That default also reaches these folders, so files
// here that n8n's node rules flag open with an eslint-disable line for it (scripts/publishing/markNotShipped.ts);
// `npm run lint` (its repo step) runs this config with --no-inline-config, so these rules still apply to every file.
import tseslint from 'typescript-eslint';

const nonShipped = ['sandbox/**/*.ts', 'test/**/*.ts', 'scripts/**/*.ts', 'bench/**/*.ts'];

// A test waits for a condition, never for a fixed time: a fixed sleep is too short on a loaded machine and too
// long everywhere else, and an absence check ("nothing started within 3 s") waits instead for a marker known to
// come after what it checks. Timings are measured in bench/, not asserted in tests.
const UNTIL = 'Wait for a condition with until() from test/helpers/until.ts';
const fixedWaits = [
	{
		selector:
			"NewExpression[callee.name='Promise'] CallExpression[callee.name='setTimeout'][arguments.0.type='Identifier']",
		message: `A fixed sleep (a promise resolved by setTimeout). ${UNTIL}; for an absence, wait for a marker that comes after it.`,
	},
	{
		selector:
			"CallExpression:matches([callee.name=/^(sleep|settle|delay|wait)$/], [callee.property.name=/^(sleep|settle|delay|wait)$/]):matches([arguments.0.value=type(number)], [arguments.0.type='BinaryExpression'])",
		message: `A fixed sleep (a wait of so many milliseconds). ${UNTIL}; for an absence, wait for a marker that comes after it.`,
	},
	{
		selector: "CallExpression[callee.property.name='waitForTimeout']",
		message: `A fixed sleep (Playwright's waitForTimeout). Wait for what the page shows, or use until() from test/helpers/until.ts.`,
	},
	{
		selector: 'ImportDeclaration[source.value=/^(node:)?timers\\/promises$/]',
		message: `timers/promises waits a fixed time. ${UNTIL}.`,
	},
	{
		selector:
			"CallExpression[callee.name='expect'] CallExpression[callee.object.name=/^(Date|performance)$/][callee.property.name='now']",
		message: 'A wall-clock assertion: how long something took is measured in bench/, not asserted in a test.',
	},
];

// style.md: no line over 120 characters in the shipped code and the sandbox (a tab counted as 2, as Prettier does).
// Prettier wraps code at 120 but cannot split a string, and n8n's lint wants some descriptions as one literal.
const lineLength = ['error', { code: 120, tabWidth: 2, ignoreUrls: true }];

export default [
	{ ignores: ['dist/**', 'node_modules/**', '**/*.js', '**/*.mjs'] },
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts', 'sandbox/**/*.ts'],
		languageOptions: { parser: tseslint.parser },
		rules: { 'max-len': lineLength },
	},
	...tseslint.configs.recommended.map((config) => ({ ...config, files: nonShipped })),
	{
		// Tests read the API's answers as the loose JSON they are, and load a second copy of a module with
		// jest.isolateModules, which needs require().
		files: ['test/**/*.ts'],
		rules: {
			'@typescript-eslint/no-explicit-any': 'off',
			'@typescript-eslint/no-require-imports': 'off',
			'no-restricted-syntax': ['error', ...fixedWaits],
		},
	},
	{
		// The timers that are not a test waiting: until()'s own tick, the property suite's warped clock (simulated
		// time), the pool test's jobs of given lengths, and the stand-in for n8n 1.x's sleep in the request test.
		files: [
			'test/helpers/until.ts',
			'test/properties/warpClock.ts',
			'test/unit/nodes/MediaGen/batch/pool.test.ts',
			'test/unit/nodes/shared/transport/request.test.ts',
		],
		rules: { 'no-restricted-syntax': 'off' },
	},
];
