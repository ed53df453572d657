// One job per item, at most `concurrency` in flight, results in input order. A failure does not stop the others unless
// `stopOnError`: then no new job starts after it (running ones finish), so no more credits are spent.

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

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
