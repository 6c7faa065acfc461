/**
 * The host rule (shared/screen-hosts.ts) at the door of the login function and the SAML function: each
 * path that names a SaaS (in its path, or as `client_id`) is served on that SaaS's hosts, sent there, or
 * refused, before any handler reads it. Google's and the SAML identity providers' return addresses name no SaaS:
 * they are served on the one host they are registered on (isReturnHost), refused elsewhere. Other paths naming
 * no SaaS (the token and userinfo endpoints, which take no cookie) pass.
 */
import { ENTRY_PATHS } from '../../shared/routes.js';
import { isReturnHost, judgeHost, WRONG_HOST_STATUS, type PathUse, type ScreenHostPlan } from '../../shared/screen-hosts.js';
import { messagePage, contentSecurityPolicy, screenAssets } from './pages.js';
import type { LoginTexts } from './texts/en.js';

const SAAS_ID = /^[A-Za-z0-9-]{1,64}$/;

/** Where the providers send the browser back, with the flow's cookie: PUBLIC_BASE_URL's host only. */
const RETURNS = new Set([`${ENTRY_PATHS.oauth2}idpresponse`, `${ENTRY_PATHS.saml2}idpresponse`]);

/** The SaaS a path names, and how the path uses its host; undefined for paths that name none. */
export function pathOwner(rawPath: string, query: URLSearchParams): { saasId: string; use: PathUse; step: boolean } | undefined {
  const login = ENTRY_PATHS.login;
  if (rawPath.startsWith(login)) {
    const [saasId = '', ...rest] = rawPath.slice(login.length).split('/');
    const page = rest.join('/');
    // The screen's shared files (`…/login/assets/`) name no SaaS: every host may show the product's look.
    if (!SAAS_ID.test(saasId) || saasId === 'assets') return undefined;
    // Google returns to the deployment's one redirect URI, so its flow's cookie is set on the shared host.
    if (page === 'federated/google') return { saasId, use: 'return', step: false };
    // Redirects and files: no script of the screen runs on them (the SAML flow's cookie is on the shared host).
    if (page === 'saml' || page === 'saml/continue' || page === 'sign-out' || page.startsWith('assets/')) {
      return { saasId, use: 'handoff', step: false };
    }
    return { saasId, use: 'screen', step: page.startsWith('api/') };
  }
  const oauth2 = ENTRY_PATHS.oauth2;
  if (rawPath === `${oauth2}authorize` || rawPath === `${oauth2}logout`) {
    const saasId = query.get('client_id') ?? '';
    return SAAS_ID.test(saasId) ? { saasId, use: 'handoff', step: false } : undefined;
  }
  const saml = /^(?:metadata\/([A-Za-z0-9-]{1,64})|login\/([A-Za-z0-9-]{1,64})\/[^/]*)$/.exec(rawPath.slice(ENTRY_PATHS.saml2.length));
  if (rawPath.startsWith(ENTRY_PATHS.saml2) && saml) return { saasId: (saml[1] ?? saml[2]) as string, use: 'handoff', step: false };
  return undefined;
}

export interface GateRequest {
  method: string;
  rawPath: string;
  rawQueryString: string;
  /** The Host header (API Gateway's `requestContext.domainName` when absent). */
  host: string;
}

export interface GateAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface HostGateDeps {
  plan: ScreenHostPlan;
  /** Where the SaaS's screen is now (its own domain once live): ConfigurationService.loginScreenUrl. */
  screenUrl(saasId: string): Promise<string>;
  texts: LoginTexts;
}

const HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer' };

/**
 * Serve (and whether on the SaaS's own origin, where its own script may run), or the answer that sends the
 * browser to the SaaS's host, or refuses: 421 Misdirected Request, a page for people and the error shape for
 * the page's steps.
 */
export async function hostGate(deps: HostGateDeps, request: GateRequest): Promise<{ ownOrigin: boolean } | { answer: GateAnswer }> {
  const query = new URLSearchParams(request.rawQueryString);
  const owner = pathOwner(request.rawPath, query);
  if (!owner)
    return RETURNS.has(request.rawPath) && !isReturnHost(deps.plan, request.host) ? { answer: wrongHost(deps.texts, false) } : { ownOrigin: false };
  const verdict = judgeHost(deps.plan, {
    host: request.host,
    method: request.method.toUpperCase(),
    saasId: owner.saasId,
    canonicalOrigin: new URL(await deps.screenUrl(owner.saasId)).origin,
    use: owner.use,
    pathAndQuery: `${request.rawPath}${request.rawQueryString ? `?${request.rawQueryString}` : ''}`,
  });
  if (verdict.kind === 'serve') return { ownOrigin: verdict.ownOrigin };
  if (verdict.kind === 'redirect') return { answer: { status: 302, headers: { ...HEADERS, location: verdict.location }, body: '' } };
  return { answer: wrongHost(deps.texts, owner.step) };
}

/** 421 Misdirected Request: the error shape for a page's step, a page for people. */
function wrongHost(texts: LoginTexts, step: boolean): GateAnswer {
  if (step) {
    return {
      status: WRONG_HOST_STATUS,
      headers: {
        ...HEADERS,
        'content-type': 'application/json; charset=utf-8',
        'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      },
      body: JSON.stringify({ type: 'wrong_host', message: texts.page.wrongHost, data: {} }),
    };
  }
  return {
    status: WRONG_HOST_STATUS,
    headers: { ...HEADERS, 'content-type': 'text/html; charset=utf-8', 'content-security-policy': contentSecurityPolicy(false) },
    body: messagePage(texts, texts.page.wrongHostTitle, texts.page.wrongHost, screenAssets()),
  };
}

/**
 * The look of a screen as this origin may show it: the SaaS's own script (its tag manager) only on the SaaS's
 * own origin. On the API's shared origin a SaaS's script could read every other screen served there.
 */
export function ownScriptOnlyAtHome<T extends { tagManagerId: string }>(look: T, ownOrigin: boolean): T {
  return ownOrigin ? look : { ...look, tagManagerId: '' };
}
