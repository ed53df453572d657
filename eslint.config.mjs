// n8n's rule sets for verified community nodes, plus no-console. No disable comments anywhere:
// n8n's scanner ignores them.
import tsParser from '@typescript-eslint/parser';
import * as jsoncParser from 'jsonc-eslint-parser';
import communityNodes from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

const base = n8nNodesBase;

export default [
	{ ignores: ['dist/**', 'node_modules/**', '*.js', '*.mjs', 'bench/prefer-ts.js'] },
	// The code that does not ship (emulator, tests, scripts, benchmarks): TypeScript's recommended rules.
	...tseslint.configs.recommended.map((config) => ({
		...config,
		files: ['sandbox/**/*.ts', 'test/**/*.ts', 'scripts/**/*.ts', 'bench/**/*.ts'],
	})),
	{
		// Tests read the API's answers as the loose JSON they are.
		files: ['test/**/*.ts'],
		rules: { '@typescript-eslint/no-explicit-any': 'off' },
	},
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts', 'index.ts'],
		languageOptions: { parser: tsParser, parserOptions: { sourceType: 'module' } },
		rules: { 'no-console': 'error' },
	},
	{
		...communityNodes.configs.recommended,
		files: ['nodes/**/*.ts', 'credentials/**/*.ts', 'index.ts', 'package.json'],
	},
	{
		files: ['package.json'],
		languageOptions: { parser: jsoncParser },
		plugins: { 'n8n-nodes-base': base },
		rules: { ...base.configs.community.rules },
	},
	{
		files: ['credentials/**/*.ts'],
		plugins: { 'n8n-nodes-base': base },
		rules: {
			...base.configs.credentials.rules,
			// "Only applicable to nodes in the main repository": community credentials need a full URL,
			// which @n8n/community-nodes/credential-documentation-url checks.
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		plugins: { 'n8n-nodes-base': base },
		rules: {
			...base.configs.nodes.rules,
			// Superseded by @n8n/community-nodes/node-connection-type-literal, which asks for NodeConnectionTypes.Main.
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
		},
	},
];
