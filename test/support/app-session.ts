/**
 * A browser's view of the example app for HTTP-level tests: a cookie jar that keeps what Set-Cookie says
 * (path, Max-Age=0 deletes) and sends cookies only to the paths they belong to, and the CSRF header.
 */
export interface SetCookie {
  name: string;
  value: string;
  /** Attribute names in lower case, with their values ('' for flags). */
  attributes: Map<string, string>;
  raw: string;
}

export function parseSetCookie(raw: string): SetCookie {
  const [pair = '', ...rest] = raw.split(';');
  const eq = pair.indexOf('=');
  const attributes = new Map<string, string>();
  for (const part of rest) {
    const at = part.indexOf('=');
    const name = (at < 0 ? part : part.slice(0, at)).trim().toLowerCase();
    attributes.set(name, at < 0 ? '' : part.slice(at + 1).trim());
  }
  return { name: pair.slice(0, eq).trim(), value: decodeURIComponent(pair.slice(eq + 1).trim()), attributes, raw };
}

export interface AppAnswer {
  status: number;
  body: { success: boolean; message: string; [field: string]: unknown };
  text: string;
  setCookies: SetCookie[];
  headers: Headers;
}

export class AppSession {
  private readonly jar = new Map<string, { value: string; path: string }>();
  csrfToken = '';

  constructor(readonly baseUrl: string) {}

  cookie(name: string): string | undefined {
    return this.jar.get(name)?.value;
  }

  cookieNames(): string[] {
    return [...this.jar.keys()].sort();
  }

  /** Holds a cookie the app did not set here: one made by hand, or forged. */
  plantCookie(name: string, value: string, path = '/'): void {
    this.jar.set(name, { value, path });
  }

  async fetchCsrfToken(): Promise<string> {
    this.csrfToken = String((await this.request('GET', '/csrf', { csrf: false })).body.csrf_token);
    return this.csrfToken;
  }

  /** `csrf`: false sends no header, a string sends that one; by default the session's token. */
  async request(method: string, path: string, options: { body?: unknown; csrf?: false | string } = {}): Promise<AppAnswer> {
    const cookies = [...this.jar].filter(([, c]) => path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`));
    const csrf = options.csrf === undefined ? this.csrfToken : options.csrf;
    const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    const response = await fetch(this.baseUrl + path, {
      method,
      headers: {
        ...(cookies.length ? { cookie: cookies.map(([name, c]) => `${name}=${encodeURIComponent(c.value)}`).join('; ') } : {}),
        ...(csrf ? { 'x-csrf-token': csrf } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body } : {}),
    });
    const setCookies = response.headers.getSetCookie().map(parseSetCookie);
    for (const cookie of setCookies) {
      if (cookie.attributes.get('max-age') === '0') this.jar.delete(cookie.name);
      else this.jar.set(cookie.name, { value: cookie.value, path: cookie.attributes.get('path') ?? '/' });
    }
    const text = await response.text();
    let parsed: AppAnswer['body'];
    try {
      parsed = JSON.parse(text) as AppAnswer['body'];
    } catch {
      parsed = { success: false, message: '(not JSON)' };
    }
    return { status: response.status, body: parsed, text, setCookies, headers: response.headers };
  }
}
