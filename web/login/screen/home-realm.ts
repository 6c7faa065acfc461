/**
 * Home-realm discovery (docs/enterprise.md): the address first. `POST ./api/discover {email, state?, …}`
 * answers `{redirect}` to the identity provider of the tenant that verified the address's domain (its OpenID
 * Connect provider, else its SAML one), carrying what the screen was opened for; `{}` when no tenant did, and
 * the page goes on with the password.
 */
import * as Type from '@sinclair/typebox';
import { MAX_AUTHORIZATION_LENGTH, MAX_STATE_LENGTH, contextQuery, screenContext } from '../screen-context.js';
import { screenPath } from './answers.js';
import { stepOf, type ScreenStep } from './steps.js';

const Discover = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  state: Type.Optional(Type.String({ maxLength: MAX_STATE_LENGTH })),
  code_challenge: Type.Optional(Type.String({ maxLength: 64 })),
  authorization: Type.Optional(Type.String({ maxLength: MAX_AUTHORIZATION_LENGTH })),
});

export const HOME_REALM_STEPS: Readonly<Record<string, ScreenStep>> = {
  discover: stepOf(Discover, async ({ parts: { deps }, saasId }, body) => {
    const realm = await deps.federation.homeRealm?.(saasId, body.email.trim());
    if (!realm) return {};
    const { email: _email, ...carried } = body;
    const query = new URLSearchParams(
      contextQuery(screenContext(new URLSearchParams({ ...carried, ...(carried.code_challenge ? { code_challenge_method: 'S256' } : {}) }))),
    );
    query.set('tenant_id', realm.tenantId);
    return { redirect: `${screenPath(deps, saasId)}${realm.via}?${query.toString()}` };
  }),
};
