/**
 * SCIM 2.0's HTTP side (RFC 7644), beside the tenant-users group's signed routes in the same function: the path
 * names the SaaS and the tenant, a bearer token of that tenant admits the call, and every answer, refusals
 * included, is `application/scim+json` in SCIM's shapes. The rules are shared/domain/scim's.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { BASE_PATH, SCIM_PATH } from '../../shared/routes.js';
import { config } from '../../shared/config.js';
import { DomainError } from '../../shared/errors.js';
import { log } from '../../shared/log.js';
import { paging, RESOURCE_TYPES, SCHEMA, SCHEMAS, SERVICE_PROVIDER_CONFIG, scimInvalid } from '../../shared/domain/scim/scim-protocol.js';
import { scimBaseUrl, scimDirectory, scimTokenService } from '../../shared/wiring.js';

type Result = APIGatewayProxyStructuredResultV2;

const PREFIX = `${BASE_PATH}${SCIM_PATH}/`;
const HEADERS = { 'content-type': 'application/scim+json', 'cache-control': 'no-store' };
const STATUS: Record<DomainError['kind'], number> = {
  invalid: 400,
  not_found: 404,
  conflict: 409,
  unauthenticated: 401,
  forbidden: 403,
  too_many_requests: 429,
  unavailable: 503,
};

export const isScimPath = (rawPath: string) => rawPath.startsWith(PREFIX);

const answer = (statusCode: number, body?: unknown, headers: Record<string, string> = {}): Result => ({
  statusCode,
  headers: { ...HEADERS, ...headers },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

/** RFC 7644 §3.12: `status` is a string, `scimType` only for the 400s and 409s that have one. */
function refusal(status: number, detail: string, scimType?: string, headers?: Record<string, string>): Result {
  return answer(status, { schemas: [SCHEMA.error], status: String(status), ...(scimType ? { scimType } : {}), detail }, headers);
}

function body(event: APIGatewayProxyEventV2): unknown {
  if (!event.body) return undefined;
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(text) > config().maxBodyBytes) throw scimInvalid('tooMany', `the body is larger than ${config().maxBodyBytes} bytes`);
  try {
    return JSON.parse(text);
  } catch {
    throw scimInvalid('invalidSyntax', 'the body is not JSON');
  }
}

const decode = (segment: string | undefined) => {
  try {
    return segment === undefined ? undefined : decodeURIComponent(segment);
  } catch {
    throw scimInvalid('invalidPath', 'the path is not well encoded');
  }
};

export async function scimHandler(event: APIGatewayProxyEventV2): Promise<Result> {
  try {
    return await route(event);
  } catch (error) {
    if (error instanceof DomainError) {
      const retry = error.data.retry_after_seconds;
      return refusal(
        STATUS[error.kind],
        error.message,
        error.data.scimType as string | undefined,
        typeof retry === 'number' ? { 'retry-after': String(retry) } : undefined,
      );
    }
    log.error('SCIM call failed', error);
    return refusal(500, 'internal server error');
  }
}

async function route(event: APIGatewayProxyEventV2): Promise<Result> {
  const method = event.requestContext.http.method;
  const [saasId, tenantId, resource, id, ...rest] = event.rawPath.slice(PREFIX.length).split('/').map(decode);
  if (!saasId || !tenantId || !resource || rest.length > 0) return refusal(404, 'no such SCIM endpoint');
  await scimTokenService().admit(saasId, tenantId, event.headers.authorization);
  const query = event.queryStringParameters ?? {};
  const base = scimBaseUrl(saasId, tenantId);
  const directory = scimDirectory();
  const excludeMembers = /(^|,)\s*members\s*(,|$)/i.test(query.excludedAttributes ?? '');
  const list = { filter: query.filter, paging: paging(query), excludeMembers };
  const key = `${method} ${resource}${id === undefined ? '' : '/:id'}`;
  switch (key) {
    case 'GET ServiceProviderConfig':
      return answer(200, SERVICE_PROVIDER_CONFIG);
    case 'GET ResourceTypes':
      return answer(200, { schemas: [SCHEMA.list], totalResults: RESOURCE_TYPES.length, Resources: RESOURCE_TYPES });
    case 'GET Schemas':
      return answer(200, { schemas: [SCHEMA.list], totalResults: SCHEMAS.length, Resources: SCHEMAS });
    case 'GET Users':
      return answer(200, await directory.listUsers(saasId, tenantId, list, base));
    case 'POST Users':
      return answer(201, await directory.createUser(saasId, tenantId, body(event), base));
    case 'GET Users/:id':
      return answer(200, await directory.getUser(saasId, tenantId, id as string, base));
    case 'PUT Users/:id':
      return answer(200, await directory.replaceUser(saasId, tenantId, id as string, body(event), base));
    case 'PATCH Users/:id':
      return answer(200, await directory.patchUser(saasId, tenantId, id as string, body(event), base));
    case 'DELETE Users/:id':
      await directory.deleteUser(saasId, tenantId, id as string);
      return answer(204);
    case 'GET Groups':
      return answer(200, await directory.listGroups(saasId, tenantId, list, base));
    case 'POST Groups':
      return answer(201, await directory.createGroup(saasId, tenantId, body(event), base));
    case 'GET Groups/:id':
      return answer(200, await directory.getGroup(saasId, tenantId, id as string, excludeMembers, base));
    case 'PUT Groups/:id':
      return answer(200, await directory.replaceGroup(saasId, tenantId, id as string, body(event), base));
    case 'PATCH Groups/:id':
      await directory.patchGroup(saasId, tenantId, id as string, body(event));
      return answer(204);
    case 'DELETE Groups/:id':
      await directory.deleteGroup(saasId, tenantId, id as string);
      return answer(204);
    default:
      return refusal(id === undefined && ['Users', 'Groups'].includes(resource) ? 405 : 404, `no SCIM endpoint ${method} ${resource}`);
  }
}
