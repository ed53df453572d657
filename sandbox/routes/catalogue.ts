// GET /v1/models and GET /v1/apps: the catalogues, open to anyone.
import type { Exchange, SandboxContext } from '../http/context';
import { sendJson } from '../http/respond';
import { publicApp, publicModel, withUnknownFields } from '../strict';

export async function listModels(ctx: SandboxContext, exchange: Exchange): Promise<number> {
	const { strict } = ctx.config;
	const models = ctx.engine.models.map((model) => publicModel(model, strict));
	sendJson(exchange.res, 200, withUnknownFields({ models }, strict));
	return 200;
}

export async function listApps(ctx: SandboxContext, exchange: Exchange): Promise<number> {
	const { strict } = ctx.config;
	const apps = ctx.engine.appsWithRoot().map((app) => publicApp(app, strict));
	sendJson(exchange.res, 200, withUnknownFields({ apps }, strict));
	return 200;
}
