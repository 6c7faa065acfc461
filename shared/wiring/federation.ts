/**
 * Signing in with something other than a password: an external provider's account (Google, SAML) and passkeys.
 * What belongs here: a service that turns an outside proof into a sign-in of shared/domain/sign-in.
 */
import { FederationService } from '../domain/sign-in/federation.js';
import { PasskeyService } from '../domain/sign-in/passkeys.js';
import { loginOf } from '../domain/users/users.js';
import { signInSettings, passwordPolicy } from './configuration.js';
import { joinTenantJustInTime, verifiedDomainService } from './enterprise.js';
import { secretBox } from './clients.js';
import { tokenVerifier } from './keys.js';
import { committer, membershipRepository, passkeyRepository, userFlowRepository, userRepository } from './repositories.js';
import { selfSignUpEnabled, signInService } from './sign-in.js';
import { activityLog, userFlowService, userService } from './users.js';

/** Who an external provider's account signs in as (Google, SAML): shared/domain/sign-in/federation.ts. */
export const federationService = () =>
  new FederationService({
    users: userRepository(),
    userService: userService(),
    flows: userFlowRepository(),
    links: userFlowService(),
    committer: committer(),
    signIn: signInService(),
    selfSignUpEnabled,
    passwordPolicy,
    isMember: async (saasId, tenantId, userId) => (await membershipRepository().get(saasId, tenantId, userId)) !== undefined,
    // Verified domains route and guard a tenant's provider (issue 41).
    domainOwner: (saasId, email) => verifiedDomainService().ownerOf(saasId, email),
    joinTenant: joinTenantJustInTime,
  });

/** Passkeys (our extension): the hosted screen's ceremonies and the API's list and remove. */
export const passkeyService = () =>
  new PasskeyService({
    passkeys: passkeyRepository(),
    committer: committer(),
    enabled: async (saasId) => (await signInSettings(saasId)).passkeys.enable,
    users: {
      name: async (saasId, userId) => {
        const user = await userRepository().get(saasId, userId);
        return user ? loginOf(user).value : undefined;
      },
    },
    box: secretBox(),
    tokenHolder: async (saasId, accessToken) => (await tokenVerifier().verifyAccessToken(saasId, accessToken)).sub,
    signIn: (saasId, userId, ...writes) => signInService().federated(saasId, userId, { method: 'passkey' }, ...writes),
    activity: activityLog(),
  });
