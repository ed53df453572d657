// Shape checks of the service's 2xx answers (apiRequest's `expect`) and of delivered run records: each returns what
// is missing in plain words, or undefined when usable. Only what the node reads is checked (v1 only adds fields).

export function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A run record: the fields every later step reads. */
export function runRecordProblem(run: unknown, where = 'the run'): string | undefined {
	if (!isObject(run)) return `${where} is missing`;
	const missing = ['id', 'status', 'kind', 'model'].filter((k) => typeof run[k] !== 'string' || run[k] === '');
	if (missing.length) return `${where} has no ${missing.join(', ')}`;
	if (run.outputs !== undefined && run.outputs !== null && !Array.isArray(run.outputs))
		return `${where} has outputs that are not a list`;
	return undefined;
}

/** POST /generations and GET /generations/{id}: `{ generation: Generation }`. */
export function generationAnswerProblem(body: unknown): string | undefined {
	if (!isObject(body) || !isObject(body.generation)) return 'no "generation" record in the answer';
	return runRecordProblem(body.generation, 'the "generation" record');
}

/** GET /generations: `{ generations: Generation[], next_before }`. */
export function generationListProblem(body: unknown): string | undefined {
	if (!isObject(body) || !Array.isArray(body.generations)) return 'no "generations" list in the answer';
	for (const [i, run] of body.generations.entries()) {
		const problem = runRecordProblem(run, `generations[${i}]`);
		if (problem) return problem;
	}
	const next = body.next_before;
	if (next !== undefined && next !== null && typeof next !== 'number') return '"next_before" is not a number';
	return undefined;
}

export function listProblem(field: 'models' | 'apps'): (body: unknown) => string | undefined {
	return (body) => (isObject(body) && Array.isArray(body[field]) ? undefined : `no "${field}" list in the answer`);
}

/** GET /me: the identity record. */
export function identityProblem(body: unknown): string | undefined {
	if (!isObject(body)) return 'the identity record is missing';
	return typeof body.tier === 'string' ? undefined : 'the identity record has no "tier"';
}

/** POST /uploads: `{ upload_url, url, expires_in }`. */
export function uploadSlotProblem(body: unknown): string | undefined {
	if (!isObject(body)) return 'the upload slot is missing';
	const missing = ['upload_url', 'url'].filter((k) => typeof body[k] !== 'string' || body[k] === '');
	return missing.length ? `the upload slot has no ${missing.join(', ')}` : undefined;
}
