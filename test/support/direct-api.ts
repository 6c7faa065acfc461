/**
 * The API without the socket: signed requests turned into the API Gateway events the local server builds
 * and handed to the very handlers it calls. For sweeps that send thousands of requests (the fuzz, the
 * isolation sweep); the rest of the tests go through HTTP.
 */
import type { Credentials } from '../../client/signed-fetch.js';
import { authorizationHeader } from '../../shared/http/signature.js';
import { API_BASE_PATHS, BASE_PATH } from '../../shared/routes.js';
import { apiGatewayEvent, invokeHandler } from '../../local/server.js';

export interface DirectRequest {
  method: string;
  /**
   * With the raw query: relative to the Auth API's base path (`/users/search?limit=5`), or from the root when
   * it starts with another API's base (`/v1/pricing/units`).
   */
  path: string;
  /** Sent byte for byte; JSON.stringify a value first. */
  body?: string | Buffer;
  /** Added to (and overriding) the signed request's headers. */
  headers?: Record<string, string>;
  /** Leave the request unsigned (public routes, signature tests). */
  unsigned?: boolean;
}

export interface DirectAnswer {
  status: number;
  headers: Record<string, unknown>;
  text: string;
  /** Parsed JSON, or undefined when the body is empty or not JSON. */
  body: unknown;
}

const HOST = 'api.test';

export class DirectApi {
  constructor(readonly credentials: Credentials) {}

  async send(request: DirectRequest): Promise<DirectAnswer> {
    const fromRoot = Object.values(API_BASE_PATHS).some((base) => request.path.startsWith(`${base}/`));
    const url = fromRoot ? request.path : BASE_PATH + request.path;
    const q = url.indexOf('?');
    const body = request.body === undefined ? Buffer.alloc(0) : Buffer.from(request.body);
    const { secret, saasId, apiKey } = this.credentials;
    const signed = {
      method: request.method,
      host: HOST,
      path: q < 0 ? url : url.slice(0, q),
      query: q < 0 ? '' : url.slice(q + 1),
      body,
    };
    const headers: Record<string, string> = {
      host: HOST,
      ...(body.length ? { 'content-type': 'application/json' } : {}),
      ...(request.unsigned ? {} : { authorization: authorizationHeader(secret, saasId, apiKey, signed) }),
      ...request.headers,
    };
    const result = await invokeHandler(apiGatewayEvent({ method: request.method, url, headers, body }));
    const text = result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8').toString('utf8') : '';
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: result.statusCode ?? 200, headers: result.headers ?? {}, text, body: parsed };
  }
}
