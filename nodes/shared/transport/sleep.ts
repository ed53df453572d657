// Waits that a cancelled execution ends at once, on every n8n version the package supports.
import { sleep } from 'n8n-workflow';

/**
 * Waits `ms`, or rejects as soon as `signal` aborts. n8n-workflow's sleep takes the signal from 2.x on; 1.x's
 * ignores it (its abortable sleep has another name), so the abort is raced here as well.
 */
export async function sleepUnlessAborted(ms: number, signal?: AbortSignal): Promise<void> {
	if (!signal) return await sleep(ms);
	const reason = () => (signal.reason instanceof Error ? signal.reason : new Error('The execution was cancelled'));
	if (signal.aborted) throw reason();
	let onAbort = () => undefined as void;
	const aborted = new Promise<never>((_, reject) => {
		onAbort = () => reject(reason());
		signal.addEventListener('abort', onAbort, { once: true });
	});
	try {
		await Promise.race([sleep(ms, signal), aborted]);
	} finally {
		signal.removeEventListener('abort', onAbort);
	}
}
