/* eslint-disable -- not shipped: n8n's node rules do not apply; npm run lint:repo lints this file */
// 4. Signature verification throughput: our verifier against the standardwebhooks library on the
// same signed bodies (1 KB and 100 KB), in the same process, alternating rounds.
import { Webhook } from 'standardwebhooks';

import { verifyWebhook } from '../nodes/shared/signature';

const SECRET = `whsec_${Buffer.from('benchmark signing secret 0123456789').toString('base64')}`;

function opsPerSecond(fn: () => void, ms: number): number {
	let n = 0;
	const end = performance.now() + ms;
	while (performance.now() < end) {
		for (let i = 0; i < 20; i++) fn();
		n += 20;
	}
	return (n * 1000) / ms;
}

for (const size of [1024, 100 * 1024]) {
	const body = JSON.stringify({ id: 'gen_bench', pad: 'x'.repeat(size - 40) }).slice(0, size);
	const wh = new Webhook(SECRET);
	const now = new Date();
	const sig = wh.sign('msg_bench', now, body);
	const ts = String(Math.floor(now.getTime() / 1000));
	const headers = { 'webhook-id': 'msg_bench', 'webhook-timestamp': ts, 'webhook-signature': sig };
	const raw = Buffer.from(body);
	const ours = () => {
		if (!verifyWebhook({ id: 'msg_bench', timestamp: ts, signature: sig }, raw, { current: SECRET }).ok)
			throw new Error('ours rejected');
	};
	const theirs = () => {
		wh.verify(body, headers);
	};
	let o = 0;
	let t = 0;
	for (let round = 0; round < 3; round++) {
		o += opsPerSecond(ours, 300);
		t += opsPerSecond(theirs, 300);
	}
	console.log(
		`signature: ${size >= 1024 * 100 ? '100 KB' : '1 KB'} body | ours ${(o / 3).toFixed(0)}/s, ` +
			`standardwebhooks ${(t / 3).toFixed(0)}/s, ours/theirs ${(o / t).toFixed(2)} (target ≥ 1.0)`,
	);
}
