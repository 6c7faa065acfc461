/**
 * The HTTP API's routes (shared/routes.ts, gatewayRoutes; docs/decisions.md, decision 17): API Gateway, ranking them as
 * its routing rules say (gatewayMatchRank), must send every row of the route table to its own group's function and
 * to no other, whatever its path parameters hold, including a literal name of the same place (`/tenants/all`).
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import {
  ENTRIES,
  GATEWAY_ROUTES,
  gatewayGroup,
  gatewayRoutes,
  fullPath,
  matchRoute,
  ROUTES,
  selectGatewayRoutes,
  type Route,
} from '../../shared/routes.js';

/** The row's path with each parameter filled in with a plain value and with every literal name found at its place. */
function pathsOf(route: Route): string[] {
  const segments = fullPath(route).split('/');
  let paths = [''];
  for (const [i, segment] of segments.entries()) {
    if (i === 0) continue;
    const values = segment.startsWith('{')
      ? [
          'x1',
          ...new Set(
            ROUTES.map((other) => fullPath(other).split('/'))
              .filter((other) => other.length > i && !other[i]!.startsWith('{'))
              .map((other) => other[i]!),
          ),
        ]
      : [segment];
    paths = paths.flatMap((path) => values.map((value) => `${path}/${value}`));
  }
  return paths;
}

/** A row of a made-up route table, for the rules' own cases. */
const row = (method: Route['method'], path: string, group: Route['group']): Route => ({
  api: 'auth',
  method,
  path,
  operationId: `${method} ${path}`,
  summary: '',
  group,
  permission: null,
  status: 200,
});

/** Each request (method, path, function) reaches its function through the one route API Gateway picks. */
function reach(routes: readonly { method: string; path: string; fn: string }[], requests: readonly (readonly [string, string, string])[]) {
  for (const [method, path, fn] of requests) {
    assert.deepEqual(
      selectGatewayRoutes(routes, method, path).map((r) => r.fn),
      [fn],
      `${method} ${path}`,
    );
  }
}

describe("the HTTP API's routes", () => {
  it('send every row of the table to its group alone, whatever its parameters hold', () => {
    for (const route of ROUTES) {
      for (const path of pathsOf(route)) {
        const chosen = selectGatewayRoutes(GATEWAY_ROUTES, route.method, path);
        // A parameter holding another row's literal name may be that row's request: the table says whose.
        const found = matchRoute(route.method, path);
        assert.equal(found.kind, 'match', `${route.method} ${path}`);
        const meant = found.kind === 'match' ? found.match.route.group : undefined;
        assert.ok(chosen.length > 0, `${route.method} ${path} reaches $default`);
        assert.deepEqual([...new Set(chosen.map((r) => r.fn))], [meant], `${route.method} ${path}: ${JSON.stringify(chosen)}`);
      }
    }
  });

  it("are far fewer than the table's rows: one greedy route per folder a group owns", () => {
    assert.ok(GATEWAY_ROUTES.length * 2 < ROUTES.length, `${GATEWAY_ROUTES.length} routes for ${ROUTES.length} rows`);
    assert.ok(GATEWAY_ROUTES.some((r) => r.method === 'ANY' && r.path === '/v1/billing/{proxy+}' && r.fn === 'billing'));
    // Each route key once: API Gateway refuses a duplicate.
    assert.equal(new Set(GATEWAY_ROUTES.map((r) => `${r.method} ${r.path}`)).size, GATEWAY_ROUTES.length);
  });

  it('leave the browser-facing entries theirs: a longer folder or a full match wins over /v1/auth/{proxy+}', () => {
    const entries = ENTRIES.map((entry) => ({
      method: entry.method ?? 'ANY',
      path: entry.path.endsWith('/') ? `${entry.path}{proxy+}` : entry.path,
      fn: entry.fn,
    }));
    const all = [...GATEWAY_ROUTES, ...entries];
    reach(all, [
      ['GET', '/v1/auth/login/saas1/', 'login'],
      ['POST', '/v1/auth/oauth2/token', 'login'],
      ['GET', '/favicon.ico', 'login'],
      ['POST', '/v1/auth/saml2/acs', 'saml'],
      ['GET', '/v1/auth/console', 'console'],
      ['GET', '/v1/auth/console/overview', 'console'],
    ]);
  });

  it('send a wrong method and an unknown path under a folder to a function of the folder, and the rest to $default', () => {
    assert.equal(gatewayGroup('DELETE', '/v1/auth/users/count'), 'saas-users');
    assert.equal(gatewayGroup('OPTIONS', '/v1/auth/roles'), 'definitions');
    assert.equal(gatewayGroup('GET', '/v1/billing/nope'), 'billing');
    assert.equal(gatewayGroup('GET', '/'), 'public');
    assert.equal(gatewayGroup('GET', '/robots.txt'), 'public');
    assert.equal(gatewayGroup('GET', '/v1/pricing'), 'public');
  });

  it("give a literal folder beside a parameter its rows' own routes, not the parameter's rows theirs", () => {
    const table = [
      row('GET', '/t', 'tenants'),
      row('GET', '/t/{id}', 'tenants'),
      row('DELETE', '/t/{id}', 'tenants'),
      row('PUT', '/t/{id}/plans', 'tenants'),
      row('PUT', '/t/{id}/users', 'tenant-users'),
      // A folder of another group beside the parameter: a greedy route would take `PUT /t/all/plans`.
      row('GET', '/t/all/users', 'tenant-users'),
      row('GET', '/t/all/users/{user_id}', 'tenant-users'),
      // A folder of the parameter's group, none of its own routes: `PUT /t/{id}/users` would take its row.
      row('PUT', '/t/mine/users', 'tenants'),
    ];
    const routes = gatewayRoutes(table);
    assert.deepEqual(
      routes.map((r) => `${r.method} ${r.path} ${r.fn}`),
      [
        'ANY /v1/auth/{proxy+} tenants',
        'GET /v1/auth/t/all/users tenant-users',
        'GET /v1/auth/t/all/users/{user_id} tenant-users',
        'PUT /v1/auth/t/mine/users tenants',
        'PUT /v1/auth/t/{id}/users tenant-users',
      ],
    );
    reach(routes, [
      ['PUT', '/v1/auth/t/all/plans', 'tenants'],
      ['GET', '/v1/auth/t/all', 'tenants'],
      ['PUT', '/v1/auth/t/all/users', 'tenant-users'],
      ['GET', '/v1/auth/t/all/users/u1', 'tenant-users'],
      ['PUT', '/v1/auth/t/mine/users', 'tenants'],
      ['PUT', '/v1/auth/t/t1/users', 'tenant-users'],
    ]);
  });

  it('ranks as API Gateway does: full match before greedy, literal before parameter, longest folder, method before ANY', () => {
    const routes = gatewayRoutes([row('GET', '/a/{id}', 'tenants'), row('GET', '/a/b/c', 'definitions'), row('GET', '/a/b/d', 'definitions')]);
    assert.deepEqual(
      routes.map((r) => `${r.method} ${r.path} ${r.fn}`),
      ['ANY /v1/auth/{proxy+} definitions', 'GET /v1/auth/a/{id} tenants'],
    );
    assert.deepEqual(
      selectGatewayRoutes(routes, 'GET', '/v1/auth/a/b').map((r) => r.fn),
      ['tenants'],
    );
    assert.deepEqual(
      selectGatewayRoutes(routes, 'POST', '/v1/auth/a/b').map((r) => r.fn),
      ['definitions'],
    );
    assert.deepEqual(
      selectGatewayRoutes(routes, 'GET', '/v1/auth').map((r) => r.fn),
      [],
    );
  });
});
