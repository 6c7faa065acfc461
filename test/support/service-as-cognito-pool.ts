/**
 * One of this service's SaaS as a Cognito user pool on the wire, on 127.0.0.1: the AWS JSON protocol Cognito speaks
 * (`X-Amz-Target: AWSCognitoIdentityProviderService.InitiateAuth`, …) turned into the SaaS's signed sign-in calls
 * (dev-support/sign-in.ts, ServiceAsCognito), so that an AWS SDK client pointed at it with an endpoint override
 * runs Cognito's USER_SRP_AUTH against the service's real SRP engine. cognito-local speaks no SRP; this is how the
 * lazy migration's SRP path meets a pool that does (test/integration/lazy-migration.test.ts).
 *
 * As a pool whose app client allows only SRP: InitiateAuth with USER_PASSWORD_AUTH is refused with Cognito's
 * InvalidParameterException "USER_PASSWORD_AUTH flow not enabled for this client" (the SaaS has it off). GetUser
 * answers from the ID token the sign-in returned with that access token (GET /userinfo).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SignedClient } from '../../client/signed-fetch.js';
import { CognitoError, ServiceAsCognito } from '../../dev-support/sign-in.js';

/** The service's error types as Cognito names them. */
const COGNITO_ERRORS: Record<string, string> = { not_authorized: 'NotAuthorizedException', invalid_parameter: 'InvalidParameterException' };

export async function startServiceAsCognitoPool(api: SignedClient) {
  const cognito = new ServiceAsCognito(api);
  const idTokens = new Map<string, string>();
  const operations: string[] = [];
  const handle = async (operation: string, params: Record<string, unknown>): Promise<unknown> => {
    if (operation === 'GetUser') {
      const idToken = idTokens.get(params.AccessToken as string);
      if (!idToken) throw new CognitoError('not_authorized', 400, { type: 'not_authorized', message: 'Invalid Access Token', data: {} });
      const me = await api.get<{ id: string; email: string }>(`/userinfo?token=${encodeURIComponent(idToken)}`);
      const attributes = { sub: me.body.id, email: me.body.email, email_verified: 'true' };
      return { Username: me.body.id, UserAttributes: Object.entries(attributes).map(([Name, Value]) => ({ Name, Value })) };
    }
    const answer = (await cognito.handle(operation, params)) as { AuthenticationResult?: { AccessToken: string; IdToken: string } };
    const tokens = answer.AuthenticationResult;
    if (tokens) idTokens.set(tokens.AccessToken, tokens.IdToken);
    return answer;
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const operation = String(req.headers['x-amz-target'] ?? '').replace('AWSCognitoIdentityProviderService.', '');
      operations.push(operation);
      const reply = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(body));
      handle(operation, JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>).then(
        (body) => reply(200, body),
        (error: unknown) => {
          const code = error instanceof CognitoError ? error.code : 'internal';
          // The words Cognito uses for a flow the app client does not allow (the lazy migration reads them).
          const message =
            code === 'invalid_parameter' && /sign_in_flow/.test((error as Error).message)
              ? 'USER_PASSWORD_AUTH flow not enabled for this client'
              : (error as Error).message;
          reply(400, { __type: COGNITO_ERRORS[code] ?? code, message });
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** The Cognito operations asked for, in order. */
    operations,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
