// The /v1 router: fault injection first, then the public catalogue routes, then the routes that need a caller.
import { ApiFailure } from '../apiFailure';
import type { Caller } from '../types';
import type { Exchange, SandboxContext } from '../http/context';
import { faultRouteOf, handleWithFault } from '../http/injectedFault';
import { requestHeader } from '../http/respond';
import { findRoute, route, type Route } from '../http/router';
import { accountForKey } from '../identities';
import { listApps, listModels } from './catalogue';
import { getGeneration, listGenerations, submitGeneration } from './generations';
import { showMe } from './me';
import { openUploadSlot } from './uploads';

/** A /v1 request from an identified caller. */
export interface ApiCall extends Exchange {
	caller: Caller;
	params: Record<string, string>;
	/** Set by an injected 502 on POST /generations: the submission fails upstream after its checks. */
	providerFailure: boolean;
}

type PublicApiHandler = (ctx: SandboxContext, exchange: Exchange) => Promise<number>;
export type CallerApiHandler = (ctx: SandboxContext, call: ApiCall) => Promise<number>;

const PUBLIC_ROUTES: Route<PublicApiHandler>[] = [route('GET', '/models', listModels), route('GET', '/apps', listApps)];

const CALLER_ROUTES: Route<CallerApiHandler>[] = [
	route('GET', '/me', showMe),
	route('POST', '/generations', submitGeneration),
	route('GET', '/generations', listGenerations),
	route('GET', '/generations/:id', getGeneration),
	route('POST', '/uploads', openUploadSlot),
];

/** Answers a /v1 request, unless an injected fault answers for it or cuts it. */
export async function handleApiRequest(ctx: SandboxContext, exchange: Exchange): Promise<void> {
	const handle = (ex: Exchange, providerFailure: boolean) => routeApiRequest(ctx, ex, providerFailure);
	const fault = ctx.faults.pick(faultRouteOf(exchange.method, exchange.url.pathname));
	if (fault) {
		exchange.entry.ownerId = ownerForLog(ctx, exchange);
		const { strict, timeScale } = ctx.config;
		return handleWithFault(exchange, fault, handle, { strict, timeScale, pendingLate: ctx.pendingLate });
	}
	exchange.entry.status = await handle(exchange, false);
}

/** Who sent a request, for the log alone (nothing refused, no wallet opened): a fault answers before it is known. */
function ownerForLog(ctx: SandboxContext, { req }: Exchange): string | undefined {
	const authorization = requestHeader(req, 'authorization');
	if (authorization) {
		try {
			return accountForKey(ctx.engine.accounts.values(), authorization).id;
		} catch {
			return undefined;
		}
	}
	const anonId = requestHeader(req, 'x-anon-id');
	return anonId ? `anon:${anonId}` : undefined;
}

async function routeApiRequest(ctx: SandboxContext, exchange: Exchange, providerFailure: boolean): Promise<number> {
	const { method, req } = exchange;
	const path = exchange.url.pathname.replace(/^\/v1/, '') || '/';
	const noRoute = () => new ApiFailure(404, 'not_found', `No route ${method} /v1${path}`);
	const open = findRoute(PUBLIC_ROUTES, method, path).match;
	if (open) return open.route.handler(ctx, exchange);
	const lookup = findRoute(CALLER_ROUTES, method, path);
	if (!lookup.pathKnown) throw noRoute();
	// Known paths identify the caller before the method is checked, so a bad key is reported first.
	const caller = ctx.engine.identify(
		requestHeader(req, 'authorization'),
		requestHeader(req, 'x-anon-id'),
		exchange.address,
	);
	exchange.entry.ownerId = caller.ownerId;
	if (!lookup.match) throw noRoute();
	return lookup.match.route.handler(ctx, { ...exchange, caller, params: lookup.match.params, providerFailure });
}
