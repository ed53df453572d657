// ESLint for the code that does not ship (emulator, tests, scripts, benchmarks): TypeScript's recommended
// rules. The shipped code (nodes/, credentials/, index.ts, package.json) is linted by eslint.config.mjs, which
// must stay n8n's default for `n8n-node lint` in strict mode. That default also reaches these folders, so files
// here that n8n's node rules flag open with an eslint-disable line for it (scripts/publishing/markNotShipped.ts);
// `npm run lint` (its repo step) runs this config with --no-inline-config, so these rules still apply to every file.
import tseslint from 'typescript-eslint';

const nonShipped = ['sandbox/**/*.ts', 'test/**/*.ts', 'scripts/**/*.ts', 'bench/**/*.ts'];

export default [
	{ ignores: ['dist/**', 'node_modules/**', '**/*.js', '**/*.mjs'] },
	...tseslint.configs.recommended.map((config) => ({ ...config, files: nonShipped })),
	{
		// Tests read the API's answers as the loose JSON they are, and load a second copy of a module with
		// jest.isolateModules, which needs require().
		files: ['test/**/*.ts'],
		rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-require-imports': 'off' },
	},
];
