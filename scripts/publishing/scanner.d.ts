// The part of @n8n/scan-community-package's analyzer (an untyped ES module) that verifyCommunity.ts uses.
declare module '@n8n/scan-community-package/scanner/scanner.mjs' {
	export const SOURCE_FILE_PATTERNS: string[];
	export function analyzePackage(
		packageDir: string,
		filePatterns?: string[],
	): Promise<{ passed: boolean; message?: string; details?: string }>;
	export function buildScanConfig(): Promise<unknown>;
}
