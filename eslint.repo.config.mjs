// ESLint for the code that does not ship (emulator, tests, scripts, benchmarks): TypeScript's recommended
// rules. The shipped code (nodes/, credentials/, index.ts, package.json) is linted by eslint.config.mjs, which
// must stay n8n's default for `n8n-node lint` in strict mode (see scripts/n8nNodeLint.ts).
import tseslint from 'typescript-eslint';

const nonShipped = ['sandbox/**/*.ts', 'test/**/*.ts', 'scripts/**/*.ts', 'bench/**/*.ts'];

export default [
	{ ignores: ['dist/**', 'node_modules/**', '**/*.js', '**/*.mjs'] },
	...tseslint.configs.recommended.map((config) => ({ ...config, files: nonShipped })),
	{
		// Tests read the API's answers as the loose JSON they are.
		files: ['test/**/*.ts'],
		rules: { '@typescript-eslint/no-explicit-any': 'off' },
	},
];
