/**
 * How every way of signing in on the screen ends (password, device, passkey, Google, SAML, a linked account):
 * the invitation accepted (when there is one), the credentials saved under a code, and back to the callback URL,
 * or to the redirect URI of the OpenID Connect request the page was opened for.
 */
import { invalid } from '../../../shared/errors.js';
import type { Credentials, SignInResult } from '../../../shared/schemas/sign-in.js';
import { webUrl } from '../../../shared/schemas/web-url.js';
import { sealJson } from '../../kit/sealed.js';
import { authorizationResponse, openAuthorizationRequest } from '../oidc/authorization-server.js';
import type { ScreenContext } from '../screen-context.js';
import { deviceTicket, type ScreenParts } from './contract.js';
import { openSession, PASSWORD, type SignInWay } from './screen-session.js';

export async function finish(
  { deps, passkeys }: ScreenParts,
  saasId: string,
  step: SignInResult & { credentials: Credentials },
  { state, invitation, authorization, code_challenge }: ScreenContext & { invitation?: { id: string } },
  way: SignInWay = PASSWORD,
  /** The page follows the answer (it may show passkeys first); false when the server redirects at once. */
  pageFollows = true,
) {
  const { credentials } = step;
  // The screen session this sign-in opens: written with its code, so it costs no store request of its own.
  const session = await openSession(deps, saasId, credentials, way);
  const withCode = session ? [session.write] : [];
  const request = authorization !== undefined ? await openAuthorizationRequest(deps.box, saasId, authorization) : undefined;
  // Parsed with the rule it was saved under (shared/schemas/web-url.ts): a stored value no browser could follow is none.
  const callback = webUrl(await deps.callbackUrl(saasId));
  if (!callback) throw invalid('no_callback_url', 'the SaaS has no callback URL (PUT /auth-info)');
  if (invitation) await deps.invitations.accept(saasId, invitation.id, { access_token: credentials.access_token });
  // Passkeys on: the page may offer one, or show the person theirs, before it leaves (passkeys.ts). The code is
  // then held back until they leave (api/passkey/continue), so its seconds are not spent on that page.
  const offer = pageFollows ? await passkeys.offer(saasId, credentials) : {};
  let hold: string | undefined;
  const save = async (...args: Parameters<ScreenParts['deps']['saveCredentials']>) => {
    if (!offer.passkeys) return deps.saveCredentials(...args);
    const held = await deps.holdCredentials(...args);
    hold = held.hold;
    return held;
  };
  let redirect: string;
  if (request) {
    const { redirect_uri, code_challenge, nonce, scope } = request;
    const binding = {
      redirect_uri,
      code_challenge,
      scope,
      ...(nonce !== undefined ? { nonce } : {}),
      ...(session ? { screen_session: session.sessionId } : {}),
    };
    redirect = authorizationResponse(request, deps.issuer, (await save(saasId, credentials, binding, ...withCode)).code);
  } else {
    const url = callback;
    // With the application's PKCE challenge, the code is traded only with its verifier (POST /credentials/exchange).
    const toSave = code_challenge ? { ...credentials, code_challenge, code_challenge_method: 'S256' as const } : credentials;
    url.searchParams.set('code', (await save(saasId, toSave, undefined, ...withCode)).code);
    if (state !== undefined) url.searchParams.set('state', state);
    redirect = url.toString();
  }
  await session?.commit();
  const passkeyOffer = offer.passkeys && hold ? { passkeys: { ...offer.passkeys, hold } } : {};
  const offered = step.new_device_metadata;
  if (!offered) return { redirect, ...passkeyOffer };
  // A device offered: the page confirms it (api/device) before it leaves, with a ticket that carries the access
  // token sealed, so the token never reaches the page; the server makes the device's secret (remembered-devices.ts).
  const held = { access_token: credentials.access_token, device_key: offered.device_key, device_group_key: offered.device_group_key };
  const ticket = await sealJson(deps.box, held, deviceTicket(saasId));
  return { redirect, new_device: { ...offered, ticket }, ...passkeyOffer };
}

/** A sign-in that ended with credentials and no challenge: a provider's, a link's, a passkey's. */
export const finishWith = (
  parts: ScreenParts,
  saasId: string,
  credentials: Credentials,
  context: ScreenContext & { invitation?: { id: string } },
  way: SignInWay,
  pageFollows = true,
) => finish(parts, saasId, { challenge_parameters: {}, credentials }, context, way, pageFollows);
