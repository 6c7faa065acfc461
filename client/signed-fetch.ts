/**
 * A small client that signs requests exactly as the SaaSus SDKs do: the host with its port, the path and
 * the raw query as they go on the wire, and the body bytes as sent. Used by `npm run sign`, the tests and
 * the example application.
 */
import { authorizationHeader } from '../shared/http/signature.js';

export interface Credentials {
  saasId: string;
  apiKey: string;
  secret: string;
}

export interface SignedResponse<T = unknown> {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined when the body is empty. */
  body: T;
  text: string;
}

export interface RequestOptions {
  /** A value to send as JSON, or a raw string or Buffer sent byte for byte. */
  body?: unknown;
  /** Sign at another time (tests of the time window). */
  at?: Date;
  headers?: Record<string, string>;
}

export class SignedClient {
  constructor(
    /** `http://127.0.0.1:8080/v1/auth` */
    readonly baseUrl: string,
    readonly credentials: Credentials,
  ) {}

  async request<T = unknown>(method: string, pathAndQuery: string, options: RequestOptions = {}): Promise<SignedResponse<T>> {
    const url = new URL(this.baseUrl + pathAndQuery);
    const body =
      options.body === undefined
        ? undefined
        : typeof options.body === 'string' || Buffer.isBuffer(options.body)
          ? options.body
          : JSON.stringify(options.body);
    const authorization = authorizationHeader(
      this.credentials.secret,
      this.credentials.saasId,
      this.credentials.apiKey,
      {
        method,
        host: url.host,
        path: url.pathname,
        query: url.search.slice(1),
        body: Buffer.isBuffer(body) ? body : Buffer.from(body ?? '', 'utf8'),
      },
      options.at,
    );
    const response = await fetch(url, {
      method,
      headers: {
        authorization,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : new Uint8Array(body) } : {}),
    });
    const text = await response.text();
    let parsed: unknown;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get = <T = unknown>(path: string, options?: RequestOptions) => this.request<T>('GET', path, options);
  post = <T = unknown>(path: string, body?: unknown, options?: RequestOptions) => this.request<T>('POST', path, { ...options, body });
  put = <T = unknown>(path: string, body?: unknown, options?: RequestOptions) => this.request<T>('PUT', path, { ...options, body });
  patch = <T = unknown>(path: string, body?: unknown, options?: RequestOptions) => this.request<T>('PATCH', path, { ...options, body });
  delete = <T = unknown>(path: string, options?: RequestOptions) => this.request<T>('DELETE', path, options);
}
