// The model catalogue for tests: the sandbox's (sandbox/data/models.json) as the node reads it, for unit tests; a
// running service's, as anyone reads it (GET /models needs no identity); and the model a step with Model left empty
// runs, worked out apart from the node's code.
import type { CatalogueModel } from '../../nodes/shared/records';
import models from '../../sandbox/data/models.json';

export const catalogue = models.models as unknown as CatalogueModel[];

/** The catalogue entry of model `id` (the test fails on a missing one when it reads a field). */
export const catalogueModel = (id: string): CatalogueModel => catalogue.find((m) => m.id === id)!;

/** The catalogue of the running service at `apiBase` (ending in /v1, or the sandbox's root). */
export async function readCatalogue(apiBase: string): Promise<CatalogueModel[]> {
	return ((await (await fetch(`${apiBase}/models`)).json()) as { models: CatalogueModel[] }).models;
}

/** The model a step with Model left empty runs: the kind's cheapest free-tier model, else its cheapest. */
export function defaultModel(models: CatalogueModel[], kind: string): CatalogueModel {
	const ofKind = models.filter((m) => m.kind === kind);
	const free = ofKind.filter((m) => m.free_tier);
	return (free.length ? free : ofKind).reduce((a, b) => (b.credits_at_defaults < a.credits_at_defaults ? b : a));
}
