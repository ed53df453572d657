// One wording, wherever a step stops after some of its runs were paid for (poll batch, pause set-up, resume):
// the user learns which runs cost credits and how to get their files without paying again, and which items
// never started (they cost nothing).

/** A run this step started and the service charges for. */
export interface PaidRun {
	id: string;
	itemIndex: number;
	cost?: number;
	status?: string;
}

export function paidRunsNote(runs: PaidRun[]): string {
	if (!runs.length) return '';
	const lines = runs.map((run) => {
		const facts = [`item ${run.itemIndex + 1}`];
		if (run.cost !== undefined) facts.push(`${run.cost} credit${run.cost === 1 ? '' : 's'}`);
		if (run.status) facts.push(run.status);
		return `${run.id} (${facts.join(', ')})`;
	});
	return (
		`Runs of this step already paid for: ${lines.join('; ')}. Their files are not passed on because the step ` +
		'failed: get them with Generation → Get (Run ID), which charges nothing (Generation → Wait for a run still ' +
		'going), or turn on "Continue On Fail" (Settings) so finished items are passed on beside the error.'
	);
}

/** Item numbers as a person counts them (from 1), the first five and how many more. */
function listItems(indexes: number[]): string {
	if (indexes.length <= 6) return indexes.map((i) => i + 1).join(', ');
	return `${indexes
		.slice(0, 5)
		.map((i) => i + 1)
		.join(', ')} and ${indexes.length - 5} more`;
}

/**
 * Adds the note to an error's description (what n8n shows under the message), and which items of a stopped batch
 * were never started (they cost nothing).
 */
export function withPaidRuns<E>(error: E, runs: PaidRun[], notStarted: number[] = []): E {
	const unstarted = notStarted.length ? `Items ${listItems(notStarted)} were not started and cost nothing.` : '';
	const note = [paidRunsNote(runs), unstarted].filter(Boolean).join(' ');
	if (!note) return error;
	const e = error as { description?: string | null };
	e.description = e.description ? `${e.description}\n\n${note}` : note;
	return error;
}
