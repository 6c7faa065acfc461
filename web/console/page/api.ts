/**
 * The page's one way to data: the console backend forwards `api/{api}/{path}` as a signed call of the API
 * (web/console/console.ts) and answers the API's own status and body. The CSRF token rides in a header on
 * every request.
 */
import { CSRF_HEADER, type ConsolePageData } from '../page-data.js';

export type ApiName = 'auth' | 'pricing' | 'billing' | 'apilog' | 'integration' | 'analysis';

export interface Problem {
  type: string;
  message: string;
  data: Record<string, unknown>;
}

export interface Answer<T = unknown> {
  status: number;
  body: T;
  /** The API's x-request-id: the call in the activity. */
  requestId?: string;
  ok: boolean;
}

let data: ConsolePageData;
const signedOutListeners = new Set<() => void>();

export function setPageData(value: ConsolePageData): void {
  data = value;
}
export const pageData = () => data;

/** Called when the backend says the session ended: the app shows the sign-in form. */
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

async function send<T>(method: string, url: string, body?: unknown): Promise<Answer<T>> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      credentials: 'same-origin',
      headers: {
        ...(data.session ? { [CSRF_HEADER]: data.session.csrf } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch {
    return { status: 0, body: { type: 'unreachable', message: '', data: {} } as T, ok: false };
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = { type: 'unreadable', message: text.slice(0, 200), data: {} };
  }
  const requestId = response.headers.get('x-request-id') ?? undefined;
  if (response.status === 401 && (parsed as Problem | undefined)?.type === 'signed_out') signedOutListeners.forEach((listener) => listener());
  return { status: response.status, body: parsed as T, ok: response.status >= 200 && response.status < 300, ...(requestId ? { requestId } : {}) };
}

/** A signed call of the API through the console backend. `path` is relative to the API's base, query included. */
export const call = <T = unknown>(method: string, api: ApiName, path: string, body?: unknown) =>
  send<T>(method, `${data.base}api/${api}${path}`, body);

/** The console's own endpoints (sign-in, sign-out). */
export const consoleCall = <T = unknown>(method: string, path: string, body?: unknown) => send<T>(method, `${data.base}${path}`, body);

export const problemOf = (answer: Answer): Problem | undefined => (answer.ok ? undefined : (answer.body as Problem | undefined));
