/**
 * The one middleware stack every function runs (docs/decisions.md, decision 7): route, signature and permission,
 * body and schema, then the operation; errors are shaped last, in one place. Handlers hold only wiring.
 */
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { forbidden, unauthenticated } from '../errors.js';
import { addToLogScope, log } from '../log.js';
import { metrics } from '../metrics.js';
import { observed } from '../observability.js';
import { hasPermission } from '../permissions.js';
import { matchRoute, ROUTES, type Group, type Route } from '../routes.js';
import { chooseEncoding, compress, COMPRESS_FROM_BYTES, LAMBDA_RESPONSE_LIMIT_BYTES } from './compression.js';
import { errorAnswer, HttpProblem } from './errors.js';
import { RawDocument, type BoundOperation, type RequestContext } from '../schemas/operation.js';
import type { SignedCall } from '../schemas/apilog.js';
import { parseAuthorizationHeader, verifySignature } from './signature.js';
import { coerceStrings, parseJsonBody, validate } from './validation.js';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

interface PipelineState {
  route?: Route;
  pathParameters: Record<string, string>;
  ctx: RequestContext;
  rawBody: Buffer;
  input?: { params: unknown; query: unknown; body: unknown };
  /** X-SaaSus-Trace-Id, when the caller sent a valid one. */
  traceId?: string;
  /** The operation's answer as JSON text, before any compression: a changing call's event carries it. */
  answerText?: string;
}

/** The pipeline's per-request state rides on the Lambda context, where the handler can reach it. */
type PipelineContext = Context & { pipeline?: PipelineState };
type Middleware = MiddlewareObj<Event, Result, Error, Context>;

function stateOf(context: Context): PipelineState {
  const state = (context as PipelineContext).pipeline;
  if (!state) throw new Error('pipeline state missing: requestState() must run first');
  return state;
}

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * The caller's trace id (the SaaSus Go SDK sends one on every call): logged with the request and echoed, and
 * used for nothing else. Only a short token of safe characters is taken, so it cannot forge log lines or
 * headers; any other value is ignored as if absent.
 */
export const TRACE_ID_HEADER = 'x-saasus-trace-id';
const TRACE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** The request's valid trace id, or undefined. */
export function traceIdOf(headers: Record<string, string | undefined> | undefined): string | undefined {
  const value = headerOf(headers, TRACE_ID_HEADER);
  return value !== undefined && TRACE_ID.test(value) ? value : undefined;
}

/**
 * A header by its lower-case name, as API Gateway gives them, else under any case. Looked up without copying
 * the headers (Object.entries on every request and header cost about 0.1 ms of CPU per sign-in, most often to
 * find that a request has no trace id).
 */
function headerOf(headers: Record<string, string | undefined> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const exact = headers[name];
  if (exact !== undefined) return exact;
  for (const key in headers) if (key.length === name.length && key.toLowerCase() === name) return headers[key];
  return undefined;
}

const traceHeaders = (state: PipelineState | undefined): Record<string, string> => (state?.traceId ? { [TRACE_ID_HEADER]: state.traceId } : {});

function header(event: Event, name: string): string | undefined {
  return headerOf(event.headers, name);
}

/** Request id and raw body first: every later step and every answer uses them. */
const requestState = (): Middleware => ({
  before: (request) => {
    const { event, context } = request;
    const rawBody = event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
    const requestId = event.requestContext?.requestId || randomUUID();
    const traceId = traceIdOf(event.headers);
    addToLogScope({ requestId, ...(traceId ? { traceId } : {}) });
    (context as PipelineContext).pipeline = {
      ...(traceId ? { traceId } : {}),
      pathParameters: {},
      rawBody,
      ctx: {
        requestId,
        saasId: '',
        apiKey: '',
        operationId: '',
      },
    };
  },
});

/** No operation and no entry answers the request: the only refusal a browser's page may replace (UnmatchedPage). */
class NoRoute extends HttpProblem {}

/**
 * The operation is found here, in the route table: API Gateway brings a function every request under the folders
 * it owns (greedy routes, shared/routes.ts GATEWAY_ROUTES) and `$default` the rest to the public one, so unknown
 * paths get 404 and wrong methods 405 in the service's error shape from whichever function they reach, before any
 * signature is looked at.
 */
const routing = (group: Group): Middleware => ({
  before: ({ event, context }) => {
    const state = stateOf(context);
    const method = event.requestContext.http.method;
    const found = matchRoute(method, event.rawPath);
    if (found.kind === 'not-found') throw new NoRoute(404, 'not_found', `no route for ${event.rawPath}`);
    if (found.kind === 'method-not-allowed') {
      throw new NoRoute(405, 'method_not_allowed', `${method} is not allowed on ${event.rawPath}`, {
        allow: found.allowed.join(', '),
      });
    }
    const { route, pathParameters } = found.match;
    // A misrouted event would run an operation under the wrong function's grants: refuse it.
    if (route.group !== group) throw new Error(`route ${route.operationId} of ${route.group} reached the ${group} function`);
    state.route = route;
    state.pathParameters = pathParameters;
    state.ctx.operationId = route.operationId;
    addToLogScope({ operation: route.operationId });
  },
});

/** What the signature check needs of an API key. */
export interface SigningKey {
  saasId: string;
  apiKey: string;
  permissions: readonly string[];
  secret: string;
}

/** The active key a request names (undefined: unknown, revoked, or of another SaaS); wired in shared/wiring/pipeline.ts. */
export type SigningKeyLookup = (saasId: string, apiKey: string) => Promise<SigningKey | undefined>;

/** The pipeline's limits, from the deployment's settings (the wiring passes them). */
export interface PipelineSettings {
  /** Minutes either side of now that a SAASUSSIGV1 time may differ by (clock skew). */
  signatureWindowMinutes: number;
  /** Largest accepted request body, in bytes, unless an operation's schema sets its own. */
  maxBodyBytes: number;
}

/** SAASUSSIGV1 over the raw request line and raw body; then the key's permissions against the route's. */
const signatureCheck = (signingKeys: SigningKeyLookup, { signatureWindowMinutes }: PipelineSettings): Middleware => ({
  before: async ({ event, context }) => {
    const state = stateOf(context);
    const route = state.route as Route;
    if (route.permission === null) return;
    const parsed = parseAuthorizationHeader(header(event, 'authorization'));
    if (!parsed) {
      log.debug('request refused (401)', { reason: 'no SAASUSSIGV1 Authorization header' });
      throw unauthenticated('invalid_signature', 'Authorization: a SAASUSSIGV1 signature is required');
    }
    const key = await signingKeys(parsed.saasId, parsed.apiKey);
    const signed = {
      method: event.requestContext.http.method,
      host: header(event, 'host') ?? event.requestContext.domainName,
      path: event.rawPath,
      query: event.rawQueryString ?? '',
      body: state.rawBody,
    };
    if (!key || !verifySignature(key.secret, parsed, signed, new Date(), signatureWindowMinutes)) {
      // One answer for unknown key, revoked key, wrong SaaS and bad signature: nothing to probe. The operator
      // learns which it was at debug level (identifiers only).
      log.debug('request refused (401)', {
        reason: key
          ? `the signature does not match (the secret, or the signed host ${signed.host}, path, query or body differ, or the time is outside ${signatureWindowMinutes} minutes)`
          : 'no active API key with this id in this SaaS (unknown or revoked)',
        saasId: parsed.saasId,
      });
      throw unauthenticated('invalid_signature', 'the request signature is not valid');
    }
    state.ctx.saasId = key.saasId;
    state.ctx.apiKey = key.apiKey;
    addToLogScope({ saasId: key.saasId });
    if (!hasPermission(key.permissions, route.permission)) {
      throw forbidden('permission_denied', `this API key may not call ${route.operationId} (needs ${route.permission})`);
    }
  },
});

/** Size limit, JSON parsing and the operation's schema for path, query and body. */
const inputCheck = (operations: Record<string, BoundOperation>, settings: PipelineSettings): Middleware => ({
  before: async ({ event, context }) => {
    const state = stateOf(context);
    const op = operations[(state.route as Route).operationId];
    if (!op) return;
    const { schema } = op;
    const maxBodyBytes = schema.maxBodyBytes ?? settings.maxBodyBytes;
    if (state.rawBody.length > maxBodyBytes) {
      throw new HttpProblem(400, 'request_too_large', `body: larger than the ${maxBodyBytes} bytes allowed`);
    }
    const params = schema.params ? validate(schema.params, coerceStrings(schema.params, state.pathParameters), 'path') : undefined;
    const query = schema.query ? validate(schema.query, coerceStrings(schema.query, event.queryStringParameters ?? {}), 'query') : undefined;
    let body: unknown;
    if (schema.body) {
      body = await parseJsonBody(state.rawBody);
      if (body === undefined) throw new HttpProblem(400, 'invalid_parameter', 'body: a JSON body is required');
      body = validate(schema.body, body, 'body');
    }
    state.input = { params, query, body };
  },
});

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };
/**
 * On every answer, errors included. Answers carry tokens, codes and secrets: no cache may keep them
 * (RFC 6749 §5.1); an operation whose answer is public says so itself (PUBLIC_DOCUMENT_HEADERS).
 */
export const SECURITY_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

/**
 * The page a person reads at an address that no operation and no entry answers (every API function passes the
 * login screen's, web/login/unmatched-page.ts, since greedy routes and `$default` may bring any of them one); undefined
 * to keep the error shape. It gives the headers and body; the refusal keeps its status (404, or 405 with Allow).
 */
export type UnmatchedPage = (event: Event) => { headers: Record<string, string>; body: string } | undefined;

/**
 * A browser opening an address (a link, the address bar): it asks for HTML and signs nothing. SDKs, signed
 * calls and fetch() with its default Accept (any type) are not, and keep the error shape exactly.
 */
export function isBrowserNavigation(event: Event): boolean {
  return /text\/html/i.test(header(event, 'accept') ?? '') && header(event, 'authorization') === undefined;
}

/** Registered first so that its onError runs last, after every other middleware had its say. */
const errorResponder = (unmatchedPage?: UnmatchedPage): Middleware => ({
  after: ({ context, response }) => {
    if (response) {
      const state = stateOf(context);
      response.headers = { ...SECURITY_HEADERS, ...response.headers, [REQUEST_ID_HEADER]: state.ctx.requestId, ...traceHeaders(state) };
    }
  },
  onError: (request) => {
    const state = (request.context as PipelineContext).pipeline;
    const requestId = state?.ctx.requestId ?? randomUUID();
    const answer = errorAnswer(request.error);
    // The log scope already carries the request id, SaaS and operation.
    if (answer.unexpected) log.error('unexpected error', request.error);
    const page = request.error instanceof NoRoute && unmatchedPage && isBrowserNavigation(request.event) ? unmatchedPage(request.event) : undefined;
    if (page) {
      request.response = {
        statusCode: answer.status,
        headers: { ...page.headers, ...answer.headers, [REQUEST_ID_HEADER]: requestId, ...traceHeaders(state) },
        body: page.body,
      };
      return;
    }
    request.response = {
      statusCode: answer.status,
      headers: { ...SECURITY_HEADERS, ...JSON_HEADERS, ...answer.headers, [REQUEST_ID_HEADER]: requestId, ...traceHeaders(state) },
      body: JSON.stringify(answer.body),
    };
  },
});

/** Where to read an answer in pages when it is too large to go in one (docs/deployment-shape.md, "Unpaged lists"). */
const PAGED_INSTEAD: Record<string, string> = {
  getSaasUsers: 'GET /users/search (cursor pages of up to 100)',
  getAllTenantUsers: 'GET /tenants/all/users/search (cursor pages of up to 100)',
  getTenantUsers: 'GET /tenants/all/users/search?tenant_id= (cursor pages of up to 100)',
};

/**
 * A large answer goes compressed when the client accepts gzip or br (compression.ts); one that would
 * still pass Lambda's 6 MB limit is refused here in the error shape, naming the paged operation to use,
 * rather than lost as API Gateway's bare 502. Runs the same locally, so local mode refuses what AWS would.
 */
const answerSize = (): Middleware => ({
  after: ({ event, context, response }) => {
    if (!response || typeof response.body !== 'string' || response.isBase64Encoded || response.body.length < COMPRESS_FROM_BYTES) return;
    const encoding = chooseEncoding(header(event, 'accept-encoding'));
    const plain = Buffer.from(response.body, 'utf8');
    if (encoding) {
      response.body = compress(plain, encoding).toString('base64');
      response.isBase64Encoded = true;
      response.headers = { ...response.headers, 'content-encoding': encoding, vary: 'accept-encoding' };
    } else {
      response.headers = { ...response.headers, vary: 'accept-encoding' };
    }
    // Lambda counts the result as JSON: a JSON body's quotes are escaped in it, base64 is not.
    const resultBytes = Buffer.byteLength(JSON.stringify(response));
    if (resultBytes <= LAMBDA_RESPONSE_LIMIT_BYTES) return;
    const operationId = stateOf(context).ctx.operationId;
    const paged = PAGED_INSTEAD[operationId];
    throw new HttpProblem(
      406,
      'response_too_large',
      `the answer of ${operationId} (${plain.length} bytes of JSON${encoding ? `, ${resultBytes} as sent ${encoding}-compressed` : ''}) is larger than ` +
        `the ${LAMBDA_RESPONSE_LIMIT_BYTES} bytes a function may answer` +
        `${encoding ? '' : ': send Accept-Encoding: gzip to receive it compressed'}${paged ? `${encoding ? ': read' : ', or read'} it with ${paged}` : ''}`,
    );
  },
});

/**
 * Tells a signed call's API log record (wired in shared/wiring/api-log.ts): a line for the API log writer, no store request
 * on the call's path (docs/deployment-shape.md, "The API log").
 */
export type CallRecorder = (call: SignedCall) => void | Promise<void>;

/**
 * Every call whose signature verified is recorded once its answer is ready. A failure to tell it is logged and
 * counted, never the call's failure: the answer stands as the operation made it. A recorder that answers a promise
 * (the sign-in bench's store write per call, for comparison) is waited for, since a frozen Lambda could lose it.
 */
function recordCall(recorder: CallRecorder, event: Event, context: Context, answer: Result, at: number, started: number): Promise<void> | undefined {
  const state = (context as PipelineContext).pipeline;
  if (!state?.ctx.saasId) return;
  const call: SignedCall = {
    saasId: state.ctx.saasId,
    apiKey: state.ctx.apiKey,
    requestId: state.ctx.requestId,
    method: event.requestContext.http.method,
    rawPath: event.rawPath,
    rawQuery: event.rawQueryString ?? '',
    status: answer.statusCode ?? 200,
    sourceIp: event.requestContext.http.sourceIp,
    referer: header(event, 'referer'),
    at,
    latencyMs: performance.now() - started,
  };
  const method = call.method;
  if (state.route && method !== 'GET' && method !== 'HEAD') {
    call.change = {
      api: state.route.api,
      operationId: state.route.operationId,
      routePath: state.route.path,
      params: state.pathParameters,
      requestBody: state.rawBody.toString('utf8'),
      // A compressed answer is base64 of gzip: the event carries the JSON it was made from.
      responseBody: (answer.isBase64Encoded ? state.answerText : answer.body) ?? '',
      traceId: state.traceId ?? state.ctx.requestId,
    };
  }
  const failed = (error: unknown) => {
    metrics.count('ApiLogWriteFailed');
    log.warn('API log: the call was answered but its record was not told', { error: error instanceof Error ? error.message : String(error) });
  };
  try {
    return recorder(call)?.catch(failed);
  } catch (error) {
    failed(error);
    return undefined;
  }
}

export type GroupHandler = ReturnType<typeof createGroupHandler>;

export function createGroupHandler(
  group: Group,
  operations: Record<string, BoundOperation>,
  signingKeys: SigningKeyLookup,
  settings: PipelineSettings,
  recorder?: CallRecorder,
  unmatchedPage?: UnmatchedPage,
) {
  for (const operationId of Object.keys(operations)) {
    const route = ROUTES.find((r) => r.operationId === operationId);
    if (route?.group !== group) throw new Error(`operation ${operationId} is not a route of the ${group} group`);
  }
  const pipeline = middy<Event, Result, Error, Context>()
    .use(errorResponder(unmatchedPage))
    .use(answerSize())
    .use(requestState())
    .use(routing(group))
    .use(signatureCheck(signingKeys, settings))
    .use(inputCheck(operations, settings))
    .handler(async (_event, context) => {
      const state = stateOf(context);
      const route = state.route as Route;
      const op = operations[route.operationId];
      if (!op || !state.input) {
        throw new HttpProblem(501, 'not_implemented', `${route.operationId} is not available in this version`);
      }
      const output = await op.run(state.input, state.ctx);
      if (output instanceof RawDocument) {
        return {
          statusCode: route.status,
          headers: { ...op.headers, 'content-type': output.contentType, 'content-disposition': 'attachment' },
          body: output.text,
        };
      }
      state.answerText = route.noBody || output === undefined ? '' : JSON.stringify(output);
      return { statusCode: route.status, headers: { ...(route.noBody ? {} : JSON_HEADERS), ...op.headers }, body: state.answerText };
    });
  return observed<Event, Result>(async (event, context) => {
    const [at, started] = [Date.now(), performance.now()];
    const answer = await pipeline(event, context);
    const recording = recorder && recordCall(recorder, event, context, answer, at, started);
    if (recording) await recording;
    // Debug only: API Gateway's access log already has a line per request.
    log.debug('request answered', { method: event.requestContext.http.method, status: answer.statusCode });
    return answer;
  });
}
