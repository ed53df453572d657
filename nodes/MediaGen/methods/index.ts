// Catalogue-driven dropdowns, registered by kind on the node: every model id, option and allowed value
// comes from GET /models, every app, look and slot from GET /apps.
import { getAppSlots, getLooks, getMusicModes } from './loadOptions';
import { searchApps, searchModels } from './listSearch';
import { getModelOptionFields } from './resourceMapping';

export const listSearch = { searchModels, searchApps };
export const loadOptions = { getMusicModes, getLooks, getAppSlots };
export const resourceMapping = { getModelOptionFields };

export { getAppSlots, getLooks, getModelOptionFields, getMusicModes, searchApps, searchModels };
