// The sandbox's model catalogue (sandbox/data/models.json) as the node reads it, for unit tests that need models.
import type { CatalogueModel } from '../../nodes/shared/records';
import models from '../../sandbox/data/models.json';

export const catalogue = models.models as unknown as CatalogueModel[];

/** The catalogue entry of model `id` (the test fails on a missing one when it reads a field). */
export const catalogueModel = (id: string): CatalogueModel => catalogue.find((m) => m.id === id)!;
