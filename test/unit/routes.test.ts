import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { hasPermission } from '../../shared/permissions.js';
import { matchRoute, ROUTES, routeKey } from '../../shared/routes.js';

describe('route table', () => {
  it('has one row per method and path, and unique operation ids', () => {
    assert.equal(new Set(ROUTES.map(routeKey)).size, ROUTES.length);
    assert.equal(new Set(ROUTES.map((r) => r.operationId)).size, ROUTES.length);
  });

  it('holds every operation of the SaaSus Auth API (84 numbered, plus the extras)', () => {
    const expected = [
      'GET /basic-info',
      'PUT /sign-in-settings',
      'POST /users/count',
      'GET /users/search',
      'POST /users/{user_id}/email/confirm',
      'DELETE /users/{user_id}/providers/{provider_name}',
      'POST /aws-marketplace/sign-up-confirm',
      'POST /credentials',
      'POST /tenants/{tenant_id}/users/{user_id}/envs/{env_id}/roles',
      'DELETE /tenants/{tenant_id}/users/{user_id}/envs/{env_id}/roles/{role_name}',
      'PATCH /envs/{env_id}',
      'PUT /plans/reset',
      'GET /tenants/{tenant_id}/stripe-customer',
      'PATCH /invitations/{invitation_id}/validate',
      'PATCH /single-tenant/settings',
      'GET /userinfo',
      'GET /auth-info',
      'GET /customize-page-settings',
      'GET /users/{user_id}/mfa/preference',
      'GET /envs/{env_id}',
      'DELETE /envs/{env_id}',
      'DELETE /roles/{role_name}',
      'GET /invitations/{invitation_id}/validity',
      'GET /users/count',
      'GET /tenants/all/users/count',
      'GET /.well-known/jwks.json',
      'GET /.well-known/openid-configuration',
    ];
    const have = new Set(ROUTES.map((r) => `${r.method} ${r.path}`));
    for (const route of expected) assert.ok(have.has(route), route);
    assert.equal(ROUTES.filter((r) => r.group !== 'public').length >= 84, true);
  });

  it('prefers literal segments, as API Gateway does', () => {
    const count = matchRoute('GET', '/v1/auth/users/count');
    assert.equal(count.kind === 'match' && count.match.route.operationId, 'getSaasUsersCount');
    const all = matchRoute('GET', '/v1/auth/tenants/all/users/u1');
    assert.equal(all.kind === 'match' && all.match.route.operationId, 'getAllTenantUser');
    const one = matchRoute('GET', '/v1/auth/tenants/t1/users/u1');
    assert.deepEqual(one.kind === 'match' && one.match.pathParameters, { tenant_id: 't1', user_id: 'u1' });
  });

  it('decodes path parameters and refuses malformed encodings', () => {
    const m = matchRoute('PATCH', '/v1/auth/roles/sales%20lead');
    assert.deepEqual(m.kind === 'match' && m.match.pathParameters, { role_name: 'sales lead' });
    assert.equal(matchRoute('PATCH', '/v1/auth/roles/%E0%A4%A').kind, 'not-found');
  });

  it('tells a wrong method from an unknown path', () => {
    assert.deepEqual(matchRoute('DELETE', '/v1/auth/roles'), { kind: 'method-not-allowed', allowed: ['GET', 'POST'] });
    assert.equal(matchRoute('GET', '/v1/auth/nope').kind, 'not-found');
    assert.equal(matchRoute('GET', '/v1/auth/roles/').kind, 'not-found');
    assert.equal(matchRoute('GET', '/roles').kind, 'not-found');
  });

  it('grants by exact permission, area wildcard or star', () => {
    assert.equal(hasPermission(['definition:read'], 'definition:read'), true);
    assert.equal(hasPermission(['definition:read'], 'definition:write'), false);
    assert.equal(hasPermission(['definition:*'], 'definition:write'), true);
    assert.equal(hasPermission(['tenant:*'], 'definition:write'), false);
    assert.equal(hasPermission(['*'], 'sign-in'), true);
    assert.equal(hasPermission([], 'sign-in'), false);
  });

  it('keeps migration out of star: only a key that names it may import or export', () => {
    assert.equal(hasPermission(['*'], 'migration:write'), false);
    assert.equal(hasPermission(['*'], 'migration:read'), false);
    assert.equal(hasPermission(['migration:write'], 'migration:read'), false);
    assert.equal(hasPermission(['*', 'user:*'], 'migration:write'), false);
    assert.equal(hasPermission(['migration:write'], 'migration:write'), true);
    assert.equal(hasPermission(['*', 'migration:*'], 'migration:write'), true);
  });
});
