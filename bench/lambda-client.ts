/**
 * A signed client that calls the functions' handlers in this process as Lambda does, with no HTTP server
 * between: each request becomes the API Gateway v2 event local/server.ts builds for it (apiGatewayEvent),
 * goes to the function API Gateway would call (its route's group), and the result is read back as API Gateway
 * would send it (a base64 body decoded, a compressed one decompressed). `handlerCpuMs` and `handlerMs` add
 * up what the handlers took, so a benchmark reads a Lambda's own CPU time per operation.
 */
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { SignedClient, type RequestOptions, type SignedResponse } from '../client/signed-fetch.js';
import { GROUP_HANDLERS } from '../local/handlers.js';
import type { GroupHandler } from '../shared/http/pipeline.js';
import { apiGatewayEvent } from '../local/server.js';
import { authorizationHeader } from '../shared/http/signature.js';
import { matchRoute } from '../shared/routes.js';

/**
 * The Lambda context the handlers get. Its time left is long: DynamoDB Local on a shared machine answers far
 * slower than DynamoDB, so the benchmark reports elapsed time against AWS's limits rather than letting the
 * function's own timeout cut a measurement short.
 */
const context = (group: string, requestId: string): Context => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName: group,
  functionVersion: '$LATEST',
  invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${group}`,
  memoryLimitInMB: '1024',
  awsRequestId: requestId,
  logGroupName: `/aws/lambda/${group}`,
  logStreamName: 'bench',
  getRemainingTimeInMillis: () => 15 * 60_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});

export interface LambdaAnswer {
  result: APIGatewayProxyStructuredResultV2;
  /** The body's bytes as they would go on the wire (compressed when the answer is). */
  wireBytes: number;
}

export class LambdaClient extends SignedClient {
  handlerCpuMs = 0;
  /** The kernel's share of handlerCpuMs (system time: the sockets' sends and receives). */
  handlerSystemMs = 0;
  handlerMs = 0;
  invocations = 0;
  last?: LambdaAnswer;
  /** A group's handler to call instead of its function's (a benchmark's stand-in operations behind the same pipeline). */
  readonly handlers: Partial<Record<string, GroupHandler>> = {};

  override async request<T = unknown>(method: string, pathAndQuery: string, options: RequestOptions = {}): Promise<SignedResponse<T>> {
    const url = new URL(this.baseUrl + pathAndQuery);
    const body =
      options.body === undefined
        ? Buffer.alloc(0)
        : Buffer.isBuffer(options.body)
          ? options.body
          : Buffer.from(typeof options.body === 'string' ? options.body : JSON.stringify(options.body), 'utf8');
    const { saasId, apiKey, secret } = this.credentials;
    const authorization = authorizationHeader(
      secret,
      saasId,
      apiKey,
      { method, host: url.host, path: url.pathname, query: url.search.slice(1), body },
      options.at,
    );
    const headers: Record<string, string> = {
      host: url.host,
      authorization,
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...Object.fromEntries(Object.entries(options.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
    };
    const event = apiGatewayEvent({ method, url: url.pathname + url.search, headers, body });
    const cpu = process.cpuUsage();
    const start = process.hrtime.bigint();
    const found = matchRoute(method, url.pathname);
    if (found.kind !== 'match') throw new Error(`no route for ${method} ${url.pathname}`);
    const group = found.match.route.group;
    const result = (await (this.handlers[group] ?? GROUP_HANDLERS[group])(
      event,
      context(group, event.requestContext.requestId),
    )) as APIGatewayProxyStructuredResultV2;
    this.handlerMs += Number(process.hrtime.bigint() - start) / 1e6;
    const used = process.cpuUsage(cpu);
    this.handlerCpuMs += (used.user + used.system) / 1000;
    this.handlerSystemMs += used.system / 1000;
    this.invocations++;
    const wire = result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
    this.last = { result, wireBytes: wire.length };
    const encoding = String(result.headers?.['content-encoding'] ?? '');
    const decoded = encoding === 'gzip' ? gunzipSync(wire) : encoding === 'br' ? brotliDecompressSync(wire) : wire;
    const text = decoded.toString('utf8');
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(result.headers ?? {})) responseHeaders.set(name, String(value));
    return { status: result.statusCode ?? 200, headers: responseHeaders, body: parsed as T, text };
  }
}
