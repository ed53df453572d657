/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// Shared by the memory benchmarks: the RSS probe, and one house-engine video run through our node's Generate
// (WorkflowExecute), download included.
import { runNode } from '../test/helpers/engine';

export const MB = 1024 * 1024;

export function gc(): void {
	(global as unknown as { gc?: () => void }).gc?.();
}

/** Peak RSS growth of this process while `work` runs, after two full collections (sampled every 2 ms). */
export async function peakDuring<T>(work: () => Promise<T>): Promise<{ value: T; growthMb: number }> {
	gc();
	await new Promise((r) => setTimeout(r, 200));
	gc();
	const base = process.memoryUsage().rss;
	let peak = base;
	const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
	const value = await work();
	clearInterval(timer);
	peak = Math.max(peak, process.memoryUsage().rss);
	return { value, growthMb: (peak - base) / MB };
}

export async function generateVideo(root: string, apiKey: string, prompt: string): ReturnType<typeof runNode> {
	return await runNode({
		parameters: {
			resource: 'generation',
			operation: 'generate',
			kind: 'video',
			model: { __rl: true, mode: 'id', value: 'studio-video-v1' },
			prompt,
			waiting: { pollIntervalSeconds: 1 },
		},
		credentials: { mediaGenApi: { baseUrl: `${root}/v1`, apiKey } },
	});
}
