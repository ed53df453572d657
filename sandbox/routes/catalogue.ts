// GET /v1/models and GET /v1/apps: the catalogues, open to anyone.
import type { Exchange, SandboxContext } from '../http/context';
import { sendJson } from '../http/respond';

export async function listModels(ctx: SandboxContext, exchange: Exchange): Promise<number> {
	sendJson(exchange.res, 200, { models: ctx.engine.models });
	return 200;
}

export async function listApps(ctx: SandboxContext, exchange: Exchange): Promise<number> {
	sendJson(exchange.res, 200, { apps: ctx.engine.appsWithRoot() });
	return 200;
}
