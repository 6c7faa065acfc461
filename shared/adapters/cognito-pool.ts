/**
 * The old Cognito user pool of a lazy migration (shared/domain/migration/lazy-cognito.ts), through the AWS SDK's
 * Cognito client: InitiateAuth with USER_PASSWORD_AUTH, then GetUser with the access token it returns. Both are
 * Cognito's public operations (the app client's id is what names the pool), so the service needs no IAM role
 * in the old account; the app client must allow USER_PASSWORD_AUTH and have no client secret. The SDK is
 * loaded at the first migration, from beside the bundle (cognito-sdk.ts), so sign-ins that never need it do not
 * pay for carrying or loading it.
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
    const client = new sdk.CognitoIdentityProviderClient({
      region: pool.region,
      // cognito-local checks no signature; the SDK still wants credentials to sign with.
      ...(this.endpoint ? { endpoint: this.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    });
    try {
      const auth = await client.send(
        new sdk.InitiateAuthCommand({
          AuthFlow: 'USER_PASSWORD_AUTH',
          ClientId: pool.client_id,
          AuthParameters: { USERNAME: username, PASSWORD: password },
        }),
      );
      const token = auth.AuthenticationResult?.AccessToken;
      // A challenge (MFA, a new password): the old pool wants more than a password, which this step cannot give.
      if (!token) return undefined;
      const me = await client.send(new sdk.GetUserCommand({ AccessToken: token }));
      const attribute = (name: string) => me.UserAttributes?.find((a) => a.Name === name)?.Value;
      const sub = attribute('sub') ?? me.Username;
      if (!sub) return undefined;
      const email = attribute('email');
      return { sub, ...(email ? { email } : {}), emailVerified: attribute('email_verified') === 'true' };
    } catch (error) {
      const name = (error as { name?: string }).name ?? '';
      if (!REFUSALS.has(name)) log.warn('the old user pool did not answer a lazy migration', { error: name || String(error) });
      return undefined;
    } finally {
      client.destroy();
    }
  }
}
