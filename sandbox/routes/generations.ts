// POST /v1/generations, GET /v1/generations (newest first, by `before` cursor) and GET /v1/generations/:id.
import { ApiFailure } from '../apiFailure';
import type { SandboxContext } from '../http/context';
import { spendRateBudget, withRateHeaders } from '../http/rateBudget';
import { readBody, sendJson } from '../http/respond';
import { withUnknownFields } from '../strict';
import { generationRequestSchema, zodIssues } from '../validate';
import type { ApiCall } from './api';

export async function submitGeneration(ctx: SandboxContext, call: ApiCall): Promise<number> {
	const rate = spendRateBudget(ctx, 'submit', call.caller, call.address);
	const raw = await readBody(call.req);
	call.entry.body = raw;
	const parsed = generationRequestSchema.safeParse(raw);
	if (!parsed.success) {
		throw new ApiFailure(400, 'invalid', 'The request has invalid parameters', zodIssues(parsed.error), rate);
	}
	const { run } = await withRateHeaders(rate, () =>
		ctx.engine.createGeneration(call.caller, parsed.data, call.providerFailure),
	);
	sendJson(call.res, 202, withUnknownFields({ generation: ctx.engine.publicRun(run) }, ctx.config.strict), rate);
	return 202;
}

/** The `limit` and `before` query parameters, or every problem with them. */
export function parseListQuery(query: URLSearchParams): { limit: number; before?: number; issues: string[] } {
	const limitText = query.get('limit');
	const beforeText = query.get('before');
	const issues: string[] = [];
	const limit = limitText === null ? 20 : Number(limitText);
	if (!Number.isInteger(limit) || limit < 1 || limit > 100) issues.push('limit must be a whole number from 1 to 100');
	const before = beforeText === null ? undefined : Number(beforeText);
	if (before !== undefined && !Number.isInteger(before)) {
		issues.push('before must be a createdAt value (whole number)');
	}
	return { limit, before, issues };
}

export async function listGenerations(ctx: SandboxContext, call: ApiCall): Promise<number> {
	const rate = spendRateBudget(ctx, 'read', call.caller, call.address);
	const { limit, before, issues } = parseListQuery(call.url.searchParams);
	if (issues.length) throw new ApiFailure(400, 'invalid', 'Invalid query', issues, rate);
	sendJson(call.res, 200, withUnknownFields(ctx.engine.listRuns(call.caller, limit, before), ctx.config.strict), rate);
	return 200;
}

export async function getGeneration(ctx: SandboxContext, call: ApiCall): Promise<number> {
	const rate = spendRateBudget(ctx, 'read', call.caller, call.address);
	const run = await withRateHeaders(rate, () => ctx.engine.getRun(call.caller, decodeURIComponent(call.params.id)));
	sendJson(call.res, 200, withUnknownFields({ generation: ctx.engine.publicRun(run) }, ctx.config.strict), rate);
	return 200;
}
