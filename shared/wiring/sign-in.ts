/**
 * Sign-in: the SRP sign-in and its challenges, devices, refresh and temporary codes, /userinfo, sign-up. What
 * belongs here: a service a user signs in, up or on with (an external provider's sign-in and passkeys are in
 * federation.ts). The hosted screen's sessions too: a sign-in opens them.
 */
import { config } from '../config.js';
import type { SignInSettings } from '../schemas/configuration.js';
import { validitySeconds } from '../domain/configuration/configuration.js';
import { RefreshTokens } from '../domain/sign-in/refresh-tokens.js';
import { SignInService } from '../domain/sign-in/sign-in.js';
import { CredentialService } from '../domain/sign-in/sign-in-credentials.js';
import { DeviceService } from '../domain/sign-in/sign-in-devices.js';
import { SignUpService } from '../domain/sign-in/sign-up.js';
import { PasswordSignIn } from '../domain/sign-in/password-sign-in.js';
import { CognitoLazyMigration } from '../domain/migration/lazy-cognito.js';
import { CognitoOldPool } from '../adapters/cognito-pool.js';
import { ScreenSessionService } from '../domain/sign-in/screen-sessions.js';
import { poolName } from './accounts.js';
import { secretBox } from './clients.js';
import { configurationReader, passwordPolicy, signInSettings } from './configuration.js';
import { keyStore, refreshTokens, srpSignIn, tokenService, tokenVerifier } from './keys.js';
import {
  authorizationCodeRepository,
  committer,
  grantRepository,
  pendingSignUpRepository,
  signInRepository,
  screenSessionRepository,
  tempCodeRepository,
  userRepository,
} from './repositories.js';
import { tenantUserService } from './tenants.js';
import { activityLog, userFlowService, userService } from './users.js';

const deviceRemembering = async (saasId: string) => (await signInSettings(saasId)).device_configuration.device_remembering;

/** Whether a SaaS lets users sign themselves up (its sign-in settings' self_regist). */
export const selfSignUpEnabled = async (saasId: string) => (await signInSettings(saasId)).self_regist.enable;

/**
 * The sign-in settings of a SaaS read once per service object (one request): a sign-in's device offer and its
 * refresh token's lifetime come from one read, even where the settings cache has nothing (a SaaS that never
 * saved them: absent documents are not kept).
 */
function signInSettingsOnce() {
  const reads = new Map<string, Promise<SignInSettings>>();
  return (saasId: string) => {
    let read = reads.get(saasId);
    if (!read) reads.set(saasId, (read = signInSettings(saasId)));
    return read;
  };
}

/** Sign In and Respond to Sign In Challenge; the hosted screen's (`screen`) lets a person enrol a first passkey. */
export const signInService = (screen = false) => {
  const { signInSessionSeconds, tokenLifetimeSeconds, region } = config();
  const settings = signInSettingsOnce();
  const store = signInRepository();
  return new SignInService({
    users: userRepository(),
    passwordChange: (saasId, userId, password) => userService().passwordChangeWrite(saasId, userId, password),
    store,
    committer: committer(),
    srp: srpSignIn(),
    tokens: tokenService(),
    refreshTokens: new RefreshTokens(keyStore(), async (saasId) => validitySeconds((await settings(saasId)).refresh_token_validity)),
    box: secretBox(),
    mailLimits: config().mailLimits,
    poolName,
    deviceRemembering: async (saasId) => (await settings(saasId)).device_configuration.device_remembering,
    settings: { challengeSeconds: signInSessionSeconds, offeredDeviceSeconds: tokenLifetimeSeconds, region },
    activity: activityLog(),
    passkeyGate: async (saasId, user) => {
      const { passkeys } = await settings(saasId);
      // A tenant's requirement (docs/decisions.md, "Passkeys required by a tenant") is read only where passkeys are on.
      const required = passkeys.required || (passkeys.enable && (await tenantUserService().requiresPasskey(saasId, user)));
      if (!required) return 'open';
      return (await store.hasPasskey(saasId, user.id)) ? 'closed' : 'enrol';
    },
    ...(screen ? { enrolment: { box: secretBox() } } : {}),
  });
};

/** Confirm Device and Update Device Status. */
export const deviceService = () => new DeviceService({ store: signInRepository(), verifier: tokenVerifier(), deviceRemembering });

/** Refresh, temporary codes, /userinfo. */
export const credentialService = () =>
  new CredentialService({
    users: userRepository(),
    refreshTokens: refreshTokens(),
    grants: grantRepository(),
    authorizationCodes: authorizationCodeRepository(),
    tempCodes: tempCodeRepository(),
    committer: committer(),
    tokens: tokenService(),
    tokenLifetimeSeconds: config().tokenLifetimeSeconds,
    verifier: tokenVerifier(),
    userInfo: (saasId, userId) => tenantUserService().userInfoAndSession(saasId, userId, true),
    signInPageUrl: (saasId) => configurationReader().signInPageUrl(saasId),
    recordSessionGrant: (saasId, userId, sessionId, grantId) => screenSessionRepository().addGrant(saasId, userId, sessionId, grantId),
  });

/** The hosted screen's sessions (shared/domain/sign-in/screen-sessions.ts), their rules in the sign-in settings. */
export const screenSessionService = () =>
  new ScreenSessionService({
    store: screenSessionRepository(),
    rules: async (saasId) => {
      const { screen_session, passkeys } = await signInSettings(saasId);
      return {
        idleSeconds: screen_session.idle_minutes * 60,
        absoluteSeconds: screen_session.absolute_minutes * 60,
        passkeysRequired: passkeys.required === true,
        passkeysEnabled: passkeys.enable,
      };
    },
    tenantRequiresPasskey: (saasId, user) => tenantUserService().requiresPasskey(saasId, user),
    revokeGrants: (saasId, userId, grantIds) => credentialService().revokeGrants(saasId, userId, grantIds),
  });

export const signUpService = () =>
  new SignUpService({
    users: userService(),
    selfSignUpEnabled,
    pending: pendingSignUpRepository(),
    box: secretBox(),
    mailLimits: config().mailLimits,
    committer: committer(),
    passwordPolicy,
  });

/** USER_PASSWORD_AUTH and the screen's password step: imported users' first sign-in, the lazy migration (issue 39). */
export const passwordSignInService = () =>
  new PasswordSignIn({
    users: userRepository(),
    lockouts: signInRepository(),
    committer: committer(),
    activity: activityLog(),
    signIn: signInService(),
    settings: async (saasId) => (await signInSettings(saasId)).password_sign_in,
    poolName,
    mailSetPassword: (saasId, username) => userFlowService().requestPasswordReset(saasId, username),
    lazy: new CognitoLazyMigration({
      pool: new CognitoOldPool(config().cognitoEndpoint),
      users: userRepository(),
      committer: committer(),
      poolName,
      prepareMember: async (saasId, membership) => (await tenantUserService().prepareMembership(saasId, membership)).writes,
    }),
  });
