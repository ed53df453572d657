// The pool that runs a step's items: one job per input item with at most `concurrency` in flight (how many, for
// runs, is run/concurrency.ts's answer), results kept in input order.
// Errors are kept per item so one failure does not stop the others, unless `stopOnError` is set:
// then no new job starts after a failure (jobs already running finish), so no more credits are spent.

export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

export async function runPool<T>(
	count: number,
	concurrency: number,
	job: (index: number) => Promise<T>,
	stopOnError = false,
): Promise<Array<Settled<T> | undefined>> {
	const results: Array<Settled<T> | undefined> = new Array(count);
	let next = 0;
	let failed = false;
	const worker = async () => {
		while (next < count && !(stopOnError && failed)) {
			const index = next++;
			try {
				results[index] = { ok: true, value: await job(index) };
			} catch (error) {
				results[index] = { ok: false, error };
				failed = true;
			}
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
	return results;
}
