import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { validate } from '@readme/openapi-parser';
import { openApiDocument } from '../../shared/openapi.js';
import { fullPath, ROUTES } from '../../shared/routes.js';

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

  it('validates', async () => {
    const result = await validate(structuredClone(doc) as never);
    assert.equal(result.valid, true, JSON.stringify((result as { errors?: unknown }).errors ?? result, null, 2).slice(0, 2000));
  });
});
