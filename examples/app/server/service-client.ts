/**
 * The one way the example backend talks to the identity service: the few calls it needs, typed, signed
 * with an API key that holds only `tenant:read`, `sign-in`, `pricing:read` and `metering:read`
 * (client/signed-fetch.ts does the signing).
 */
import { SignedClient, type Credentials, type SignedResponse } from '../../../client/signed-fetch.js';

export interface ServiceCredentials {
  id_token: string;
  access_token: string;
  refresh_token?: string;
}

/** A Sign In or Respond to Sign In Challenge answer: the next challenge, or credentials. */
export interface SignInStep {
  challenge_name?: string;
  challenge_parameters?: Record<string, string>;
  session?: string;
  credentials?: ServiceCredentials;
}

export interface Tenant {
  id: string;
  name: string;
  attributes: Record<string, unknown>;
}

export interface EnvWithRoles {
  id: number;
  name: string;
  display_name: string;
  roles: { role_name: string; display_name: string }[];
}

/** GET /userinfo: the signed-in user with every tenant, env and role; `plan_id` only where the tenant has a plan. */
export interface UserInfo {
  id: string;
  email: string;
  tenants: { id: string; name: string; envs: EnvWithRoles[]; plan_id?: string }[];
  [field: string]: unknown;
}

/** GET /v1/pricing/plans/{id}, as far as the app shows it. */
export interface PricingPlan {
  id: string;
  name: string;
  display_name: string;
}

/** GET /v1/pricing/metering/tenants/{id}/units/month/{month}. */
export interface MonthCounts {
  counts: { metering_unit_name: string; month: string; count: number }[];
}

export interface OpenIdConfiguration {
  issuer: string;
  jwks_uri: string;
}

/** The service refused (its status and error type), or could not be reached (status 503). */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

export class ServiceClient {
  private readonly signed: SignedClient;
  /** The Pricing API, beside the Auth API on the same origin (`/v1/pricing`). */
  private readonly pricing: SignedClient;

  /** `baseUrl`: the service's API base, e.g. `http://127.0.0.1:8080/v1/auth`. */
  constructor(
    readonly baseUrl: string,
    credentials: Credentials,
  ) {
    this.signed = new SignedClient(baseUrl, credentials);
    this.pricing = new SignedClient(baseUrl.replace(/\/v1\/auth$/, '/v1/pricing'), credentials);
  }

  get saasId(): string {
    return this.signed.credentials.saasId;
  }

  /** The SaaS's hosted login screen on the service, which returns to the SaaS's callback URL with a code. */
  get hostedLoginUrl(): string {
    return `${this.baseUrl}/login/${encodeURIComponent(this.saasId)}/`;
  }

  /** The credentials the hosted screen saved under a temporary code bound to our PKCE challenge (10 seconds, once). */
  tradeCode(code: string, verifier: string): Promise<ServiceCredentials> {
    return this.call<ServiceCredentials>('POST', '/credentials/exchange', { auth_flow: 'tempCodeAuth', code, code_verifier: verifier });
  }

  tenant(tenantId: string): Promise<Tenant> {
    return this.call<Tenant>('GET', `/tenants/${encodeURIComponent(tenantId)}`);
  }

  signIn(username: string, srpA: string): Promise<SignInStep> {
    return this.call<SignInStep>('POST', '/sign-in', {
      sign_in_flow: 'USER_SRP_AUTH',
      sign_in_parameters: { USERNAME: username, SRP_A: srpA },
    });
  }

  respond(challengeName: string, responses: Record<string, string>, session: string): Promise<SignInStep> {
    return this.call<SignInStep>('POST', '/sign-in/challenge', { challenge_name: challengeName, challenge_responses: responses, session });
  }

  refresh(refreshToken: string): Promise<ServiceCredentials> {
    const query = new URLSearchParams({ 'auth-flow': 'refreshTokenAuth', 'refresh-token': refreshToken });
    return this.call<ServiceCredentials>('GET', `/credentials?${query}`);
  }

  userInfo(idToken: string): Promise<UserInfo> {
    return this.call<UserInfo>('GET', `/userinfo?${new URLSearchParams({ token: idToken })}`);
  }

  plan(planId: string): Promise<PricingPlan> {
    return this.call<PricingPlan>('GET', `/plans/${encodeURIComponent(planId)}`, undefined, this.pricing);
  }

  /** The tenant's metered usage of a UTC month (`2026-11`), per metering unit. */
  monthUsage(tenantId: string, month: string): Promise<MonthCounts> {
    return this.call<MonthCounts>('GET', `/metering/tenants/${encodeURIComponent(tenantId)}/units/month/${month}`, undefined, this.pricing);
  }

  /** Public and unsigned: where the token keys are and which issuer signs. */
  async openIdConfiguration(): Promise<OpenIdConfiguration> {
    const response = await reach(() => fetch(`${this.baseUrl}/.well-known/openid-configuration`));
    if (!response.ok) throw new ServiceError(response.status, 'openid_configuration', 'the service has no OpenID configuration');
    return (await response.json()) as OpenIdConfiguration;
  }

  private async call<T>(method: string, path: string, body?: unknown, api = this.signed): Promise<T> {
    const response: SignedResponse<T> = await reach(() => api.request<T>(method, path, body === undefined ? {} : { body }));
    if (response.status >= 200 && response.status < 300) return response.body;
    const error = (response.body ?? {}) as { type?: unknown; message?: unknown };
    throw new ServiceError(
      response.status,
      typeof error.type === 'string' ? error.type : 'unknown',
      typeof error.message === 'string' ? error.message : `the service answered ${response.status}`,
    );
  }
}

async function reach<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (cause) {
    throw new ServiceError(503, 'service_unreachable', `the identity service could not be reached: ${(cause as Error).message}`);
  }
}
