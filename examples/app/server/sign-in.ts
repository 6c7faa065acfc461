/**
 * Signing in, in the browser's steps. The SRP maths runs in the page; these routes only carry its values
 * to the service and back (docs/decisions.md, decision 9), and turn credentials into cookies:
 *   POST /sign-in            {username, srp_a}           → the PASSWORD_VERIFIER challenge (e-mail or sign-in ID)
 *   POST /challenge-id       {user_id, tenant_id, srp_a} → the same, for username + tenant (the spec's six steps)
 *   POST /sign-in/challenge  the PASSWORD_VERIFIER answer → signed in, or the next challenge
 *   POST /verify             a new password or an MFA code → signed in, or the next challenge
 */
import { passwordChallenge, verifierResponses } from '../../../client/srp.js';
import { log } from '../../../shared/log.js';
import { sessionCookies } from './cookies.js';
import type { AppContext, RouteHandler } from './context.js';
import { failure, json, readStringFields, SERVICE_UNAVAILABLE, type AppResponse } from './http.js';
import { ServiceError, type SignInStep } from './service-client.js';

export const INVALID_REQUEST = 'Invalid request format';

/** The spec's messages for POST /challenge-id (docs/decisions.md). */
export const ID_LOGIN_ERRORS = {
  invalidRequest: INVALID_REQUEST,
  tenantNotFound: 'Tenant not found',
  noLoginDomain: 'Tenant does not have login_domain attribute configured',
  challengeFailed: 'SignIn challenge failed',
} as const;

export const signIn: RouteHandler = async (request, context) => {
  const body = readStringFields(request.body, ['username', 'srp_a']);
  if (!body) return failure(400, INVALID_REQUEST);
  return startChallenge(context, body.username, body.srp_a);
};

/** The spec's ID login (docs/decisions.md), step by step. */
export const challengeId: RouteHandler = async (request, context) => {
  // 1. A body that cannot be read.
  const body = readStringFields(request.body, ['user_id', 'tenant_id', 'srp_a']);
  if (!body) return failure(400, ID_LOGIN_ERRORS.invalidRequest);
  // 2. The tenant, read with the backend's tenant:read key.
  let attributes: Record<string, unknown>;
  try {
    ({ attributes } = await context.service.tenant(body.tenant_id));
  } catch (error) {
    if (!(error instanceof ServiceError) || error.status >= 500) log.error('ID login: reading the tenant failed', error);
    return failure(400, ID_LOGIN_ERRORS.tenantNotFound);
  }
  // 3. Its login_domain.
  const loginDomain = attributes.login_domain;
  if (typeof loginDomain !== 'string' || loginDomain === '') return failure(400, ID_LOGIN_ERRORS.noLoginDomain);
  // 4–6. USERNAME = user_id + login_domain (which brings its own @), then Sign In.
  return startChallenge(context, body.user_id + loginDomain, body.srp_a);
};

/**
 * Sign In with USER_SRP_AUTH, answered with what the page needs to compute its proof. USER_ID_FOR_SRP is
 * returned as `username`: it is the name the proof signs and every later answer carries.
 */
async function startChallenge(context: AppContext, username: string, srpA: string): Promise<AppResponse> {
  let step: SignInStep;
  try {
    step = await context.service.signIn(username, srpA);
  } catch (error) {
    if (!(error instanceof ServiceError) || error.status >= 500) log.error('Sign In failed', error);
    return failure(500, ID_LOGIN_ERRORS.challengeFailed);
  }
  const challenge = passwordChallenge(step);
  if (!challenge) {
    log.error('Sign In answered without an SRP challenge', undefined, { challengeName: step.challenge_name });
    return failure(500, ID_LOGIN_ERRORS.challengeFailed);
  }
  return json(200, { success: true, message: 'Challenge started', ...challenge });
}

export const answerPasswordVerifier: RouteHandler = async (request, context) => {
  const body = readStringFields(request.body, ['session', 'username', 'password_claim_secret_block', 'password_claim_signature', 'timestamp']);
  if (!body) return failure(400, INVALID_REQUEST);
  return answer(context, 'PASSWORD_VERIFIER', verifierResponses(body), body.session, body.username);
};

/** The challenges after the password, each with the page's field and the service's answer name. */
const FOLLOW_UPS = {
  NEW_PASSWORD_REQUIRED: { field: 'new_password', response: 'NEW_PASSWORD', prompt: 'Choose a new password' },
  SOFTWARE_TOKEN_MFA: { field: 'code', response: 'SOFTWARE_TOKEN_MFA_CODE', prompt: 'Enter the code from your authenticator app' },
  EMAIL_OTP: { field: 'code', response: 'EMAIL_OTP_CODE', prompt: 'Enter the code we sent to your e-mail address' },
} as const;
type FollowUp = keyof typeof FOLLOW_UPS;
const isFollowUp = (name: string | undefined): name is FollowUp => name !== undefined && Object.hasOwn(FOLLOW_UPS, name);

export const answerFollowUp: RouteHandler = async (request, context) => {
  const body = readStringFields(request.body, ['challenge_name', 'session', 'username'], ['code', 'new_password']);
  if (!body || !isFollowUp(body.challenge_name)) return failure(400, INVALID_REQUEST);
  const { field, response } = FOLLOW_UPS[body.challenge_name];
  const value = body[field];
  if (!value) return failure(400, INVALID_REQUEST);
  return answer(context, body.challenge_name, { USERNAME: body.username, [response]: value }, body.session, body.username);
};

/** One answer to the service; credentials become cookies and never appear in the body. */
async function answer(
  context: AppContext,
  challengeName: string,
  responses: Record<string, string>,
  session: string,
  username: string,
): Promise<AppResponse> {
  let step: SignInStep;
  try {
    step = await context.service.respond(challengeName, responses, session);
  } catch (error) {
    return refused(challengeName, error);
  }
  if (step.credentials) {
    return json(200, { success: true, message: 'Signed in', signed_in: true }, sessionCookies(step.credentials, context.cookies));
  }
  if (isFollowUp(step.challenge_name)) {
    return json(200, {
      success: true,
      message: FOLLOW_UPS[step.challenge_name].prompt,
      signed_in: false,
      challenge_name: step.challenge_name,
      session: step.session ?? '',
      username: step.challenge_parameters?.USER_ID_FOR_SRP ?? username,
    });
  }
  log.error('the service asked for a challenge the example application does not offer', undefined, { challengeName: step.challenge_name });
  return failure(502, `This application cannot answer the challenge ${String(step.challenge_name)}`);
}

/** Refusals a person can act on, in their words rather than the service's field-named ones. */
const PLAIN_REFUSALS: Readonly<Record<string, (error: ServiceError) => string>> = {
  temporary_password_expired: () => 'Your temporary password has expired. Ask for a new one.',
  // "password: must contain a symbol (...)" → "The new password must contain a symbol (...)"
  password_policy_violation: (error) => `The new password ${error.message.replace(/^[^:]*:\s*/, '')}`,
};

/** What the person at the page reads when the service refuses an answer. */
function refused(challengeName: string, error: unknown): AppResponse {
  if (!(error instanceof ServiceError) || error.status >= 500) {
    log.error('answering a sign-in challenge failed', error, { challengeName });
    return failure(502, SERVICE_UNAVAILABLE);
  }
  const plain = PLAIN_REFUSALS[error.type];
  if (plain) return failure(error.status, plain(error));
  if (error.status === 401 && challengeName === 'PASSWORD_VERIFIER') return failure(401, 'Incorrect username or password.');
  if (challengeName !== 'PASSWORD_VERIFIER' && challengeName !== 'NEW_PASSWORD_REQUIRED' && (error.status === 400 || error.status === 401)) {
    return failure(error.status, 'The code is wrong or has expired.');
  }
  return failure(error.status, error.message);
}
