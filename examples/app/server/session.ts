/**
 * The signed-in session, held in HttpOnly cookies: who is signed in, refreshing the tokens, signing out,
 * and the CSRF token the page sends with each of these.
 */
import { log } from '../../../shared/log.js';
import { clearedSessionCookies, COOKIE, sessionCookies } from './cookies.js';
import type { RouteHandler } from './context.js';
import { csrfToken } from './csrf.js';
import { failure, json, SERVICE_UNAVAILABLE } from './http.js';
import { ServiceError, type ServiceCredentials, type UserInfo } from './service-client.js';

const NOT_SIGNED_IN = 'Not signed in';

export const issueCsrfToken: RouteHandler = async (request, context) => {
  const { token, cookies } = csrfToken(request, context.cookies);
  return json(200, { success: true, message: 'CSRF token', csrf_token: token }, cookies);
};

/** A tenant's plan and this month's metered usage, as the page shows them; what the service refuses is left out. */
async function planAndUsage(context: Parameters<RouteHandler>[1], tenant: UserInfo['tenants'][number]) {
  const month = new Date().toISOString().slice(0, 7);
  const [plan, usage] = await Promise.all([
    tenant.plan_id ? context.service.plan(tenant.plan_id).catch(() => undefined) : undefined,
    context.service.monthUsage(tenant.id, month).catch(() => undefined),
  ]);
  return {
    ...(plan ? { plan: { id: plan.id, display_name: plan.display_name || plan.name } } : {}),
    ...(usage ? { usage: usage.counts.map(({ metering_unit_name, count }) => ({ metering_unit_name, count })) } : {}),
  };
}

/** The user of the ID token cookie, with tenants, envs and roles, and each tenant's plan and this month's usage. */
export const me: RouteHandler = async (request, context) => {
  const idToken = request.cookies[COOKIE.idToken];
  if (!idToken || !(await context.idTokens.verify(idToken))) return failure(401, NOT_SIGNED_IN);
  let user: UserInfo;
  try {
    user = await context.service.userInfo(idToken);
  } catch (error) {
    if (error instanceof ServiceError && error.status === 401) return failure(401, NOT_SIGNED_IN);
    log.error('reading the signed-in user failed', error);
    return failure(502, SERVICE_UNAVAILABLE);
  }
  const tenants = await Promise.all(user.tenants.map(async (tenant) => ({ ...tenant, ...(await planAndUsage(context, tenant)) })));
  return json(200, { success: true, message: 'Signed in', user: { ...user, tenants } });
};

export const refresh: RouteHandler = async (request, context) => {
  const refreshToken = request.cookies[COOKIE.refreshToken];
  if (!refreshToken) return failure(401, NOT_SIGNED_IN);
  let credentials: ServiceCredentials;
  try {
    credentials = await context.service.refresh(refreshToken);
  } catch (error) {
    if (error instanceof ServiceError && error.status < 500) {
      // Revoked, expired or unknown: the session is over, and its cookies go with it.
      return failure(401, 'Your session has ended. Sign in again.', clearedSessionCookies(context.cookies));
    }
    log.error('refreshing the tokens failed', error);
    return failure(502, SERVICE_UNAVAILABLE);
  }
  return json(200, { success: true, message: 'Session refreshed' }, sessionCookies(credentials, context.cookies));
};

export const signOut: RouteHandler = async (_request, context) =>
  json(200, { success: true, message: 'Signed out' }, clearedSessionCookies(context.cookies));
