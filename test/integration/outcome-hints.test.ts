// Outcomes a user should notice without opening an item (issue 42, points 1 and 9), in Poll mode: a run still going at
// the time limit and an item refused by Max Credits per Execution come out as n8n execution hints above the output,
// beside the items that say the same (with Continue On Fail; without it the step fails with the message instead);
// under "Continue (using error output)" a failed item leaves by the error output, as n8n-core routes it.
import { generate } from '../helpers/generate';
import { startBackend, type TestBackend } from '../helpers/sandbox';
import { ownAccount } from '../helpers/world';

let backend: TestBackend;
beforeAll(async () => {
	// A [stuck] run stays PROCESSING for the service's 30 minutes, here 18 s: well past a 3-second time limit.
	backend = await startBackend({ timeScale: 0.01, durations: { pendingMs: 20, image: 100, video: 200, music: 100 } });
});
afterAll(async () => await backend.sandbox.close());

test('a run past the time limit and a cap refusal appear as execution hints above the output', async () => {
	const own = ownAccount(backend.sandbox);
	const r = await generate(
		own.creds,
		{
			prompt: '={{ $json.prompt }}',
			downloadOutputs: false,
			// studio-image-v1 costs 5 credits: two runs fit under 10, the third is refused.
			additionalFields: { maxCredits: 10 },
			waiting: { timeoutMinutes: 0.05 },
		},
		[{ json: { prompt: 'a fox [stuck]' } }, { json: { prompt: 'a hen' } }, { json: { prompt: 'a cat' } }],
		{ nodeOverrides: { onError: 'continueRegularOutput' } },
	);
	expect(r.items.map((i) => i.json.errorCode ?? i.json.status)).toEqual(['time_limit', 'SUCCEEDED', 'spending_cap']);
	const stuck = r.items[0].json.runId;
	const hints = r.run.data.resultData.runData[r.node.name][0].hints;
	expect(hints).toEqual([
		{
			message:
				`Time limit: the run of item 1 (${stuck}) did not finish in time. It keeps going on the service and ` +
				'is charged (a run that fails is refunded); pick it up with Generation → Wait.',
			type: 'warning',
			location: 'outputPane',
		},
		{
			message:
				'Max Credits per Execution refused item 3: not submitted, so nothing was charged for it. Raise the cap ' +
				'or split the batch.',
			type: 'warning',
			location: 'outputPane',
		},
	]);
	expect(backend.charges(own.id)).toBe(10);
});

test('"Continue (using error output)": the failed run leaves by the error output, naming the run and its refund', async () => {
	const r = await generate(
		backend.apiCredentials,
		{ prompt: '={{ $json.prompt }}', downloadOutputs: false },
		[{ json: { prompt: 'a fine fox' } }, { json: { prompt: 'a broken fox [fail]' } }],
		{ nodeOverrides: { onError: 'continueErrorOutput' } },
	);
	const [regular, errors] = r.run.data.resultData.runData[r.node.name][0].data!.main;
	expect(regular!.map((i) => i.json.status)).toEqual(['SUCCEEDED']);
	expect(errors).toHaveLength(1);
	// (In a workflow, n8n adds the input item's fields, the prompt here, to it.)
	expect(errors![0].json).toEqual({
		error: expect.stringMatching(/^Run gen_[0-9a-f]+ failed: /),
		message: expect.stringMatching(/^5 credits were refunded automatically\./),
	});
});
