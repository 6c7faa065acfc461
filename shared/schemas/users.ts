import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { OperationSchema } from './operation.js';
import { AccessToken, AttributeChanges, AttributeValues, Count, Limit, OptionalOrEmpty, PathParam, SearchPrefix, TypedCode, Uuid } from './common.js';
import { UserInfo } from './tenant-users.js';

export const SaasUser = Type.Object(
  {
    id: Type.String(),
    email: Type.String({ description: 'empty for a user who signs in with a sign-in ID' }),
    sign_in_id: Type.String({ description: 'empty for a user who signs in with an e-mail address' }),
    attributes: AttributeValues,
    last_login_at: Type.Integer({ description: 'Unix seconds of the last sign-in; 0 before the first' }),
  },
  { $id: 'SaasUser' },
);
export type SaasUser = Static<typeof SaasUser>;

export const MfaMethod = Type.Union([Type.Literal('softwareToken'), Type.Literal('email')], { description: 'softwareToken or email' });
export type MfaMethod = Static<typeof MfaMethod>;

export const MfaPreference = Type.Object({ enabled: Type.Boolean(), method: Type.Optional(MfaMethod) }, { $id: 'MfaPreference' });
export type MfaPreference = Static<typeof MfaPreference>;

/**
 * The answer of Get User's MFA Settings. The SDKs' model allows `method` to be `softwareToken` only, so e-mail
 * codes (this service's extension) show as `mfa_method: "email"` with no `method`; `mfa_method` always names
 * the method in use while MFA is on.
 */
export const MfaPreferenceAnswer = Type.Object(
  {
    enabled: Type.Boolean(),
    method: Type.Optional(Type.Literal('softwareToken', { description: 'softwareToken (as the SDK model allows); absent for e-mail codes' })),
    mfa_method: Type.Optional(MfaMethod),
  },
  { $id: 'MfaPreferenceAnswer' },
);
export type MfaPreferenceAnswer = Static<typeof MfaPreferenceAnswer>;

/** A passkey (our extension, shared/domain/sign-in/passkeys.ts): what it is, never its key. */
export const Passkey = Type.Object(
  {
    id: Type.String({ description: 'the passkey id: base64url SHA-256 of its WebAuthn credential id' }),
    rp_id: Type.String({ description: 'the relying party (the login screen host) it was registered at' }),
    device_type: Type.Union([Type.Literal('singleDevice'), Type.Literal('multiDevice')], { description: 'multiDevice: a synced passkey' }),
    backed_up: Type.Boolean(),
    created_at: Type.Integer({ description: 'Unix seconds' }),
    last_used_at: Type.Integer({ description: 'Unix seconds of its last sign-in; 0 before the first' }),
  },
  { $id: 'Passkey' },
);
/** A session of the hosted login screen (our extension; docs/login-screen.md, "Signed in once"). */
export const ScreenSession = Type.Object(
  {
    id: Type.String({ description: 'the session id' }),
    user_agent: Type.String({ description: 'the browser that signed in (its User-Agent, at most 256 characters)' }),
    ip: Type.String({ description: 'the address it signed in from' }),
    created_at: Type.Integer({ description: 'Unix seconds: the sign-in that made it' }),
    last_used_at: Type.Integer({ description: 'Unix seconds: the last authorization it answered (to the minute)' }),
    expires_at: Type.Integer({ description: 'Unix seconds: its absolute end (it also ends unused for the idle lifetime)' }),
    methods: Type.Array(Type.String(), {
      description: 'how the person proved who they are, as OpenID Connect amr values (pwd, otp, mfa, swk, hwk, fed)',
    }),
    tenant_id: Type.Optional(Type.String({ description: "made through this tenant's identity provider: it answers for that tenant only" })),
  },
  { $id: 'ScreenSession' },
);
const SessionIdParam = Type.String({ pattern: '^[A-Za-z0-9_-]{22}$', description: 'a session id (GET /users/{user_id}/sessions)' });
const PasskeyIdParam = Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', description: 'a passkey id (GET /users/{user_id}/passkeys)' });

export const NewSaasUser = Type.Object({
  email: Type.Optional(Type.Union([Type.String({ maxLength: 254 }), Type.Null()], { description: 'an e-mail address or null' })),
  sign_in_id: Type.Optional(Type.String({ maxLength: 50 })),
  password: Type.Optional(Type.String()),
});
export type NewSaasUser = Static<typeof NewSaasUser>;

export const SaasUserSearch = Type.Object({
  id: OptionalOrEmpty(Uuid),
  email: Type.Optional(SearchPrefix),
  sign_in_id: Type.Optional(SearchPrefix),
  limit: Type.Optional(Limit),
  cursor: Type.Optional(Type.String({ maxLength: 2048 })),
});
export type SaasUserSearch = Static<typeof SaasUserSearch>;

const UserIdParam = Type.Object({ user_id: PathParam });

/** What a user's security activity records (shared/domain/users/activity.ts). */
export const ACTIVITY_KINDS = [
  'sign_in_succeeded',
  'sign_in_failed',
  'locked_out',
  'password_changed',
  'password_reset',
  'password_reset_completed',
  'mfa_enabled',
  'mfa_disabled',
  'authenticator_registered',
  'passkey_added',
  'passkey_removed',
] as const;

/** One event of a user's security activity (our extension; shared/domain/users/activity.ts). */
export const UserActivity = Type.Object(
  {
    activity_id: Type.String({ description: 'unique; sorts as the events happened' }),
    kind: Type.Union(ACTIVITY_KINDS.map((kind) => Type.Literal(kind))),
    created_at: Type.Integer({ description: 'Unix seconds' }),
    method: Type.Optional(
      Type.Union([Type.Literal('srp'), Type.Literal('password'), Type.Literal('federated'), Type.Literal('passkey')], {
        description: 'how a sign-in proved the user',
      }),
    ),
    provider: Type.Optional(Type.String({ description: 'the identity provider of a federated sign-in' })),
    challenge: Type.Optional(
      Type.Union([Type.Literal('SOFTWARE_TOKEN_MFA'), Type.Literal('EMAIL_OTP')], { description: 'the code step a wrong MFA code was refused at' }),
    ),
    source_ip: Type.Optional(Type.String({ description: 'of the request that did it, when it had one' })),
    user_agent: Type.Optional(Type.String({ description: 'of that request (first 160 characters), when it had one' })),
  },
  { $id: 'UserActivity' },
);
export type UserActivity = Static<typeof UserActivity>;

export const UserActivityQuery = Type.Object({
  limit: Type.Optional(Limit),
  cursor: Type.Optional(Type.String({ maxLength: 2048 })),
});
export type UserActivityQuery = Static<typeof UserActivityQuery>;

export const userSchemas = {
  getSaasUsers: { response: Type.Object({ users: Type.Array(SaasUser) }) },
  createSaasUser: {
    body: NewSaasUser,
    response: Type.Composite([
      SaasUser,
      Type.Object({ password: Type.Optional(Type.String({ description: 'only when the service generated it for a sign-in-ID user' })) }),
    ]),
  },
  getSaasUsersCount: {
    response: Type.Object({ count: Type.Integer(), updated_at: Type.Integer({ description: 'Unix seconds; 0 before the first save' }) }),
  },
  saveSaasUsersCount: { body: Type.Object({ count: Count }) },
  searchSaasUsers: { query: SaasUserSearch, response: Type.Object({ users: Type.Array(SaasUser), cursor: Type.Optional(Type.String()) }) },
  getSaasUser: { params: UserIdParam, response: SaasUser },
  getSaasUserActivity: {
    params: UserIdParam,
    query: UserActivityQuery,
    response: Type.Object({ activities: Type.Array(UserActivity), cursor: Type.Optional(Type.String()) }, { $id: 'UserActivities' }),
  },
  deleteSaasUser: { params: UserIdParam, response: UserInfo },
  updateSaasUserPassword: { params: UserIdParam, body: Type.Object({ password: Type.String(), temporary: Type.Optional(Type.Boolean()) }) },
  resetSaasUserPassword: { params: UserIdParam, response: Type.Object({ password: Type.String() }) },
  updateSaasUserEmail: { params: UserIdParam, body: Type.Object({ email: Type.String({ maxLength: 254 }) }) },
  updateSaasUserSignInId: { params: UserIdParam, body: Type.Object({ sign_in_id: Type.String({ maxLength: 50 }) }) },
  updateSaasUserAttributes: { params: UserIdParam, body: Type.Object({ attributes: AttributeChanges }) },
  getUserMfaPreference: { params: UserIdParam, response: MfaPreferenceAnswer },
  updateUserMfaPreference: { params: UserIdParam, body: Type.Object({ enabled: Type.Boolean(), method: Type.Optional(MfaMethod) }) },
  unlinkProvider: { params: Type.Object({ user_id: PathParam, provider_name: PathParam }) },
  getUserPasskeys: { params: UserIdParam, response: Type.Object({ passkeys: Type.Array(Passkey) }) },
  deleteUserPasskey: { params: Type.Object({ user_id: PathParam, passkey_id: PasskeyIdParam }) },
  getUserSessions: { params: UserIdParam, response: Type.Object({ sessions: Type.Array(ScreenSession) }) },
  deleteUserSession: { params: Type.Object({ user_id: PathParam, session_id: SessionIdParam }) },
  requestEmailUpdate: { params: UserIdParam, body: Type.Object({ email: Type.String({ maxLength: 254 }), access_token: AccessToken }) },
  confirmEmailUpdate: { params: UserIdParam, body: Type.Object({ code: TypedCode, access_token: AccessToken }) },
  createSecretCode: {
    params: UserIdParam,
    body: Type.Object({ access_token: AccessToken }),
    response: Type.Object({ secret_code: Type.String({ description: 'the TOTP secret, base32, for the authenticator app' }) }),
  },
  updateSoftwareToken: { params: UserIdParam, body: Type.Object({ access_token: AccessToken, verification_code: TypedCode }) },
  requestExternalUserLink: { body: Type.Object({ access_token: AccessToken }) },
  confirmExternalUserLink: { body: Type.Object({ access_token: AccessToken, code: TypedCode }) },
} satisfies Record<string, OperationSchema>;
