// Catalogue-driven dropdowns, registered by kind on the node: every model id, option and allowed value
// comes from GET /models, every app, look and slot from GET /apps.
import { getAppSlots, getLooks } from './loadOptions';
import { searchApps, searchModels } from './listSearch';
import { getModelOptionFields, getModelSummary } from './resourceMapping';

export const listSearch = { searchModels, searchApps };
export const loadOptions = { getLooks, getAppSlots };
export const resourceMapping = { getModelOptionFields, getModelSummary };

export { getAppSlots, getLooks, getModelOptionFields, getModelSummary, searchApps, searchModels };
