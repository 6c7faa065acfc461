/** What a browser-facing function reads of an API Gateway event's headers. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/**
 * The event's headers by lower-case name, with its cookies as one Cookie header: API Gateway's payload 2.0 gives
 * the cookies apart from the headers, and the apps read them where a server would.
 */
export function headersOf(event: APIGatewayProxyEventV2): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
  if (event.cookies?.length) headers.cookie = event.cookies.join('; ');
  return headers;
}
