import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { validate } from '@readme/openapi-parser';
import { openApiDocument } from '../../shared/openapi.js';
import { fullPath, ROUTES, type Api } from '../../shared/routes.js';
import { definition, readSdkDefinition } from '../compat/sdk-definition.js';

describe('OpenAPI document', () => {
  const doc = openApiDocument() as { openapi: string; info: { version: string }; paths: Record<string, Record<string, { operationId: string }>> };

  it('is OpenAPI 3.1 at interface version 1.0.0', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '1.0.0');
  });

  it('has every route of the table, under its operation id', () => {
    for (const route of ROUTES) {
      assert.equal(doc.paths[fullPath(route)]?.[route.method.toLowerCase()]?.operationId, route.operationId, `${route.method} ${fullPath(route)}`);
    }
    const count = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    assert.equal(count, ROUTES.length);
  });

  it('names every operation the SDKs know with the SDKs’ id (the first letter lower-cased)', () => {
    const apis: [Api, typeof definition][] = [
      ['auth', definition],
      ['pricing', readSdkDefinition('saasus-pricing-api.yml').definition],
      ['billing', readSdkDefinition('saasus-billing-api.yml').definition],
    ];
    const differing = apis.flatMap(([api, sdk]) =>
      Object.entries(sdk.paths)
        .flatMap(([path, item]) => Object.entries(item).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op.operationId] as const))
        .flatMap(([key, id]) => {
          const route = ROUTES.find((r) => r.api === api && `${r.method} ${r.path}` === key);
          const expected = id.charAt(0).toLowerCase() + id.slice(1);
          // Operation ids are unique in one document: the Pricing and Billing APIs' error-test routes say whose.
          const renamed = api !== 'auth' && id === 'ReturnInternalServerError';
          return route && !renamed && route.operationId !== expected ? [`${api} ${key}: ${route.operationId}, not ${expected}`] : [];
        }),
    );
    assert.deepEqual(differing, []);
  });

  it("lists the PKCE exchange's own refusals and the trace-id header of signed operations", () => {
    const operation = (path: string, method: string) =>
      (doc.paths[path]?.[method] ?? {}) as { responses?: Record<string, unknown>; parameters?: { $ref?: string }[] };
    const exchange = operation('/v1/auth/credentials/exchange', 'post');
    assert.deepEqual(Object.keys(exchange.responses ?? {}).sort(), ['200', '400', '401', '403', '404', '500']);
    assert.ok(exchange.parameters?.some((p) => p.$ref === '#/components/parameters/TraceId'));
    // Unsigned routes (the JWKS) take no trace id: nothing is logged under a caller's name there.
    assert.equal(operation('/v1/auth/.well-known/jwks.json', 'get').parameters, undefined);
  });

  it('validates', async () => {
    const result = await validate(structuredClone(doc) as never);
    assert.equal(result.valid, true, JSON.stringify((result as { errors?: unknown }).errors ?? result, null, 2).slice(0, 2000));
  });
});
