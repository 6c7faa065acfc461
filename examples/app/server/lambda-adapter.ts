/**
 * API Gateway HTTP API events (payload format 2.0) to the app's request and back: cookies arrive in
 * `event.cookies` and leave in the result's `cookies`, one Set-Cookie each.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { parseCookieHeader, type AppRequest, type AppResponse } from './http.js';

export type LambdaHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

export function lambdaHandler(app: (request: AppRequest) => Promise<AppResponse>): LambdaHandler {
  return async (event) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers[name.toLowerCase()] = value;
    const body = event.body ? (event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body) : '';
    const response = await app({
      method: event.requestContext.http.method.toUpperCase(),
      path: event.rawPath,
      query: new URLSearchParams(event.rawQueryString ?? ''),
      headers,
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
  };
}
