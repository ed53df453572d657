// nodes/shared/responseChecks.ts: shape checks of the service's 2xx answers.
import { generationAnswerProblem, generationListProblem } from '../../../../nodes/shared/responseChecks';
import { runRecord as run } from '../../../helpers/runRecord';

describe('answer shapes', () => {
	test('a generation answer needs a record with id, status, kind and model', () => {
		expect(generationAnswerProblem({})).toBe('no "generation" record in the answer');
		expect(generationAnswerProblem({ generation: { id: 'g' } })).toMatch(/has no status, kind, model/);
		expect(generationAnswerProblem({ generation: run() })).toBeUndefined();
		expect(generationAnswerProblem({ generation: run(), extra: 1 })).toBeUndefined();
	});

	test('a list answer needs a generations list of records', () => {
		expect(generationListProblem({ generations: [run()], next_before: null })).toBeUndefined();
		expect(generationListProblem({ generations: [{}] })).toMatch(/generations\[0\]/);
		expect(generationListProblem({ generations: [], next_before: 'x' })).toMatch(/next_before/);
	});
});
