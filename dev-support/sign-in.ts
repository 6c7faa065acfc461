/**
 * Signing in through the service's HTTP API, for tests and benchmarks: with the fast test client
 * (srpSignIn), and as Cognito for the unmodified amazon-cognito-identity-js (ServiceAsCognito).
 */
import type { SignedClient, SignedResponse } from '../client/signed-fetch.js';
import type { SignInChallenge, SignInResult } from '../shared/schemas/sign-in.js';
import type { CognitoParams, CognitoTransport } from './cognito-client.js';
import { SrpTestClient } from './srp-client.js';

export interface ErrorBody {
  type: string;
  message: string;
  data: Record<string, unknown>;
}

export function startSignIn(api: SignedClient, username: string, srpA: string): Promise<SignedResponse<SignInChallenge>> {
  return api.post<SignInChallenge>('/sign-in', { sign_in_flow: 'USER_SRP_AUTH', sign_in_parameters: { USERNAME: username, SRP_A: srpA } });
}

export function answerChallenge(
  api: SignedClient,
  challenge_name: string,
  challenge_responses: Record<string, string>,
  session?: string,
): Promise<SignedResponse<SignInResult>> {
  return api.post<SignInResult>('/sign-in/challenge', { challenge_name, challenge_responses, ...(session !== undefined ? { session } : {}) });
}

export interface SrpSignInOptions {
  /** When the client signs its answer (TIMESTAMP); the domain clock's now unless a test moved it. */
  at?: Date;
  deviceKey?: string;
}

/** USER_SRP_AUTH then PASSWORD_VERIFIER with the fast client: the answer to the proof, whatever it is. */
export async function srpSignIn(api: SignedClient, username: string, password: string, options: SrpSignInOptions = {}) {
  const client = new SrpTestClient();
  const started = await startSignIn(api, username, client.srpA);
  if (started.status !== 200) throw new Error(`sign-in refused: ${started.status} ${started.text}`);
  const answer = client.passwordAnswer(started.body.challenge_parameters, password, options.at);
  return answerChallenge(
    api,
    'PASSWORD_VERIFIER',
    { ...answer, ...(options.deviceKey ? { DEVICE_KEY: options.deviceKey } : {}) },
    started.body.session,
  );
}

/** A request the adapter made to the service, for tests that look at the exchange. */
export interface Exchange {
  operation: string;
  challenge?: string;
  session?: string;
  responses?: Record<string, string>;
  status: number;
  type?: string;
}

/** What the client receives as Cognito's error: its `code` drives the client's own retries. */
export class CognitoError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message);
  }
}

const withoutNulls = (map: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(map).filter(([, value]) => value !== null && value !== undefined)) as Record<string, string>;

/** A sign-in step's answer as Cognito's InitiateAuth or RespondToAuthChallenge gives it. */
function cognitoAnswer(res: SignInResult) {
  if (!res.credentials) {
    const name = res.challenge_name === 'EMAIL_OTP' ? 'SMS_MFA' : res.challenge_name;
    return { ChallengeName: name, ChallengeParameters: res.challenge_parameters, Session: res.session };
  }
  const device = res.new_device_metadata;
  return {
    ChallengeParameters: res.challenge_parameters,
    AuthenticationResult: {
      IdToken: res.credentials.id_token,
      AccessToken: res.credentials.access_token,
      RefreshToken: res.credentials.refresh_token,
      ...(device ? { NewDeviceMetadata: { DeviceKey: device.device_key, DeviceGroupKey: device.device_group_key } } : {}),
    },
  };
}

/**
 * Cognito's API as the service's signed calls. Two translations, both for this client version (6.x): it
 * retries without the device on a ResourceNotFoundException naming a device, which is the service's
 * `device_not_found`; and it has no EMAIL_OTP branch, so that challenge reaches it as the one code prompt it
 * has (mfaRequired), whose sendMFACode(code, callbacks, 'EMAIL_OTP') then answers EMAIL_OTP.
 */
export class ServiceAsCognito implements CognitoTransport {
  readonly exchanges: Exchange[] = [];

  constructor(private readonly api: SignedClient) {}

  async handle(operation: string, params: CognitoParams): Promise<unknown> {
    switch (operation) {
      case 'InitiateAuth': {
        const body = { sign_in_flow: params.AuthFlow, sign_in_parameters: withoutNulls(params.AuthParameters as CognitoParams) };
        // USER_PASSWORD_AUTH (an extension the SaaS turns on) may answer with credentials at once.
        return cognitoAnswer(await this.send<SignInResult>(operation, '/sign-in', body));
      }
      case 'RespondToAuthChallenge': {
        const responses = withoutNulls(params.ChallengeResponses as CognitoParams);
        const body = { challenge_name: params.ChallengeName, challenge_responses: responses, session: params.Session };
        return cognitoAnswer(await this.send<SignInResult>(operation, '/sign-in/challenge', body));
      }
      case 'ConfirmDevice': {
        const config = params.DeviceSecretVerifierConfig as { PasswordVerifier: string; Salt: string };
        const res = await this.send<{ user_confirmation_necessary: boolean }>(operation, '/device/confirm', {
          access_token: params.AccessToken,
          device_key: params.DeviceKey,
          device_name: params.DeviceName,
          device_secret_verifier_config: { password_verifier: config.PasswordVerifier, salt: config.Salt },
        });
        return { UserConfirmationNecessary: res.user_confirmation_necessary };
      }
      case 'UpdateDeviceStatus':
        await this.send(operation, '/device/status', {
          access_token: params.AccessToken,
          device_key: params.DeviceKey,
          device_remembered_status: params.DeviceRememberedStatus,
        });
        return {};
      default:
        throw new Error(`the adapter does not play ${operation}`);
    }
  }

  private async send<T>(operation: string, path: string, body: Record<string, unknown>): Promise<T> {
    const res = await this.api.post<T | ErrorBody>(path, body);
    const error = res.status >= 400 ? (res.body as ErrorBody) : undefined;
    this.exchanges.push({
      operation,
      ...(typeof body.challenge_name === 'string' ? { challenge: body.challenge_name } : {}),
      ...(typeof body.session === 'string' ? { session: body.session } : {}),
      ...(body.challenge_responses ? { responses: body.challenge_responses as Record<string, string> } : {}),
      status: res.status,
      ...(error ? { type: error.type } : {}),
    });
    if (!error) return res.body as T;
    throw new CognitoError(error.type === 'device_not_found' ? 'ResourceNotFoundException' : error.type, res.status, error);
  }
}
