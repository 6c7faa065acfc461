/**
 * The unmodified amazon-cognito-identity-js CognitoUser, pointed at a stand-in for Cognito's API: a
 * transport that plays the calls it makes (InitiateAuth, RespondToAuthChallenge, ConfirmDevice,
 * UpdateDeviceStatus). Unit tests play them on the SRP engine alone, integration tests turn them into the
 * service's signed HTTP calls. Its callbacks become promises of what happened next.
 */
import { AuthenticationDetails, CognitoUser, CognitoUserPool, type CognitoUserSession, type ICognitoStorage } from 'amazon-cognito-identity-js';

export type CognitoParams = Record<string, unknown>;

export interface CognitoTransport {
  /** Cognito's answer to one call; a rejection with `code` is what the client sees as Cognito's error. */
  handle(operation: string, params: CognitoParams): Promise<unknown>;
}

/** What one browser keeps (tokens, the remembered device): a fresh one per test unless shared on purpose. */
export function newBrowserStorage(): ICognitoStorage {
  const data = new Map<string, string>();
  return {
    setItem: (key, value) => void data.set(key, value),
    getItem: (key) => data.get(key) ?? null,
    removeItem: (key) => void data.delete(key),
    clear: () => data.clear(),
  };
}

export interface CognitoUserOptions {
  /** `REGION_POOLNAME`: the client signs with the part after `_`. */
  poolId: string;
  clientId: string;
  username: string;
  storage?: ICognitoStorage;
}

export function cognitoUser(transport: CognitoTransport, options: CognitoUserOptions): CognitoUser {
  const storage = options.storage ?? newBrowserStorage();
  const pool = new CognitoUserPool({ UserPoolId: options.poolId, ClientId: options.clientId, Storage: storage });
  const client = {
    request: (operation: string, params: CognitoParams, callback: (error: unknown, data?: unknown) => void) =>
      transport.handle(operation, params).then(
        (data) => callback(null, data),
        (error: unknown) => callback(error),
      ),
  };
  (pool as unknown as { client: typeof client }).client = client;
  return new CognitoUser({ Username: options.username, Pool: pool, Storage: storage });
}

/** Where a sign-in step left the user. */
export type Outcome =
  | { kind: 'signedIn'; session: CognitoUserSession; userConfirmationNecessary: boolean }
  | { kind: 'newPasswordRequired'; userAttributes: Record<string, string>; requiredAttributes: string[] }
  | { kind: 'totpRequired' }
  | { kind: 'mfaRequired'; challengeName: string; parameters: Record<string, string> };

function step(run: (callbacks: object) => void): Promise<Outcome> {
  return new Promise((resolve, reject) =>
    run({
      onSuccess: (session: CognitoUserSession, userConfirmationNecessary?: boolean) =>
        resolve({ kind: 'signedIn', session, userConfirmationNecessary: userConfirmationNecessary === true }),
      onFailure: reject,
      newPasswordRequired: (userAttributes: Record<string, string>, requiredAttributes: string[]) =>
        resolve({ kind: 'newPasswordRequired', userAttributes, requiredAttributes }),
      totpRequired: () => resolve({ kind: 'totpRequired' }),
      mfaRequired: (challengeName: string, parameters: Record<string, string>) => resolve({ kind: 'mfaRequired', challengeName, parameters }),
    }),
  );
}

/** CognitoUser.authenticateUser (USER_SRP_AUTH). */
export const authenticate = (user: CognitoUser, password: string): Promise<Outcome> =>
  step((callbacks) => user.authenticateUser(new AuthenticationDetails({ Username: user.getUsername(), Password: password }), callbacks as never));

export const completeNewPassword = (user: CognitoUser, newPassword: string): Promise<Outcome> =>
  step((callbacks) => user.completeNewPasswordChallenge(newPassword, {}, callbacks as never));

export const sendMfaCode = (user: CognitoUser, code: string, type: 'SOFTWARE_TOKEN_MFA' | 'EMAIL_OTP'): Promise<Outcome> =>
  step((callbacks) => user.sendMFACode(code, callbacks as never, type));

export const setDeviceRemembered = (user: CognitoUser): Promise<void> =>
  new Promise((resolve, reject) => user.setDeviceStatusRemembered({ onSuccess: () => resolve(), onFailure: reject }));

/** The subject of a signed-in outcome; anything else fails the test with what it was. */
export function signedInSubject(outcome: Outcome): string {
  if (outcome.kind !== 'signedIn') throw new Error(`expected a signed-in user, got ${outcome.kind}`);
  return outcome.session.getIdToken().payload.sub as string;
}
