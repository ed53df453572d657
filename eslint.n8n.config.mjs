// @n8n/node-cli's own ESLint config (what `n8n-node lint` runs for n8n-nodes-starter), unchanged, over the
// code that ships. `npm run lint` adds our stricter checks and covers the other folders.
import { config } from '@n8n/node-cli/eslint';

export default [{ ignores: ['dist/**', 'node_modules/**', '**/*.js', '**/*.mjs'] }, ...config];
