/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Waits for a condition, never for a fixed time: polls `condition` until it holds, and fails naming `what`.
export async function until(condition: () => boolean, what: string, ms = 30_000): Promise<void> {
	const deadline = Date.now() + ms;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error(`Waited ${ms / 1000} s for ${what}`);
		await new Promise((r) => setImmediate(r));
		await new Promise((r) => setTimeout(r, 10));
	}
}
