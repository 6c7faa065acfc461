/**
 * Public, unsigned routes: the OpenAPI document, the JWKS, the OpenID discovery document and a SaaS's role
 * template. This function only reads the table: the JWKS is served from the keys that exist (an empty set
 * before the first token is signed).
 */
import * as Type from '@sinclair/typebox';
import { openApiDocument } from '../../shared/openapi.js';
import { roleTemplateSchema } from '../../shared/schemas/infrastructure.js';
import { publicSchemas } from '../../shared/schemas/public.js';
import { infrastructureService, keyStore, openIdDiscovery } from '../../shared/wiring.js';
import { operation, PUBLIC_DOCUMENT_HEADERS, RawDocument, type BoundOperation } from '../../shared/schemas/operation.js';

export const publicOperations: Record<string, BoundOperation> = {
  getOpenApiDocument: operation({ response: Type.Object({}, { additionalProperties: true }) }, async () => openApiDocument()),
  // Read afresh: a key made or retired a moment ago by another function is published at once.
  getJwks: operation(publicSchemas.getJwks, async () => ({ keys: await keyStore().publishedKeys({ refresh: true }) }), {
    headers: PUBLIC_DOCUMENT_HEADERS,
  }),
  getOpenIdConfiguration: operation(publicSchemas.getOpenIdConfiguration, async () => openIdDiscovery(), { headers: PUBLIC_DOCUMENT_HEADERS }),
  getRoleTemplate: operation(roleTemplateSchema, async ({ query }) => {
    const template = await infrastructureService().roleTemplate(query.saas_id, query.expires, query.signature, query.template);
    // A SaaS's own template is its text as it was stored (YAML, JSON or SQL), never re-encoded.
    return 'kind' in template && typeof template.text === 'string' ? new RawDocument('text/plain; charset=utf-8', template.text) : template;
  }),
};
