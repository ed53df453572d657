// Unit tests of the sandbox's route table and of the route names fault rules match on.
import { faultRouteOf } from '../../sandbox/http/injectedFault';
import { findRoute, route } from '../../sandbox/http/router';

const routes = [
	route('GET', '/generations', 'list'),
	route('POST', '/generations', 'create'),
	route('GET', '/generations/:id', 'get'),
	route(['GET', 'HEAD'], '/files/*', 'file'),
	route('*', '/_sandbox/*', 'control'),
	route('GET', '/openapi.yaml', 'openapi'),
];

describe('findRoute', () => {
	test('picks the route by method and path', () => {
		expect(findRoute(routes, 'GET', '/generations').match?.route.handler).toBe('list');
		expect(findRoute(routes, 'POST', '/generations').match?.route.handler).toBe('create');
	});

	test('":name" takes one segment, as written in the path', () => {
		const { match } = findRoute(routes, 'GET', '/generations/gen_1%20a');
		expect(match?.route.handler).toBe('get');
		expect(match?.params).toEqual({ id: 'gen_1%20a' });
		expect(findRoute(routes, 'GET', '/generations/a/b').pathKnown).toBe(false);
		expect(findRoute(routes, 'GET', '/generations/').pathKnown).toBe(false);
	});

	test('a final "*" takes any rest of the path, also an empty one', () => {
		expect(findRoute(routes, 'HEAD', '/files/outputs/gen_1/0.png').match?.route.handler).toBe('file');
		expect(findRoute(routes, 'GET', '/files/').match?.route.handler).toBe('file');
		expect(findRoute(routes, 'GET', '/files').pathKnown).toBe(false);
	});

	test('"*" as the method answers any method', () => {
		expect(findRoute(routes, 'DELETE', '/_sandbox/reset').match?.route.handler).toBe('control');
	});

	test('a known path with another method has no match but is known', () => {
		expect(findRoute(routes, 'DELETE', '/generations/gen_1')).toEqual({ pathKnown: true });
		expect(findRoute(routes, 'PUT', '/files/x')).toEqual({ pathKnown: true });
		expect(findRoute(routes, 'GET', '/nowhere')).toEqual({ pathKnown: false });
	});

	test('dots and other pattern characters are literal', () => {
		expect(findRoute(routes, 'GET', '/openapi.yaml').match?.route.handler).toBe('openapi');
		expect(findRoute(routes, 'GET', '/openapiXyaml').pathKnown).toBe(false);
	});
});

describe('faultRouteOf', () => {
	test('drops /v1 and names a run id ":id"', () => {
		expect(faultRouteOf('POST', '/v1/generations')).toBe('POST /generations');
		expect(faultRouteOf('GET', '/v1/generations/gen_abc')).toBe('GET /generations/:id');
		expect(faultRouteOf('GET', '/v1/models')).toBe('GET /models');
		expect(faultRouteOf('GET', '/v1/generations/gen_abc/cancel')).toBe('GET /generations/gen_abc/cancel');
	});
});
