// Runs one job per input item with at most `concurrency` in flight, keeping results in input order.
// Errors are kept per item so one failure does not stop the others.

export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

export async function runPool<T>(count: number, concurrency: number, job: (index: number) => Promise<T>): Promise<Array<Settled<T>>> {
	const results: Array<Settled<T>> = new Array(count);
	let next = 0;
	const worker = async () => {
		while (next < count) {
			const index = next++;
			try {
				results[index] = { ok: true, value: await job(index) };
			} catch (error) {
				results[index] = { ok: false, error };
			}
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
	return results;
}
