/**
 * The old Cognito user pool of a lazy migration (shared/domain/migration/lazy-cognito.ts), through the AWS SDK's
 * Cognito client: InitiateAuth with USER_PASSWORD_AUTH or, where the pool's app client does not allow that flow
 * (a SaaSus pool's may not), USER_SRP_AUTH and RespondToAuthChallenge with the SRP client of cognito-srp-helper;
 * then GetUser with the access token; the user's groups are the `cognito:groups` claim of the ID token the same
 * answer holds. These are Cognito's public operations (the app client's id is what names the pool), so the service
 * needs no IAM role in the old account.
 *
 * A module of its own so that it stays out of the functions' bundles: cognito-pool.ts imports it dynamically under
 * COGNITO_SDK_IMPORT (lib/bundling.ts), left external, and the stack builds it beside the bundles that may need it,
 * so a sign-in that never migrates never carries or loads the client (about 281 KB with its Smithy core). What
 * talks to the old pool belongs here, not in cognito-pool.ts, which is in the sign-in bundle.
 */
import {
  CognitoIdentityProviderClient,
  GetUserCommand,
  InitiateAuthCommand,
  RespondToAuthChallengeCommand,
  type AuthenticationResultType,
} from '@aws-sdk/client-cognito-identity-provider';
import { createSrpSession, signSrpSession, wrapAuthChallenge, wrapInitiateAuth } from 'cognito-srp-helper';
import { decodeJwt } from 'jose';
import type { OldPool, OldPoolUser } from '../domain/migration/lazy-cognito.js';

export { CognitoIdentityProviderClient, GetUserCommand, InitiateAuthCommand };

/** What the old pool said: the user it accepted, or why not (`error`: its exception's name, when it threw one). */
export interface OldPoolAnswer {
  user?: OldPoolUser;
  error?: string;
}

/** The groups an ID token names: Cognito leaves the claim out for a user in none. */
function groupsOf(idToken: string | undefined): string[] {
  if (!idToken) return [];
  // The token came straight from the pool's API over TLS in answer to this request: read, not verified.
  const claim = decodeJwt(idToken)['cognito:groups'];
  return Array.isArray(claim) ? claim.filter((g): g is string => typeof g === 'string') : [];
}

/** Cognito's refusal of a flow the app client does not allow: "USER_PASSWORD_AUTH flow not enabled for this client". */
const flowNotEnabled = (error: unknown) =>
  (error as { name?: string }).name === 'InvalidParameterException' && /flow not enabled/i.test((error as Error).message ?? '');

/**
 * A user whom the pool refuses at the start of SRP (a pool without "prevent user existence errors" names an unknown
 * user at once) still costs the password's signature, as a wrong password does: the same work for both.
 */
function decoySignature(session: ReturnType<typeof createSrpSession>): void {
  signSrpSession(session, {
    ChallengeParameters: { SALT: '00', SECRET_BLOCK: Buffer.alloc(16).toString('base64'), SRP_B: session.largeA, USER_ID_FOR_SRP: session.username },
  });
}

/** The tokens of USER_SRP_AUTH: the password never leaves this process, only the proof of it. */
async function srpTokens(client: CognitoIdentityProviderClient, pool: OldPool, username: string, password: string) {
  const session = createSrpSession(username, password, pool.user_pool_id, false);
  const started = await client
    .send(
      new InitiateAuthCommand(
        wrapInitiateAuth(session, { AuthFlow: 'USER_SRP_AUTH', ClientId: pool.client_id, AuthParameters: { USERNAME: username } }),
      ),
    )
    .catch((error: unknown) => {
      decoySignature(session);
      throw error;
    });
  if (started.ChallengeName !== 'PASSWORD_VERIFIER') return undefined;
  const signed = signSrpSession(session, started);
  const answer = await client.send(
    new RespondToAuthChallengeCommand(
      wrapAuthChallenge(signed, {
        ClientId: pool.client_id,
        ChallengeName: 'PASSWORD_VERIFIER',
        ChallengeResponses: { USERNAME: started.ChallengeParameters?.USER_ID_FOR_SRP ?? username },
        Session: started.Session,
      }),
    ),
  );
  return answer.AuthenticationResult;
}

/** The pool's tokens for the password: USER_PASSWORD_AUTH, or SRP where the app client does not allow it. */
async function tokensFor(
  client: CognitoIdentityProviderClient,
  pool: OldPool,
  username: string,
  password: string,
): Promise<AuthenticationResultType | undefined> {
  try {
    const auth = await client.send(
      new InitiateAuthCommand({
        AuthFlow: 'USER_PASSWORD_AUTH',
        ClientId: pool.client_id,
        AuthParameters: { USERNAME: username, PASSWORD: password },
      }),
    );
    return auth.AuthenticationResult;
  } catch (error) {
    // Cognito checks the flow before the name, so every name takes this way alike.
    if (!flowNotEnabled(error)) throw error;
  }
  return srpTokens(client, pool, username, password);
}

/** `endpoint`: cognito-local's URL in tests and on a laptop; the pool's region endpoint otherwise. */
export async function oldPoolSignIn(pool: OldPool, username: string, password: string, endpoint?: string): Promise<OldPoolAnswer> {
  const client = new CognitoIdentityProviderClient({
    region: pool.region,
    // cognito-local checks no signature; the SDK still wants credentials to sign with.
    ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  try {
    const tokens = await tokensFor(client, pool, username, password);
    // A challenge (MFA, a new password): the old pool wants more than a password, which this step cannot give.
    if (!tokens?.AccessToken) return {};
    const me = await client.send(new GetUserCommand({ AccessToken: tokens.AccessToken }));
    const attribute = (name: string) => me.UserAttributes?.find((a) => a.Name === name)?.Value;
    const sub = attribute('sub') ?? me.Username;
    if (!sub) return {};
    const email = attribute('email');
    return { user: { sub, ...(email ? { email } : {}), emailVerified: attribute('email_verified') === 'true', groups: groupsOf(tokens.IdToken) } };
  } catch (error) {
    return { error: (error as { name?: string }).name || String(error) };
  } finally {
    client.destroy();
  }
}
