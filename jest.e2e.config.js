/** End-to-end tests against real n8n (MEDIAGEN_N8N_VERSION; installed on demand by scripts/install-n8n.sh). */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
	testTimeout: 15 * 60_000,
	forceExit: true,
};
