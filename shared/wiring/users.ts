/**
 * Users: the SaaS's users, the flows a user proves with a token (e-mail update, authenticator app, account
 * links) and each user's security activity. What belongs here: a service over users that is not a sign-in
 * (sign-in.ts) or a tenant membership (tenants.ts).
 */
import { config } from '../config.js';
import { ACTIVITY_KEPT, ActivityLog } from '../domain/users/activity.js';
import { UserFlowService } from '../domain/users/user-flows.js';
import { UserService } from '../domain/users/users.js';
import { poolName } from './accounts.js';
import { countSignIn } from './api-log.js';
import { secretBox } from './clients.js';
import { configurationReader, passwordPolicy } from './configuration.js';
import { cursors, tokenVerifier } from './keys.js';
import { apiLogRetentionSeconds, committer, definitionRepository, settingsRepository, userFlowRepository, userRepository } from './repositories.js';
import { tenantUserService } from './tenants.js';

/** Each user's security activity (shared/domain/users/activity.ts): kept as long as the API log keeps a call. */
export const activityLog = () => new ActivityLog({ retentionSeconds: apiLogRetentionSeconds(), keep: ACTIVITY_KEPT, settled: countSignIn });

export const userService = () => {
  const tenantUsers = tenantUserService();
  return new UserService({
    users: userRepository(),
    committer: committer(),
    definitions: definitionRepository(),
    settings: settingsRepository(),
    box: secretBox(),
    mailLimits: config().mailLimits,
    passwordPolicy,
    poolName,
    userInfo: (saasId, userId) => tenantUsers.userInfo(saasId, userId),
    cursors: cursors(),
    activity: activityLog(),
  });
};

/** E-mail update, authenticator-app registration and account links: the flows a user proves with a token. */
export const userFlowService = () =>
  new UserFlowService({
    users: userRepository(),
    passwordChange: (saasId, userId, password, recorded) => userService().passwordChangeWrite(saasId, userId, password, false, recorded),
    flows: userFlowRepository(),
    committer: committer(),
    tokens: tokenVerifier(),
    box: secretBox(),
    mailLimits: config().mailLimits,
    activity: activityLog(),
    loginScreenUrl: (saasId) => configurationReader().loginScreenUrl(saasId),
  });
