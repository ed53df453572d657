// A route table: method and path pattern to a named handler. "/generations/:id" takes one segment as a
// parameter; a final "/*" takes any rest of the path. The first route that matches wins.

export interface Route<Handler> {
	/** Upper-case methods this route answers; "*" for any. */
	methods: string[] | '*';
	pattern: string;
	handler: Handler;
	regex: RegExp;
	paramNames: string[];
}

export interface RouteMatch<Handler> {
	route: Route<Handler>;
	/** Path parameters by name, as they stand in the path (not URL-decoded). */
	params: Record<string, string>;
}

export interface RouteLookup<Handler> {
	/** The route for this method and path, if any. */
	match?: RouteMatch<Handler>;
	/** Whether any route has this path, whatever its method: the API identifies callers of known paths first. */
	pathKnown: boolean;
}

export function route<Handler>(method: string | string[], pattern: string, handler: Handler): Route<Handler> {
	const paramNames: string[] = [];
	const source = pattern
		.split('/')
		.map((segment, i, all) => {
			if (segment === '*' && i === all.length - 1) return '.*';
			if (segment.startsWith(':')) {
				paramNames.push(segment.slice(1));
				return '([^/]+)';
			}
			return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
		})
		.join('/');
	const methods = method === '*' ? '*' : Array.isArray(method) ? method : [method];
	return { methods, pattern, handler, regex: new RegExp(`^${source}$`), paramNames };
}

export function findRoute<Handler>(routes: Route<Handler>[], method: string, path: string): RouteLookup<Handler> {
	let pathKnown = false;
	for (const candidate of routes) {
		const found = candidate.regex.exec(path);
		if (!found) continue;
		pathKnown = true;
		if (candidate.methods !== '*' && !candidate.methods.includes(method)) continue;
		const params = Object.fromEntries(candidate.paramNames.map((name, i) => [name, found[i + 1]]));
		return { match: { route: candidate, params }, pathKnown };
	}
	return { pathKnown };
}
