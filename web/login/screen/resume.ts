/**
 * A sign-in page opened while the browser has a screen session (screen-session.ts): the authorization it was
 * opened for (the SaaS's own entry with its `state`, or an OpenID Connect request) completes from the session
 * without asking, when the session is live and nothing forbids it. Otherwise the page signs in as before,
 * saying who is signed in ("not you? use another account") when the session is live but not enough:
 * prompt=login, an authentication older than max_age, a second factor the user turned on since, a tenant's
 * identity provider for another tenant. prompt=none never shows a page: the code, or `login_required` back
 * to the redirect URI the authorization server checked.
 */
import { loginOf } from '../../../shared/domain/users/users.js';
import { newGrantId } from '../../../shared/domain/sign-in/refresh-tokens.js';
import type { NotUsable } from '../../../shared/domain/sign-in/screen-sessions.js';
import { webUrl } from '../../../shared/schemas/web-url.js';
import type { WebResponse } from '../../kit/http.js';
import { authorizationError, authorizationResponse, type AuthorizationRequest } from '../oidc/authorization-server.js';
import type { ScreenContext } from '../screen-context.js';
import { redirect } from './answers.js';
import type { ReadSession, ScreenCall } from './contract.js';
import { forgetSession, movedSession, sessionOf } from './screen-session.js';

/** What the page shows when a live session does not answer by itself. */
export interface SignedInAs {
  name: string;
  why: Exclude<NotUsable, 'none' | 'ended'>;
}

/** The pages a session answers from: the sign-in page. Sign-up, a reset, an invitation, a link or consent page never. */
const RESUMING_PAGES = new Set(['', 'sign-in']);

/**
 * For a GET of a page a session answers, with a session cookie sealed for this SaaS: the session read together
 * with the SaaS's account item, in one store request. screen.ts answers 404 from `saasExists` before anything of
 * the session is used; otherwise `fromSession` judges the session from this read. Undefined: no such page or
 * cookie, and the SaaS is checked on its own.
 */
export async function sessionRead(call: ScreenCall): Promise<{ saasExists: boolean; session: ReadSession } | undefined> {
  const { parts, saasId, request } = call;
  const { sessions } = parts.deps;
  if (!sessions || !resumes(call)) return undefined;
  const ref = await sessionOf(parts.deps, saasId, request);
  if (!ref) return undefined;
  const { saasExists, read } = await sessions.readWithSaas(saasId, ref);
  return { saasExists, session: { ref, read } };
}

const resumes = ({ request, page, query }: ScreenCall) => request.method === 'GET' && RESUMING_PAGES.has(page) && !query.has('invitation_id');

/**
 * The answer a session gives the page `call` opens, or what the page shows instead: a redirect with the code
 * (or with login_required for prompt=none), else `{ signedInAs }` when a live session was not enough, else nothing.
 */
export async function fromSession(
  call: ScreenCall,
  context: ScreenContext,
  request: AuthorizationRequest | undefined,
): Promise<{ answer: WebResponse } | { signedInAs?: SignedInAs; cookies: string[] }> {
  const { parts, saasId } = call;
  const { deps } = parts;
  const silent = request?.prompt === 'none';
  const refuse = (): { answer: WebResponse } | undefined =>
    request && silent
      ? { answer: redirect(authorizationError(request, deps.issuer, 'login_required', 'no signed-in session answers this request; sign in')) }
      : undefined;
  // Read before the route, with the SaaS's check (screen.ts, sessionRead): none, no session cookie for this page.
  const found = call.session;
  if (!deps.sessions || !found) return refuse() ?? { cookies: [] };
  const { ref, read } = found;
  const demand = {
    login: request?.prompt === 'login',
    ...(request?.max_age !== undefined ? { maxAge: request.max_age } : {}),
    ...(request?.second_factor ? { secondFactor: true } : {}),
    ...tenantOf(call, request),
  };
  const resumed = await deps.sessions.resume(saasId, ref, demand, read);
  if (!resumed.usable) {
    const forget = resumed.why === 'ended' ? forgetSession(deps, saasId) : [];
    const refused = refuse();
    if (refused) return { answer: { ...refused.answer, cookies: forget } };
    const { user, why } = resumed;
    return user && why !== 'ended' && why !== 'none' ? { signedInAs: { name: loginOf(user).value, why }, cookies: forget } : { cookies: forget };
  }
  const { user, session } = resumed;
  const target = request
    ? { binding: { ...bindingOf(request), screen_session: session.session_id } }
    : context.code_challenge !== undefined
      ? { challenge: context.code_challenge }
      : {};
  const callback = request ? undefined : webUrl(await deps.callbackUrl(saasId));
  // No callback URL: the page says so when the person signs in; a session has nowhere to send them either.
  if (!request && !callback) return { cookies: [] };
  // The code's grant is recorded on the session in the code's own write: signing out can revoke it.
  const grantId = newGrantId();
  const saved = await deps.sessions.saveForSession(
    saasId,
    user,
    { authTime: session.auth_time, sessionVersion: session.session_version, methods: session.methods },
    target,
    deps.sessions.touch(saasId, session, grantId),
    grantId,
  );
  // Ended between the read and the write: as if there had been none.
  if (!saved) return refuse() ?? { cookies: forgetSession(deps, saasId) };
  const moved = ref.oldName ? await movedSession(deps, saasId, ref, session.expires_at) : [];
  if (request) return { answer: redirect(authorizationResponse(request, deps.issuer, saved.code), moved) };
  const url = callback as URL;
  url.searchParams.set('code', saved.code);
  if (context.state !== undefined) url.searchParams.set('state', context.state);
  return { answer: redirect(url.toString(), moved) };
}

const TENANT_ID = /^[A-Za-z0-9-]{1,64}$/;

/**
 * The tenant the SaaS's own entry names (`?tenant_id=`, as its home-realm step and tenant links carry it): a
 * session made through that tenant's identity provider answers it, and only it. An OpenID Connect request names
 * no tenant, so such a session never answers one.
 */
function tenantOf({ query }: ScreenCall, request: AuthorizationRequest | undefined): { tenantId?: string } {
  const tenantId = query.get('tenant_id');
  return !request && tenantId !== null && TENANT_ID.test(tenantId) ? { tenantId } : {};
}

const bindingOf = ({ redirect_uri, code_challenge, scope, nonce }: AuthorizationRequest) => ({
  redirect_uri,
  code_challenge,
  scope,
  ...(nonce !== undefined ? { nonce } : {}),
});
