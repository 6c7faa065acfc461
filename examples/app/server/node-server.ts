/**
 * The example application on node:http, as `npm start` and the tests run it: the page is bundled first,
 * then served with the backend routes on 127.0.0.1. Cookies are Secure except on a loopback address,
 * where the local runner serves plain http.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Credentials } from '../../../client/signed-fetch.js';
import { buildPage, PUBLIC_DIR } from '../build.js';
import { createApp } from './app.js';
import { DEFAULT_REFRESH_MAX_AGE_SECONDS } from './config.js';
import { parseCookieHeader, type AppRequest } from './http.js';
import { jwksIdTokenVerifier } from './id-tokens.js';
import { ServiceClient } from './service-client.js';
import { loadStaticFiles } from './static-files.js';

export interface ExampleAppOptions {
  /** The service's API base, e.g. `http://127.0.0.1:8080/v1/auth`. */
  serviceBaseUrl: string;
  credentials: Credentials;
  /** 0: any free port. */
  port?: number;
  host?: string;
}

export interface ExampleApp {
  /** `http://127.0.0.1:PORT` */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The app's own bodies are small JSON; anything larger is not one of its requests. */
const MAX_BODY_BYTES = 64 * 1024;

const isLoopback = (host: string) => host === 'localhost' || host === '::1' || host.startsWith('127.');

async function toAppRequest(req: IncomingMessage): Promise<AppRequest | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  const url = new URL(req.url ?? '/', 'http://app.invalid');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers[name] = value;
  }
  return {
    method: (req.method ?? 'GET').toUpperCase(),
    path: url.pathname,
    query: url.searchParams,
    headers,
    cookies: parseCookieHeader(req.headers.cookie),
    body: Buffer.concat(chunks).toString('utf8'),
  };
}

export async function startExampleApp(options: ExampleAppOptions): Promise<ExampleApp> {
  const host = options.host ?? '127.0.0.1';
  await buildPage();
  const service = new ServiceClient(options.serviceBaseUrl, options.credentials);
  const app = createApp(
    {
      service,
      idTokens: jwksIdTokenVerifier(service),
      cookies: { secure: !isLoopback(host), refreshMaxAgeSeconds: DEFAULT_REFRESH_MAX_AGE_SECONDS },
    },
    loadStaticFiles(PUBLIC_DIR),
  );
  const server = createServer(async (req, res) => {
    const request = await toAppRequest(req);
    if (!request) {
      res.writeHead(413, { 'content-type': 'application/json' }).end(JSON.stringify({ success: false, message: 'Request too large' }));
      return;
    }
    const response = await app(request);
    const body = typeof response.body === 'string' ? Buffer.from(response.body) : response.body;
    res.writeHead(response.status, {
      ...response.headers,
      ...(response.cookies.length ? { 'set-cookie': response.cookies } : {}),
      'content-length': String(body.length),
    });
    res.end(body);
  });
  // Keep-alive sockets would hold close() open for seconds.
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
