// nodes/MediaGen/tool/agentModelChoice.ts: the Model value that leaves the model to the AI agent, read back the
// way n8n reads it (n8n-workflow's extractFromAICalls, which builds the tool's input schema): key "Model", and a
// description listing the kind's IDs, cheapest first, with their prices. IDs that could break the text stay out.
import { extractFromAICalls } from 'n8n-workflow';

import type { CatalogueModel } from '../../../../../nodes/shared/records';
import { agentModelValue } from '../../../../../nodes/MediaGen/tool/agentModelChoice';
import { catalogueModel as model } from '../../../../helpers/catalogue';

const models = [model('lumora-image-2'), model('studio-image-v1'), model('studio-video-v1'), model('cadence-song-v1')];

test("n8n reads one $fromAI call with key Model and the kind's IDs and prices, cheapest first", () => {
	const value = agentModelValue(models, 'image');
	expect(value.startsWith('={{ /*n8n-auto-generated-fromAI-override*/ $fromAI(')).toBe(true);
	const calls = extractFromAICalls(value);
	expect(calls).toHaveLength(1);
	expect(calls[0]).toMatchObject({ key: 'Model', type: 'string' });
	expect(calls[0].description).toBe(
		'The image model: one of these IDs, with its price at default options: studio-image-v1 (5 credits), ' +
			'lumora-image-2 (25 credits).',
	);
});

test('an ID with quotes, braces or spaces is left out, so the expression stays whole', () => {
	const odd: CatalogueModel = { ...model('studio-image-v1'), id: 'odd`}} id' };
	const calls = extractFromAICalls(agentModelValue([odd, ...models], 'image'));
	expect(calls).toHaveLength(1);
	expect(calls[0].description).not.toContain('odd');
});
