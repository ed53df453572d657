// A run record as the service returns it, for unit tests: a pending image run unless told otherwise.
import type { RunRecord } from '../../nodes/shared/records';

export function runRecord(over: Partial<RunRecord> = {}): RunRecord {
	return {
		id: 'gen_1',
		kind: 'image',
		model: 'm',
		prompt: 'p',
		options: { resolution: '1K' },
		cost: 5,
		status: 'PENDING',
		error: null,
		createdAt: 1,
		outputs: [],
		...over,
	};
}
