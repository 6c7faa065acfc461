/**
 * The screen's way in through a tenant's own OpenID Connect provider (tenant-oidc.ts):
 *
 *   GET ./oidc?tenant_id=…&state|authorization   off to the provider, the flow in a cookie of the `oidc/` pages
 *   GET ./oidc/callback?code&state                back: signed in, linked by a mailed code, or a page saying why
 *
 * The same ends as a tenant's SAML sign-in (federated-steps.ts): its users only, never a new user.
 */
import { cookie, setCookie } from '../../kit/cookies.js';
import type { WebResponse } from '../../kit/http.js';
import { screenContext, type ScreenContext } from '../screen-context.js';
import { notFound, otherWaysIn, redirect, screenPath } from './answers.js';
import type { LoginScreenDeps, ScreenCall } from './contract.js';
import { federatedSignIn, federationRefused } from './federated-steps.js';
import { OIDC_FLOW_COOKIE, OIDC_FLOW_SECONDS } from './tenant-oidc.js';

const TENANT_ID = /^[A-Za-z0-9-]{1,64}$/;

/** Lax: the provider sends the browser back with a top-level GET from its own site; only the `oidc/` pages read it. */
const flowCookie = (deps: LoginScreenDeps, saasId: string) => ({
  path: `${screenPath(deps, saasId)}oidc/`,
  sameSite: 'Lax' as const,
  secure: deps.secureCookies,
});

export async function beginTenantOidc({ parts: { deps }, saasId, query }: ScreenCall): Promise<WebResponse> {
  const tenantId = query.get('tenant_id') ?? '';
  const oidc = deps.federation.tenantOidc;
  if (!oidc || !TENANT_ID.test(tenantId)) return notFound(deps, saasId);
  const context = screenContext(query);
  let started: Awaited<ReturnType<typeof oidc.begin>>;
  try {
    started = await oidc.begin(saasId, tenantId, context);
  } catch {
    // The provider unreachable or its settings broken: nothing the person sent is wrong.
    return otherWaysIn(deps, saasId, deps.texts.page.providerUnavailableTitle, deps.texts.page.providerUnavailable, context, 503);
  }
  if (!started) return notFound(deps, saasId);
  return redirect(started.location, [setCookie(OIDC_FLOW_COOKIE, started.flow, flowCookie(deps, saasId), OIDC_FLOW_SECONDS)]);
}

export async function continueTenantOidc({ parts, saasId, request }: ScreenCall): Promise<WebResponse> {
  const { deps } = parts;
  const oidc = deps.federation.tenantOidc;
  if (!oidc) return notFound(deps, saasId);
  const forget = setCookie(OIDC_FLOW_COOKIE, '', flowCookie(deps, saasId), 0);
  const sealed = cookie(request.headers.cookie, OIDC_FLOW_COOKIE) ?? '';
  let context: ScreenContext = {};
  try {
    const current = new URL(`${deps.federation.tenantOidcCallback?.(saasId) ?? ''}`);
    current.search = new URLSearchParams(request.query).toString();
    const back = await oidc.complete(saasId, current, sealed);
    context = back.context;
    return redirect(await federatedSignIn(parts, saasId, back.account, back.context), [forget]);
  } catch (error) {
    const flow = await oidc.flowOf(sealed);
    if (flow?.saasId === saasId) context = flow.context;
    return federationRefused(deps, error, saasId, deps.texts.page.samlFailedTitle, forget, context);
  }
}
