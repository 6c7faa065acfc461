/**
 * The OpenAPI 3.1 document, generated from the route table and the operation schemas: the same sources
 * that drive routing and validation, so the document cannot promise what the service does not do.
 */
import type { TSchema } from '@sinclair/typebox';
import { fullPath, pathParamNames, ROUTES, type Route } from './routes.js';
import { OPERATION_SCHEMAS } from './schemas/index.js';

type Json = Record<string, unknown>;

const ERROR_SCHEMA: Json = {
  type: 'object',
  required: ['type', 'message', 'data'],
  properties: {
    type: { type: 'string', description: 'a stable snake_case code per condition' },
    message: { type: 'string' },
    data: {
      type: 'object',
      properties: { sign_in_page_url: { type: 'string' } },
      additionalProperties: true,
    },
  },
};

/** Refusals an operation answers beyond the ones every signed route has (by operation id). */
const MORE_ERRORS: Record<string, Record<string, string>> = {
  getAuthCredentials: { '404': 'No such code: unknown, used, expired, or saved with a PKCE challenge (trade it at /credentials/exchange)' },
  exchangeAuthCredentials: {
    '401': 'invalid_code_verifier: the verifier does not match the challenge the code was saved with (the code is spent)',
    '404': 'code_not_found: unknown, used or expired, or saved without a challenge',
  },
};

/** `X-SaaSus-Trace-Id` (sent by the Go SDK): the request's trace id in the logs, echoed; trusted for nothing else. */
const TRACE_ID_PARAMETER: Json = {
  name: 'X-SaaSus-Trace-Id',
  in: 'header',
  required: false,
  description: "The caller's trace id: logged with the request and echoed on the answer; ignored unless 1–128 safe characters.",
  schema: { type: 'string', maxLength: 128 },
};

/** Named schemas ($id) go to components and are referenced; TypeBox's symbols are dropped by JSON. */
function collect(schema: TSchema, components: Record<string, Json>): Json {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const { $id, ...rest } = node as Json;
    const copy = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, walk(v)]));
    if (typeof $id === 'string') {
      components[$id] = copy;
      return { $ref: `#/components/schemas/${$id}` };
    }
    return copy;
  };
  return walk(JSON.parse(JSON.stringify(schema))) as Json;
}

function errorResponse(description: string): Json {
  return { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
}

function operationObject(route: Route, components: Record<string, Json>): Json {
  const schema = OPERATION_SCHEMAS[route.operationId] ?? {};
  const parameters: Json[] = pathParamNames(route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: schema.params?.properties[name] ? collect(schema.params.properties[name], components) : { type: 'string' },
  }));
  for (const [name, property] of Object.entries(schema.query?.properties ?? {})) {
    parameters.push({
      name,
      in: 'query',
      required: schema.query?.required?.includes(name) ?? false,
      schema: collect(property, components),
    });
  }
  const success: Json = { description: route.noBody ? 'Success, no body' : 'Success' };
  if (!route.noBody) {
    success.content = {
      'application/json': { schema: schema.response ? collect(schema.response, components) : { type: 'object' } },
    };
  }
  const responses: Json = { [String(route.status)]: success };
  if (route.permission) {
    responses['400'] = errorResponse('Invalid input; the message names the field');
    responses['401'] = errorResponse('Missing or invalid SAASUSSIGV1 signature');
    responses['403'] = errorResponse('The API key lacks the permission');
    if (route.path.includes('{')) responses['404'] = errorResponse('Not found');
    for (const [status, description] of Object.entries(MORE_ERRORS[route.operationId] ?? {})) responses[status] = errorResponse(description);
    parameters.push({ $ref: '#/components/parameters/TraceId' });
  }
  responses['500'] = errorResponse('Unexpected error; the body says nothing internal');
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.api, route.group],
    ...(route.permission ? { 'x-permission': route.permission } : { security: [] }),
    ...(parameters.length ? { parameters } : {}),
    ...(schema.body ? { requestBody: { required: true, content: { 'application/json': { schema: collect(schema.body, components) } } } } : {}),
    responses,
  };
}

let built: Json | undefined;

export function openApiDocument(): Json {
  if (built) return built;
  const components: Record<string, Json> = { Error: ERROR_SCHEMA };
  const paths: Record<string, Json> = {};
  for (const route of ROUTES) {
    // Paths from the root: the Auth, Pricing and Billing APIs each have their own base (/v1/auth, /v1/pricing, /v1/billing).
    const path = fullPath(route);
    paths[path] ??= {};
    (paths[path] as Json)[route.method.toLowerCase()] = operationObject(route, components);
  }
  built = {
    openapi: '3.1.0',
    info: {
      title: 'Identity and tenant management API',
      version: '1.0.0',
      description:
        'Wire-compatible with the SaaSus Platform Auth API (/v1/auth), Pricing API (/v1/pricing) and Billing API (/v1/billing). Signed requests: `Authorization: SAASUSSIGV1 Sig=<hex>, SaaSID=<id>, APIKey=<key>`.',
    },
    servers: [{ url: '/' }],
    security: [{ saasusSignature: [] }],
    paths,
    components: {
      schemas: components,
      parameters: { TraceId: TRACE_ID_PARAMETER },
      securitySchemes: {
        saasusSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            'SAASUSSIGV1: lower-case hex HMAC-SHA256 with the API key secret over YYYYMMDDHHmm (UTC) + API key + METHOD + host[:port] + path + (?query) + raw body.',
        },
      },
    },
  };
  return built;
}
