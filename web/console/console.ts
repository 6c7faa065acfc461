/**
 * The operator console's backend (docs/console.md): its one HTML document, its built script and style, sign-in
 * and sign-out, and the forwarding of the page's API calls. It holds no data of its own and reads none: every
 * read and change is a call of the signed API, signed with the session's key and sent to the service's own
 * public URL, so it passes the same signature and permission check, validation and API log as any SDK's call.
 */
import { API_BASE_PATHS, matchRoute, type Api } from '../../shared/routes.js';
import { SignedClient } from '../../client/signed-fetch.js';
import type { SecretBox } from '../../shared/crypto/secret-box.js';
import type { ConsoleSignInThrottle } from '../../shared/domain/console/sign-in-throttle.js';
import type { SessionRevocations } from '../../shared/domain/console/session-revocations.js';
import { log } from '../../shared/log.js';
import { MAX_IMPORT_BODY_BYTES } from '../../shared/schemas/migration.js';
import { cookie, setCookie } from '../kit/cookies.js';
import type { WebRequest, WebResponse } from '../kit/http.js';
import { rawStep, serve, tokenRepeated, type StepRules } from '../kit/pipeline.js';
import { CSRF_HEADER, type ConsolePageData } from './page-data.js';
import { newSession, SessionCookies, type Session } from './session.js';
import { messagePage, shellPage } from './shell.js';
import { EN, type ConsoleTexts } from './texts/en.js';
import { JA } from './texts/ja.js';

export interface ConsoleDeps {
  /** `/v1/auth/console/` */
  basePath: string;
  /** The service's public origin (`https://auth.example.com`): where the API is called, and the console's only host. */
  apiOrigin: string;
  box: SecretBox;
  throttle: ConsoleSignInThrottle;
  /** Signed-out sessions: a copy of a signed-out cookie is refused. */
  revocations: SessionRevocations;
  /** The built page script and style (`console.js`, `console.css`). */
  asset(name: string): Promise<string>;
  /** A SaaS's hosted login screen URL (the theme page's preview). */
  loginScreenUrl?(saasId: string): string;
  /** The demo operator's credentials (npm start only): offered to requests from this computer. */
  demo?: { saasId: string; apiKey: string; secret: string };
}

export const CATALOGUES: Readonly<Record<string, ConsoleTexts>> = { en: EN, ja: JA };
export const LANG_COOKIE = 'console_lang';
const LANG_SECONDS = 365 * 24 * 3600;

/** The catalogue a request is answered in: the switch's cookie, then Accept-Language, then English. */
export function textsFor(headers: Record<string, string | undefined>): ConsoleTexts {
  const chosen = cookie(headers.cookie, LANG_COOKIE);
  if (chosen && Object.hasOwn(CATALOGUES, chosen)) return CATALOGUES[chosen] as ConsoleTexts;
  const first = (headers['accept-language'] ?? '').split(',')[0]?.trim().toLowerCase() ?? '';
  return first.startsWith('ja') ? JA : EN;
}

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');
const HTML_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // The login screen's policy (web/login/pages.ts) without its tag manager: our own script, style and calls only;
  // frames of our own (the theme's preview), never framed itself.
  'content-security-policy': CONTENT_SECURITY_POLICY,
};
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
const ASSETS: Record<string, string> = { 'console.js': 'text/javascript; charset=utf-8', 'console.css': 'text/css; charset=utf-8' };
/** A page's path: lower-case words and dashes, one level deep or two (`users/abc-123`). */
const PAGE_PATH = /^([a-z-]{0,32})(\/[A-Za-z0-9_.-]{1,128})?$/;
const CREDENTIAL = /^[A-Za-z0-9_.:-]{1,128}$/;
const LOOPBACK_HOST = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/;

const json = (status: number, body: unknown, cookies: string[] = []): WebResponse => ({
  status,
  headers: JSON_HEADERS,
  body: JSON.stringify(body),
  cookies,
});
const problem = (status: number, type: string, message: string, cookies: string[] = []) => json(status, { type, message, data: {} }, cookies);
/** The console refuses with answers of its own (problem); anything thrown fails the request as it always has (Lambda's 500). */
const refuse = (error: unknown): never => {
  throw error;
};

export class ConsoleBackend {
  private readonly sessions: SessionCookies;
  private readonly secure: boolean;
  private readonly apiHost: string;

  constructor(private readonly deps: ConsoleDeps) {
    const origin = new URL(deps.apiOrigin);
    this.apiHost = origin.host;
    // Secure cookies everywhere but plain HTTP on this computer (npm start and the tests).
    this.secure = !(origin.protocol === 'http:' && LOOPBACK_HOST.test(origin.host));
    this.sessions = new SessionCookies(deps.box, { path: deps.basePath, sameSite: 'Strict', secure: this.secure }, deps.revocations);
  }

  handle(request: WebRequest): Promise<WebResponse> {
    return serve(
      request,
      async (asked) => this.gate(asked),
      async (passed) => this.route(passed),
    );
  }

  /**
   * The console answers on the service's own host only: never on a SaaS's login-screen host, where the SaaS's own
   * script may run (docs/security.md).
   */
  private gate(request: WebRequest): { request: WebRequest } | { answer: WebResponse } {
    if (request.headers.host === this.apiHost) return { request };
    const texts = textsFor(request.headers);
    return { answer: this.page(404, messagePage(texts, this.deps.basePath, texts.notFound)) };
  }

  private async route(request: WebRequest): Promise<WebResponse> {
    const texts = textsFor(request.headers);
    const { method, path } = request;
    if (method === 'GET' && path.startsWith('assets/')) return this.asset(path.slice('assets/'.length));
    if (path === 'session' && method === 'POST') return this.signIn(request);
    if (path === 'session/demo' && method === 'POST') return this.demoSignIn(request);
    if (path === 'session/sign-out' && method === 'POST') return this.signOut(request);
    if (path.startsWith('api/')) return this.forward(request);
    if (path === 'language' && method === 'GET') return this.language(request);
    if (method === 'GET' && PAGE_PATH.test(path)) return this.shell(request, texts);
    return this.page(404, messagePage(texts, this.deps.basePath, texts.notFound));
  }

  private page(status: number, body: string, cookies: string[] = [], frameOrigin?: string): WebResponse {
    // The theme page frames the SaaS's login screen, which may live on a host of its own.
    const headers = frameOrigin
      ? {
          ...HTML_HEADERS,
          'content-security-policy': HTML_HEADERS['content-security-policy'].replace("frame-src 'self'", `frame-src 'self' ${frameOrigin}`),
        }
      : HTML_HEADERS;
    return { status, headers, body, cookies };
  }

  private async asset(name: string): Promise<WebResponse> {
    const type = ASSETS[name];
    if (!type) return problem(404, 'not_found', 'no such file');
    return {
      status: 200,
      headers: { 'content-type': type, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' },
      body: await this.deps.asset(name),
      cookies: [],
    };
  }

  /** The demo operator is offered only where one was registered (npm start) and only to this computer. */
  private demoFor(request: WebRequest) {
    const local = LOOPBACK_HOST.test(request.headers.host ?? '') && ['127.0.0.1', '::1', '::ffff:127.0.0.1'].includes(request.sourceIp);
    return local ? this.deps.demo : undefined;
  }

  private async shell(request: WebRequest, texts: ConsoleTexts): Promise<WebResponse> {
    const current = await this.sessions.read(request.headers.cookie);
    const data: ConsolePageData = {
      lang: texts.lang,
      base: this.deps.basePath,
      demo: this.demoFor(request) !== undefined,
      importMaxBytes: MAX_IMPORT_BODY_BYTES,
      ...(current
        ? {
            session: { saasId: current.session.saasId, apiKey: current.session.apiKey, csrf: current.session.csrf },
            ...(this.deps.loginScreenUrl ? { loginScreenUrl: this.deps.loginScreenUrl(current.session.saasId) } : {}),
          }
        : {}),
    };
    const cookies = current?.renewed ? [current.renewed] : [];
    // A cookie that no longer opens (expired, forged) is forgotten.
    if (!current && cookie(request.headers.cookie, 'console_session')) cookies.push(this.sessions.cleared());
    return this.page(200, shellPage(texts, data), cookies, data.loginScreenUrl ? new URL(data.loginScreenUrl).origin : undefined);
  }

  private language(request: WebRequest): WebResponse {
    const to = new URLSearchParams(request.query).get('to') ?? '';
    const cookies = Object.hasOwn(CATALOGUES, to)
      ? [setCookie(LANG_COOKIE, to, { path: this.deps.basePath, sameSite: 'Strict', secure: this.secure }, LANG_SECONDS)]
      : [];
    const back = new URLSearchParams(request.query).get('back') ?? '';
    const location = `${this.deps.basePath}${PAGE_PATH.test(back) ? back : ''}`;
    return { status: 303, headers: { location, 'cache-control': 'no-store' }, body: '', cookies };
  }

  /**
   * Requests that change something must come from the console's own page: a JSON body (a cross-site form
   * cannot send one without a CORS preflight, which nothing here answers) and not marked cross-site.
   */
  private sameSite(request: WebRequest): boolean {
    const site = request.headers['sec-fetch-site'];
    const origin = request.headers.origin;
    return (
      (site === undefined || site === 'same-origin') &&
      (origin === undefined || origin === new URL(this.deps.apiOrigin).origin) &&
      (request.headers['content-type'] ?? '').startsWith('application/json')
    );
  }

  /** A sign-in's proof that it came from the console's page: none to show, only the request's marks (sameSite). */
  private readonly fromConsolePage: StepRules<undefined> = {
    fromPage: async (request) =>
      this.sameSite(request) ? { proof: undefined } : { answer: problem(403, 'cross_site', 'sign-in must come from the console page') },
    refuse,
  };

  /** A session's request: its cookie opens, and the page repeated the session's CSRF token (authorised). */
  private readonly fromSession: StepRules<{ session: Session; cookies: string[] }> = {
    fromPage: async (request) => {
      const allowed = await this.authorised(request);
      return 'status' in allowed ? { answer: allowed } : { proof: allowed };
    },
    refuse,
  };

  private signIn(request: WebRequest): Promise<WebResponse> {
    return rawStep(request, this.fromConsolePage, () => this.readSignIn(request));
  }

  /** The body is read leniently: a malformed one is one more wrong sign-in, answered and counted as such. */
  private async readSignIn(request: WebRequest): Promise<WebResponse> {
    let given: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(request.body.toString('utf8'));
      if (parsed && typeof parsed === 'object') given = parsed as Record<string, unknown>;
    } catch {
      // Answered below like any other wrong sign-in.
    }
    const credentials = {
      saasId: typeof given.saas_id === 'string' ? given.saas_id.trim() : '',
      apiKey: typeof given.api_key === 'string' ? given.api_key.trim() : '',
      secret: typeof given.client_secret === 'string' ? given.client_secret.trim() : '',
    };
    return this.startSession(request, credentials);
  }

  private demoSignIn(request: WebRequest): Promise<WebResponse> {
    const rules: StepRules<{ saasId: string; apiKey: string; secret: string }> = {
      fromPage: async (asked) => {
        const demo = this.demoFor(asked);
        return demo && this.sameSite(asked) ? { proof: demo } : { answer: problem(404, 'not_found', 'no demo operator here') };
      },
      refuse,
    };
    return rawStep(request, rules, (demo) => this.startSession(request, demo));
  }

  /**
   * One answer for every failed sign-in (unknown SaaS, unknown or revoked key, wrong secret, malformed input),
   * counted against the address and the key; the check itself is a signed call of the API.
   */
  private async startSession(request: WebRequest, credentials: { saasId: string; apiKey: string; secret: string }): Promise<WebResponse> {
    const attempt = { sourceIp: request.sourceIp, saasId: credentials.saasId, apiKey: credentials.apiKey };
    if (!(await this.deps.throttle.allows(attempt))) {
      return {
        ...problem(429, 'too_many_attempts', 'too many failed sign-ins: try again later'),
        headers: { ...JSON_HEADERS, 'retry-after': '900' },
      };
    }
    const wellFormed = [credentials.saasId, credentials.apiKey, credentials.secret].every((value) => CREDENTIAL.test(value));
    const status = wellFormed ? (await this.call(credentials, 'GET', 'auth', '/basic-info', '', undefined)).status : 401;
    if (status === 401) {
      await this.deps.throttle.failed(attempt);
      return problem(401, 'invalid_credentials', 'the SaaS ID, API key or client secret is not right');
    }
    // A key without config:read (403) is still a key: its permissions are what the console may do.
    if (status >= 500) return problem(502, 'service_unavailable', 'the service could not check the key: try again');
    return json(200, { signed_in: true }, [await this.sessions.issue(newSession(credentials))]);
  }

  /** The session of a request from the console's own page, or the answer refusing it. */
  private async authorised(request: WebRequest): Promise<{ session: Session; cookies: string[] } | WebResponse> {
    const current = await this.sessions.read(request.headers.cookie);
    if (!current) return problem(401, 'signed_out', 'the console session ended: sign in again', [this.sessions.cleared()]);
    const site = request.headers['sec-fetch-site'];
    if (!tokenRepeated(current.session.csrf, request.headers[CSRF_HEADER]) || (site !== undefined && site !== 'same-origin')) {
      return problem(403, 'csrf', 'the request did not come from the console page');
    }
    return { session: current.session, cookies: current.renewed ? [current.renewed] : [] };
  }

  private signOut(request: WebRequest): Promise<WebResponse> {
    return rawStep(request, this.fromSession, (allowed) => this.endSession(allowed));
  }

  private async endSession(allowed: { session: Session }): Promise<WebResponse> {
    try {
      await this.sessions.revoke(allowed.session);
    } catch (error) {
      // This browser is signed out all the same (its cookie cleared), and the operator is told that a copy of the
      // cookie would still open: thrown, the sign-out left the cookie in place while the page went on as if done.
      log.error('a console sign-out could not be recorded', error);
      return problem(
        503,
        'sign_out_unrecorded',
        'signed out of this browser, but the sign-out could not be recorded: a copy of the session cookie opens until 30 minutes after its last use',
        [this.sessions.cleared()],
      );
    }
    return json(200, { signed_in: false }, [this.sessions.cleared()]);
  }

  /** `api/{auth|pricing|billing|apilog}/{path}`: a signed route of the API, called with the session's key. */
  private forward(request: WebRequest): Promise<WebResponse> {
    return rawStep(request, this.fromSession, (allowed) => this.callApi(request, allowed));
  }

  private async callApi(request: WebRequest, allowed: { session: Session; cookies: string[] }): Promise<WebResponse> {
    const [, api = '', ...rest] = request.path.split('/');
    const path = `/${rest.join('/')}`;
    if (!Object.hasOwn(API_BASE_PATHS, api)) return problem(404, 'not_found', `no API ${api}`, allowed.cookies);
    const found = matchRoute(request.method, `${API_BASE_PATHS[api as Api]}${path}`);
    // Signed operations only: the public documents need no console, and a sign-in is an end user's.
    if (found.kind !== 'match' || found.match.route.permission === null || found.match.route.permission === 'sign-in') {
      return problem(404, 'not_found', `the console does not call ${request.method} ${path}`, allowed.cookies);
    }
    const answer = await this.call(allowed.session, request.method, api as Api, path, request.query, request.body.length ? request.body : undefined);
    return {
      status: answer.status,
      headers: { ...JSON_HEADERS, ...(answer.requestId ? { 'x-request-id': answer.requestId } : {}) },
      body: answer.text || '{}',
      cookies: allowed.cookies,
    };
  }

  private async call(
    credentials: { saasId: string; apiKey: string; secret: string },
    method: string,
    api: Api,
    path: string,
    query: string,
    body: Buffer | undefined,
  ) {
    const client = new SignedClient(`${this.deps.apiOrigin}${API_BASE_PATHS[api]}`, credentials);
    try {
      const answer = await client.request(method, `${path}${query ? `?${query}` : ''}`, body === undefined ? {} : { body });
      return { status: answer.status, text: answer.text, requestId: answer.headers.get('x-request-id') ?? undefined };
    } catch {
      return {
        status: 502,
        text: JSON.stringify({ type: 'service_unavailable', message: 'the console could not reach the API', data: {} }),
        requestId: undefined,
      };
    }
  }
}
