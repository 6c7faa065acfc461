/**
 * The old Cognito user pool of a lazy migration (shared/domain/migration/lazy-cognito.ts). The talk with the pool
 * is cognito-sdk.ts, loaded at the first migration from beside the bundle, so sign-ins that never need it do not
 * pay for carrying or loading it; this port only loads it and says in the log what was not an ordinary refusal.
 */
import { log } from '../log.js';
import type { OldPool, OldPoolPort, OldPoolUser } from '../domain/migration/lazy-cognito.js';

/** Cognito's answers that mean "not this password, or not this way": the sign-in is refused, nothing more. */
const REFUSALS = new Set([
  'NotAuthorizedException',
  'UserNotFoundException',
  'UserNotConfirmedException',
  'PasswordResetRequiredException',
  'InvalidParameterException',
]);

export class CognitoOldPool implements OldPoolPort {
  /** `endpoint`: cognito-local's URL in tests and on a laptop; the pool's region endpoint otherwise. */
  constructor(private readonly endpoint?: string) {}

  async signIn(pool: OldPool, username: string, password: string): Promise<OldPoolUser | undefined> {
    const sdk = await import('./cognito-sdk.js');
    const { user, error } = await sdk.oldPoolSignIn(pool, username, password, this.endpoint);
    if (error && !REFUSALS.has(error)) log.warn('the old user pool did not answer a lazy migration', { error });
    return user;
  }
}
