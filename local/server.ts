/**
 * The local HTTP server: turns each request into the API Gateway v2 event the deployed functions receive
 * and calls the same handler API Gateway would (docs/decisions.md, decision 8). Unknown routes go where API
 * Gateway's `$default` route sends them: the public function.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import {
  BASE_PATH,
  ENTRY_FUNCTIONS,
  type EntryGrants,
  gatewayGroup,
  groupTimeoutSeconds,
  matchEntry,
  matchRoute,
  routeKey,
} from '../shared/routes.js';
import { log } from '../shared/log.js';
import { ENTRY_HANDLERS, GROUP_HANDLERS } from './handlers.js';
import { buildPageAssets } from '../web/page-assets.js';
import { LocalLineSink } from './line-sink.js';

const MAX_LOCAL_BODY = 10 * 1024 * 1024; // API Gateway's own payload limit, which it answers with 413

/** A request the runner refuses before any handler runs, as API Gateway would: answered in the error shape. */
class RunnerRefusal extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const tooLarge = () => new RunnerRefusal(413, 'request_too_large', `body: larger than the ${MAX_LOCAL_BODY} bytes a request may carry`);

async function readBody(req: IncomingMessage): Promise<Buffer> {
  if (Number(req.headers['content-length'] ?? 0) > MAX_LOCAL_BODY) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_LOCAL_BODY) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The error shape of an answer the runner gives itself (the handlers give their own through the pipeline). */
function errorPayload(type: string, message: string): string {
  return JSON.stringify({ type, message, data: {} });
}

const RUNNER_ERROR_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

function isUtf8(buffer: Buffer): boolean {
  return Buffer.from(buffer.toString('utf8'), 'utf8').equals(buffer);
}

/** A request as it arrives: the raw request line, lower-case header names, the body bytes. */
export interface RawRequest {
  method: string;
  /** Path and raw query, as on the request line. */
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  httpVersion?: string;
  sourceIp?: string;
}

export function toApiGatewayEvent(req: IncomingMessage, body: Buffer): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return apiGatewayEvent({
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    headers,
    body,
    httpVersion: req.httpVersion,
    sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
  });
}

/** The API Gateway v2 event of a request: what the local server and the request fuzz hand the handlers. */
export function apiGatewayEvent(request: RawRequest): APIGatewayProxyEventV2 {
  const { url, headers, body } = request;
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  const rawQueryString = q < 0 ? '' : url.slice(q + 1);
  const method = request.method.toUpperCase();
  const query: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    query[name] = query[name] === undefined ? value : `${query[name]},${value}`;
  }
  const found = matchRoute(method, rawPath);
  const matched = found.kind === 'match' ? found.match : undefined;
  const now = new Date();
  const text = isUtf8(body);
  return {
    version: '2.0',
    routeKey: matched ? routeKey(matched.route) : '$default',
    rawPath,
    rawQueryString,
    headers,
    ...(rawQueryString ? { queryStringParameters: query } : {}),
    ...(matched && Object.keys(matched.pathParameters).length ? { pathParameters: matched.pathParameters } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method,
        path: rawPath,
        protocol: `HTTP/${request.httpVersion ?? '1.1'}`,
        sourceIp: request.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: matched ? routeKey(matched.route) : '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length ? { body: text ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: body.length > 0 && !text,
  };
}

function lambdaContext(requestId: string, functionName: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => groupTimeoutSeconds(functionName) * 1000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Each app's page, built once per process before its function's first request. */
const pages = new Map<string, Promise<void>>();

/**
 * Calls the function API Gateway would: an entry's (shared/routes.ts, ENTRIES; its page's script and style
 * built first), the route's group, or for an unknown route the `$default` one.
 */
export async function invokeHandler(event: APIGatewayProxyEventV2) {
  const entry = matchEntry(event.requestContext.http.method, event.rawPath);
  if (entry) {
    const app = (ENTRY_FUNCTIONS[entry.fn] as EntryGrants).page;
    if (app) {
      if (!pages.has(app)) pages.set(app, buildPageAssets(app));
      await pages.get(app);
    }
    return ENTRY_HANDLERS[entry.fn](event, lambdaContext(event.requestContext.requestId, entry.fn));
  }
  // As API Gateway picks among the routes (shared/routes.ts, GATEWAY_ROUTES): an unknown path under a function's
  // folder goes to that function, as on AWS, so the local API answers it through the same function.
  const group = gatewayGroup(event.requestContext.http.method, event.rawPath);
  return GROUP_HANDLERS[group](event, lambdaContext(event.requestContext.requestId, group));
}

export interface LocalApi {
  server: Server;
  port: number;
  /** `http://127.0.0.1:PORT/v1/auth` */
  baseUrl: string;
  /** Writes the API log records and sign-in counts told so far (local/line-sink.ts), as the writer function would. */
  flush(): Promise<void>;
  /** Stops answering, then writes what is left of the records and counts. */
  close(): Promise<void>;
}

export async function startLocalApi(port = 0, host = '127.0.0.1'): Promise<LocalApi> {
  const server = createServer(async (req, res) => {
    try {
      const body = await readBody(req);
      const result = await invokeHandler(toApiGatewayEvent(req, body));
      const payload = result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
      const cookies = result.cookies?.length ? { 'set-cookie': result.cookies } : {};
      res.writeHead(result.statusCode ?? 200, { ...result.headers, ...cookies, 'content-length': String(payload.length) });
      res.end(payload);
    } catch (error) {
      if (error instanceof RunnerRefusal) {
        // The rest of the body is not read: the connection closes after the answer.
        res.writeHead(error.status, { ...RUNNER_ERROR_HEADERS, connection: 'close' });
        res.end(errorPayload(error.type, error.message));
        return;
      }
      log.error('local server failed to answer', error);
      if (!res.headersSent) res.writeHead(500, RUNNER_ERROR_HEADERS);
      res.end(errorPayload('internal_server_error', 'Internal server error'));
    }
  });
  // Node answers a header section over --max-http-header-size (16 KiB) with a bare 431, or drops the socket;
  // answer in the error shape, as for every other refusal.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return;
    const [status, type, message] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'request_header_fields_too_large', 'headers: larger than the 16 KiB a request may carry']
        : [400, 'bad_request', 'the request is not valid HTTP'];
    const body = errorPayload(type, message);
    const head = Object.entries({ ...RUNNER_ERROR_HEADERS, 'content-length': String(Buffer.byteLength(body)), connection: 'close' })
      .map(([name, value]) => `${name}: ${value}`)
      .join('\r\n');
    socket.end(`HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n${head}\r\n\r\n${body}`);
  });
  // Keep-alive sockets would hold close() open for seconds.
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const actual = (server.address() as AddressInfo).port;
  const lines = new LocalLineSink().start();
  return {
    server,
    port: actual,
    baseUrl: `http://${host}:${actual}${BASE_PATH}`,
    flush: () => lines.flush(),
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await lines.stop();
    },
  };
}
