export { MediaGenApi } from './credentials/MediaGenApi.credentials';
export { MediaGenAnonymousApi } from './credentials/MediaGenAnonymousApi.credentials';
export { MediaGenWebhookApi } from './credentials/MediaGenWebhookApi.credentials';
export { MediaGen } from './nodes/MediaGen/MediaGen.node';
export { MediaGenTrigger } from './nodes/MediaGenTrigger/MediaGenTrigger.node';
