/** The editor as a person sees it: real n8n 2.40.7 (through `npm run dev`) in Debian's chromium. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/ui'],
	testMatch: ['**/*.ui.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
	testTimeout: 5 * 60_000,
	maxWorkers: 1,
	forceExit: true,
};
