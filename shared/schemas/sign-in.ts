import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { OperationSchema } from './operation.js';
import { AttributeValues, IssuedToken, OptionalOrEmpty, Uuid } from './common.js';
import { UserInfo } from './tenant-users.js';

/** Every challenge name the spec lists (docs/decisions.md); the service offers some of them (OFFERED in domain/sign-in/sign-in.ts). */
export const CHALLENGE_NAMES = [
  'SMS_MFA',
  'EMAIL_OTP',
  'SOFTWARE_TOKEN_MFA',
  'SELECT_MFA_TYPE',
  'MFA_SETUP',
  'PASSWORD_VERIFIER',
  'CUSTOM_CHALLENGE',
  'SELECT_CHALLENGE',
  'DEVICE_SRP_AUTH',
  'DEVICE_PASSWORD_VERIFIER',
  'ADMIN_NO_SRP_AUTH',
  'NEW_PASSWORD_REQUIRED',
  'SMS_OTP',
  'PASSWORD',
  'WEB_AUTHN',
  'PASSWORD_SRP',
] as const;
export type ChallengeName = (typeof CHALLENGE_NAMES)[number];

/** A string map as Cognito's AuthParameters and ChallengeResponses are; values bounded like a secret block. */
const Parameters = (description: string) => Type.Record(Type.String({ maxLength: 128 }), Type.String({ maxLength: 8192 }), { description });

export const Credentials = Type.Object(
  {
    id_token: Type.String(),
    access_token: Type.String(),
    refresh_token: Type.Optional(Type.String({ description: 'absent only when saved credentials carried none' })),
  },
  { $id: 'Credentials' },
);
export type Credentials = Static<typeof Credentials>;

export const NewDeviceMetadata = Type.Object({ device_key: Type.String(), device_group_key: Type.String() }, { $id: 'NewDeviceMetadata' });
export type NewDeviceMetadata = Static<typeof NewDeviceMetadata>;

export const SignInChallenge = Type.Object(
  {
    challenge_name: Type.String(),
    challenge_parameters: Type.Record(Type.String(), Type.String()),
    session: Type.String(),
  },
  { $id: 'SignInChallenge' },
);
export type SignInChallenge = Static<typeof SignInChallenge>;

/** A further challenge (challenge_name, challenge_parameters, session), or the end of the sign-in (credentials). */
export const SignInResult = Type.Object(
  {
    challenge_name: Type.Optional(Type.String({ description: 'the next challenge; absent once credentials are issued' })),
    challenge_parameters: Type.Record(Type.String(), Type.String()),
    session: Type.Optional(Type.String({ description: 'answer the next challenge with it; absent once credentials are issued' })),
    credentials: Type.Optional(Credentials),
    new_device_metadata: Type.Optional(NewDeviceMetadata),
  },
  { $id: 'SignInResult' },
);
export type SignInResult = Static<typeof SignInResult>;

export const ChallengeAnswer = Type.Object({
  challenge_name: Type.Union(
    CHALLENGE_NAMES.map((name) => Type.Literal(name)),
    { description: 'one of the challenge names of the spec' },
  ),
  challenge_responses: Type.Optional(Parameters('the answer: which names depends on challenge_name')),
  session: Type.Optional(Type.String({ maxLength: 8192 })),
});
export type ChallengeAnswer = Static<typeof ChallengeAnswer>;

export const DeviceConfirmation = Type.Object({
  access_token: IssuedToken('the access token of the sign-in that offered the device'),
  device_key: Type.String({ minLength: 1, maxLength: 128 }),
  device_name: Type.Optional(Type.String({ maxLength: 256 })),
  device_secret_verifier_config: Type.Optional(
    Type.Object({
      password_verifier: Type.String({ maxLength: 2048, description: 'base64 of the device verifier' }),
      salt: Type.String({ maxLength: 256, description: 'base64 of the device salt' }),
    }),
  ),
});
export type DeviceConfirmation = Static<typeof DeviceConfirmation>;

export const DeviceStatusUpdate = Type.Object({
  access_token: IssuedToken("an access token of the device's user"),
  device_key: Type.String({ minLength: 1, maxLength: 128 }),
  device_remembered_status: Type.Union([Type.Literal('remembered'), Type.Literal('not_remembered')]),
});
export type DeviceStatusUpdate = Static<typeof DeviceStatusUpdate>;

export const CredentialsQuery = Type.Object({
  code: OptionalOrEmpty(Uuid),
  'auth-flow': Type.Optional(Type.Union([Type.Literal('tempCodeAuth'), Type.Literal('refreshTokenAuth')])),
  'refresh-token': Type.Optional(Type.String({ maxLength: 256 })),
});
export type CredentialsQuery = Static<typeof CredentialsQuery>;

export const CredentialsToSave = Type.Object({
  id_token: IssuedToken('an ID token this service issued'),
  access_token: IssuedToken('an access token this service issued, of the same user'),
  refresh_token: Type.Optional(Type.String({ maxLength: 256, description: 'a refresh token of the same user; empty counts as not given' })),
  code_challenge: OptionalOrEmpty(
    Type.String({
      pattern: '^[A-Za-z0-9_-]{43}$',
      description: 'BASE64URL(SHA-256(code_verifier)); the code is then traded only at POST /credentials/exchange',
    }),
  ),
  code_challenge_method: Type.Optional(
    Type.Union([Type.Literal('S256'), Type.Literal('plain'), Type.Literal('')], {
      description: "S256, required with code_challenge; plain is refused (400); '' counts as not given",
    }),
  ),
});
export type CredentialsToSave = Static<typeof CredentialsToSave>;

/** RFC 7636's code_verifier: 43 to 128 unreserved characters. */
const CodeVerifier = Type.String({ pattern: '^[A-Za-z0-9._~-]{43,128}$', description: 'the PKCE verifier of the code_challenge' });

export const CredentialsExchange = Type.Object({
  auth_flow: Type.Literal('tempCodeAuth'),
  code: Uuid,
  code_verifier: CodeVerifier,
});
export type CredentialsExchange = Static<typeof CredentialsExchange>;

/** /userinfo: the UserInfo shape, with the user's SaaS-user attributes also as `attributes` (as SDKs read them). */
export const SignedInUser = Type.Composite([UserInfo, Type.Object({ attributes: AttributeValues })], { $id: 'SignedInUser' });
export type SignedInUser = Static<typeof SignedInUser>;

export const signInSchemas = {
  signIn: {
    body: Type.Object({
      sign_in_flow: Type.Union([Type.Literal('USER_SRP_AUTH'), Type.Literal('USER_PASSWORD_AUTH')], {
        description: 'USER_PASSWORD_AUTH (extension, issue 39): only where the SaaS turned password_sign_in on',
      }),
      sign_in_parameters: Type.Object(
        {
          USERNAME: Type.String({ minLength: 1, maxLength: 256, description: 'an e-mail address or a sign-in ID' }),
          SRP_A: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'the SRP A value, hex (USER_SRP_AUTH)' })),
          PASSWORD: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'the password (USER_PASSWORD_AUTH)' })),
        },
        { additionalProperties: Type.String({ maxLength: 8192 }) },
      ),
    }),
    // USER_PASSWORD_AUTH answers as Respond to Sign In Challenge does: credentials, or the next challenge.
    response: Type.Union([SignInChallenge, SignInResult]),
  },
  respondToSignInChallenge: { body: ChallengeAnswer, response: SignInResult },
  confirmDevice: { body: DeviceConfirmation, response: Type.Object({ user_confirmation_necessary: Type.Boolean() }) },
  updateDeviceStatus: { body: DeviceStatusUpdate },
  getAuthCredentials: { query: CredentialsQuery, response: Credentials },
  createAuthCredentials: {
    body: CredentialsToSave,
    response: Type.Object({ code: Type.String({ description: 'a UUID, valid 10 seconds, single use' }) }),
  },
  exchangeAuthCredentials: { body: CredentialsExchange, response: Credentials },
  getUserInfo: { query: Type.Object({ token: IssuedToken('an ID token this service issued') }), response: SignedInUser },
  revokeToken: {
    body: Type.Object({
      refresh_token: Type.String({
        minLength: 1,
        maxLength: 2048,
        description: 'the refresh token to revoke, with every token issued from it; an unknown or revoked one is no error (RFC 7009)',
      }),
    }),
  },
} satisfies Record<string, OperationSchema>;
