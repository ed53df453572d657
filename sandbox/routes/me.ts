// GET /v1/me: the caller's tier, credits, watermarking and concurrency.
import { spendRateBudget } from '../http/rateBudget';
import type { SandboxContext } from '../http/context';
import { sendJson } from '../http/respond';
import { withUnknownFields } from '../strict';
import type { ApiCall } from './api';

export async function showMe(ctx: SandboxContext, call: ApiCall): Promise<number> {
	const rate = spendRateBudget(ctx, 'read', call.caller, call.address);
	sendJson(call.res, 200, withUnknownFields(ctx.engine.me(call.caller), ctx.config.strict), rate);
	return 200;
}
