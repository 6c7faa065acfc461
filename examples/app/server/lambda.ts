/**
 * The example backend on AWS Lambda behind an API Gateway HTTP API (payload format 2.0): the same app as
 * the local server, with its settings from the environment (examples/app/infra/stack.ts sets them) and the
 * page's files copied beside the bundle.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { fileURLToPath } from 'node:url';
import { createApp } from './app.js';
import { appSettingsFromEnv } from './config.js';
import { parseCookieHeader } from './http.js';
import { jwksIdTokenVerifier } from './id-tokens.js';
import { ServiceClient } from './service-client.js';
import { loadStaticFiles } from './static-files.js';

const settings = appSettingsFromEnv();
const service = new ServiceClient(settings.serviceBaseUrl, settings.credentials);
const app = createApp(
  { service, idTokens: jwksIdTokenVerifier(service), cookies: { secure: true, refreshMaxAgeSeconds: settings.refreshMaxAgeSeconds } },
  loadStaticFiles(fileURLToPath(new URL('./public/', import.meta.url))),
);

export async function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers[name.toLowerCase()] = value;
  const body = event.body ? (event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body) : '';
  const response = await app({
    method: event.requestContext.http.method.toUpperCase(),
    path: event.rawPath,
    headers,
    // Payload 2.0 moves the Cookie header into `cookies`.
    cookies: parseCookieHeader((event.cookies ?? []).join('; ')),
    body,
  });
  const text = typeof response.body === 'string';
  return {
    statusCode: response.status,
    headers: response.headers,
    cookies: response.cookies,
    body: text ? (response.body as string) : Buffer.from(response.body).toString('base64'),
    isBase64Encoded: !text,
  };
}
