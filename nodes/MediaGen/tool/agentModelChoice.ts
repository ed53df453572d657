// "Let the AI Agent Choose": a $fromAI expression listing the kind's model IDs and prices. n8n builds a tool's schema
// from the saved $fromAI text (n8n-core's create-node-as-tool) and its ✨ button leaves the description empty.
import type { CatalogueModel, MediaKind } from '../../shared/records';

/** n8n's mark on a $fromAI expression of its ✨ button: the editor shows such a value as "defined by the model". */
const FROM_AI_MARKER = '/*n8n-auto-generated-fromAI-override*/';
/** The tool argument's name: the one n8n's ✨ button gives the Model field (its display name). */
const AGENT_MODEL_KEY = 'Model';
/** The entry's name in the Model list, and how About the Model points to it. */
export const AGENT_CHOICE_NAME = 'Let the AI Agent Choose';
/** IDs written into the expression as they are: anything else could end the quoted text or the expression. */
const PLAIN_ID = /^[\w.:/-]+$/;

/** The kind's models the agent may pick from, cheapest first (a stable sort: catalogue order breaks ties). */
export function agentModels(models: CatalogueModel[], kind: MediaKind): CatalogueModel[] {
	return models
		.filter((m) => m.kind === kind && PLAIN_ID.test(m.id))
		.sort((a, b) => a.credits_at_defaults - b.credits_at_defaults);
}

/** What the agent reads about the Model argument: each ID with its price at default options. */
export function agentModelDescription(models: CatalogueModel[], kind: MediaKind): string {
	const credits = (n: number) => (n === 1 ? '1 credit' : `${n} credits`);
	const ids = agentModels(models, kind).map((m) => `${m.id} (${credits(m.credits_at_defaults)})`);
	return `The ${kind} model: one of these IDs, with its price at default options: ${ids.join(', ')}.`;
}

/** The Model value of the entry: what n8n's ✨ button writes, with the description filled in. */
export function agentModelValue(models: CatalogueModel[], kind: MediaKind): string {
	const description = agentModelDescription(models, kind);
	return `={{ ${FROM_AI_MARKER} $fromAI('${AGENT_MODEL_KEY}', \`${description}\`, 'string') }}`;
}
