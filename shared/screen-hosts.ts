/**
 * Which host serves which SaaS's login screen: the one rule the login function and the SAML function apply
 * before anything else (docs/security.md, "One origin per login screen").
 *
 * A browser isolates by origin, not by path: two screens on one origin share localStorage, cookies that are
 * not HttpOnly, and each other's pages (a script of one can fetch the other's page with its CSRF token, or open
 * it in a window and read what is typed). So each SaaS's screen has an origin of its own, as Amazon Cognito
 * gives each user pool its own domain:
 *
 * - its own hosts: `<saas id>.<login domain>` (LOGIN_DOMAIN, the stack's wildcard custom domain) and the SaaS's
 *   own domain once live (shared/adapters/site-domains.ts). Only there does the SaaS's own script (its tag manager) run.
 * - the shared hosts: the API's own (PUBLIC_BASE_URL, TOKEN_ISSUER, the bare login domain, API Gateway's
 *   execute-api name). A screen whose SaaS has a host of its own is not shown there: a page address is
 *   redirected to that host, a step refused. A screen without one is shown there, running no SaaS script.
 * - any other host (another SaaS's, or a domain nobody set up): refused, whatever the path names.
 */

import { domainToASCII } from 'node:url';

/** A refusal: the host is not the SaaS's, nor a shared one; or a step arrived on a host its page is not on. */
export const WRONG_HOST_STATUS = 421;

/** What the deployment serves where. */
export interface ScreenHostPlan {
  /** `https:` on AWS, `http:` on a laptop: the scheme of the API's public URL. */
  protocol: string;
  /** `login.example.com` (or `localhost:8080`): each SaaS's host is `<saas id>.<login domain>`. */
  loginDomain?: string;
  /** The API's own hosts (lower case, with their port when not the default). */
  sharedHosts: readonly string[];
  /** The origin of the shared host the deployment-wide return addresses are on (PUBLIC_BASE_URL's). */
  sharedOrigin: string;
}

/**
 * How a path uses its host:
 * - `screen`: a page that runs the screen's script, or a step it posts: on the SaaS's own host when it has one;
 * - `handoff`: answers with a redirect or a document, never runs a script: its own hosts and the shared ones;
 * - `return`: starts a flow that comes back to the deployment's one return address (Google's redirect URI), so
 *   its cookie must be set on that address's host (isReturnHost): sent there from every other host.
 */
export type PathUse = 'screen' | 'handoff' | 'return';

export type HostVerdict =
  /** `ownOrigin`: the SaaS's own origin, where its own script may run. */
  { kind: 'serve'; ownOrigin: boolean } | { kind: 'redirect'; location: string } | { kind: 'refuse'; reason: string };

/** API Gateway's own name of the API: no SaaS can claim it as its domain. */
const EXECUTE_API = /^[a-z0-9]+\.execute-api\.[a-z0-9-]+\.amazonaws\.com$/;
const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** `host:port` of a URL as a Host header carries it (no default port), lower case. */
export const hostOf = (url: string) => new URL(url).host.toLowerCase();

/** The plan of a deployment: its public URL, the token issuer, and the login domain when there is one. */
export function screenHostPlan(settings: { publicBaseUrl: string; tokenIssuer: string; loginDomain?: string | undefined }): ScreenHostPlan {
  const { publicBaseUrl, tokenIssuer, loginDomain } = settings;
  const shared = new Set([hostOf(publicBaseUrl), hostOf(tokenIssuer)]);
  if (loginDomain) shared.add(loginDomain);
  return {
    protocol: new URL(publicBaseUrl).protocol,
    ...(loginDomain ? { loginDomain } : {}),
    sharedHosts: [...shared],
    sharedOrigin: new URL(publicBaseUrl).origin,
  };
}

/** The SaaS's host under the login domain, when the deployment has one (and the id is a DNS label). */
export function perSaasHost(plan: ScreenHostPlan, saasId: string): string | undefined {
  const label = saasId.toLowerCase();
  return plan.loginDomain && DNS_LABEL.test(label) ? `${label}.${plan.loginDomain}` : undefined;
}

/**
 * Whose host this is, read from the host alone: the `<saas id>` label of `<saas id>.<login domain>`; `shared`
 * for the API's own hosts; `other` for anything else (a SaaS's own domain, or a name nobody set up).
 */
export function hostKind(plan: ScreenHostPlan, host: string): { kind: 'saas'; saasId: string } | { kind: 'shared' } | { kind: 'other' } {
  const name = host.trim().toLowerCase();
  if (isSharedHost(plan, name)) return { kind: 'shared' };
  const suffix = plan.loginDomain ? `.${plan.loginDomain}` : undefined;
  const label = suffix && name.endsWith(suffix) ? name.slice(0, -suffix.length) : undefined;
  return label && DNS_LABEL.test(label) ? { kind: 'saas', saasId: label } : { kind: 'other' };
}

/** Where a SaaS's screen is served when it has no domain of its own live: its host, else the shared origin. */
export function screenOrigin(plan: ScreenHostPlan, saasId: string): string {
  const host = perSaasHost(plan, saasId);
  return host ? `${plan.protocol}//${host}` : plan.sharedOrigin;
}

export const isSharedHost = (plan: ScreenHostPlan, host: string) => plan.sharedHosts.includes(host) || EXECUTE_API.test(host);

/**
 * Whether this is the host the providers send the browser back to (PUBLIC_BASE_URL's: Google's registered
 * redirect URI, SAML's reply URL). A return names no SaaS, so it is served here only: on a SaaS's host, that
 * SaaS's script could plant someone else's flow cookie and replay their return into a visitor's browser (issue 36).
 */
export const isReturnHost = (plan: ScreenHostPlan, host: string) => host.trim().toLowerCase() === new URL(plan.sharedOrigin).host.toLowerCase();

/**
 * A name the deployment serves itself, which no SaaS may take as its own domain: the login domain and every
 * name under it (`<saas id>.<login domain>` is that SaaS's screen host: another SaaS claiming it would put two
 * screens on one origin again once DNS pointed there), and the API's own hosts. Compared as browsers and DNS
 * compare: lower case, IDNA to ASCII (`node:url`'s domainToASCII), no trailing dot, without the port.
 */
export function isServiceDomain(plan: ScreenHostPlan, domain: string): boolean {
  const ascii = (name: string) => domainToASCII(name.trim().toLowerCase().replace(/:\d+$/, '').replace(/\.$/, ''));
  const name = ascii(domain);
  if (!name) return false;
  const login = plan.loginDomain ? ascii(plan.loginDomain) : '';
  if (login && (name === login || name.endsWith(`.${login}`))) return true;
  return plan.sharedHosts.some((host) => ascii(host) === name) || EXECUTE_API.test(name);
}

export interface HostQuestion {
  /** The request's Host header. */
  host: string;
  method: string;
  /** The SaaS the path (or `client_id`) names. */
  saasId: string;
  /** Where the SaaS's screen lives now (its own domain when live, else `screenOrigin`): `https://host`. */
  canonicalOrigin: string;
  use: PathUse;
  /** The raw path and query, kept when the browser is sent to the right host. */
  pathAndQuery: string;
}

/** The host rule: serve here, send the browser to the SaaS's own host (a GET), or refuse. */
export function judgeHost(plan: ScreenHostPlan, question: HostQuestion): HostVerdict {
  const host = question.host.trim().toLowerCase();
  const canonical = new URL(question.canonicalOrigin);
  const shared = isSharedHost(plan, host);
  const own = !shared && (host === canonical.host.toLowerCase() || host === perSaasHost(plan, question.saasId));
  const elsewhere = (origin: string) =>
    question.method === 'GET' || question.method === 'HEAD'
      ? ({ kind: 'redirect', location: `${origin}${question.pathAndQuery}` } as const)
      : ({ kind: 'refuse', reason: 'this step is posted from the page on another address' } as const);
  if (own) return question.use === 'return' ? elsewhere(plan.sharedOrigin) : { kind: 'serve', ownOrigin: true };
  if (!shared) return { kind: 'refuse', reason: 'this address serves another SaaS, or none' };
  // A flow starts on the host it returns to, or its cookie would never come back with the return.
  if (question.use === 'return' && !isReturnHost(plan, host)) return elsewhere(plan.sharedOrigin);
  if (question.use === 'screen' && !isSharedHost(plan, canonical.host.toLowerCase())) return elsewhere(canonical.origin);
  return { kind: 'serve', ownOrigin: false };
}
