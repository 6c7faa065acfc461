/**
 * Public, unsigned routes, and API Gateway's `$default` route: every path the route table does not know
 * ends here and gets a 404 or 405 in the service's error shape.
 */
import { Type } from '@sinclair/typebox';
import { operation } from '../../shared/http/operation.js';
import { createGroupHandler } from '../../shared/http/pipeline.js';
import { openApiDocument } from '../../shared/openapi.js';
import { roleTemplateSchema } from '../../shared/schemas/infrastructure.js';
import { infrastructureService } from '../../shared/wiring.js';

export const handler = createGroupHandler('public', {
  getOpenApiDocument: operation({ response: Type.Object({}, { additionalProperties: true }) }, async () => openApiDocument()),
  getRoleTemplate: operation(roleTemplateSchema, ({ query }) =>
    infrastructureService().roleTemplate(query.saas_id, query.expires, query.signature),
  ),
});
