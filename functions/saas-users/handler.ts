/**
 * The saas-users group: SaaS users, their passwords, sign-in names, attributes, MFA preference and counts,
 * and the flows a user proves with an access token (e-mail update, authenticator app, account link).
 */
import { operation } from '../../shared/schemas/operation.js';
import { userSchemas as s } from '../../shared/schemas/users.js';
import { overviewSchemas as overview } from '../../shared/schemas/overview.js';
import { migrationSchemas as migration } from '../../shared/schemas/migration.js';
import { groupHandler } from '../group-handler.js';
import {
  dailySignIns,
  exportJobService as exportJobs,
  exportService as exports,
  importService as imports,
  passkeyService as passkeys,
  screenSessionService as sessions,
  userFlowService as flows,
  userService as users,
} from '../../shared/wiring.js';

export const handler = groupHandler('saas-users', {
  getSaasUsers: operation(s.getSaasUsers, async (_, ctx) => ({ users: await users().list(ctx.saasId) })),
  createSaasUser: operation(s.createSaasUser, ({ body }, ctx) => users().create(ctx.saasId, body)),
  getSaasUsersCount: operation(s.getSaasUsersCount, (_, ctx) => users().count(ctx.saasId)),
  saveSaasUsersCount: operation(s.saveSaasUsersCount, ({ body }, ctx) => users().saveCount(ctx.saasId, body.count)),
  searchSaasUsers: operation(s.searchSaasUsers, ({ query }, ctx) => users().search(ctx.saasId, query)),
  getSaasUser: operation(s.getSaasUser, ({ params }, ctx) => users().get(ctx.saasId, params.user_id)),
  getSaasUserActivity: operation(s.getSaasUserActivity, ({ params, query }, ctx) => users().activity(ctx.saasId, params.user_id, query)),
  getSignInCounts: operation(overview.getSignInCounts, ({ query }, ctx) => dailySignIns().lastDays(ctx.saasId, query.days)),
  deleteSaasUser: operation(s.deleteSaasUser, ({ params }, ctx) => users().delete(ctx.saasId, params.user_id)),
  updateSaasUserPassword: operation(s.updateSaasUserPassword, ({ params, body }, ctx) =>
    users().changePassword(ctx.saasId, params.user_id, body.password, body.temporary),
  ),
  resetSaasUserPassword: operation(s.resetSaasUserPassword, ({ params }, ctx) => users().resetPassword(ctx.saasId, params.user_id)),
  updateSaasUserEmail: operation(s.updateSaasUserEmail, ({ params, body }, ctx) => users().changeEmail(ctx.saasId, params.user_id, body.email)),
  updateSaasUserSignInId: operation(s.updateSaasUserSignInId, ({ params, body }, ctx) =>
    users().changeSignInId(ctx.saasId, params.user_id, body.sign_in_id),
  ),
  updateSaasUserAttributes: operation(s.updateSaasUserAttributes, ({ params, body }, ctx) =>
    users().updateAttributes(ctx.saasId, params.user_id, body.attributes),
  ),
  getUserMfaPreference: operation(s.getUserMfaPreference, ({ params }, ctx) => users().mfaPreference(ctx.saasId, params.user_id)),
  updateUserMfaPreference: operation(s.updateUserMfaPreference, ({ params, body }, ctx) =>
    users().updateMfaPreference(ctx.saasId, params.user_id, body),
  ),
  unlinkProvider: operation(s.unlinkProvider, ({ params }, ctx) => users().unlinkProvider(ctx.saasId, params.user_id, params.provider_name)),
  getUserPasskeys: operation(s.getUserPasskeys, ({ params }, ctx) => passkeys().list(ctx.saasId, params.user_id)),
  getUserSessions: operation(s.getUserSessions, async ({ params }, ctx) => ({ sessions: await sessions().list(ctx.saasId, params.user_id) })),
  deleteUserSession: operation(s.deleteUserSession, ({ params }, ctx) => sessions().end(ctx.saasId, params.user_id, params.session_id)),
  deleteUserPasskey: operation(s.deleteUserPasskey, ({ params }, ctx) => passkeys().remove(ctx.saasId, params.user_id, params.passkey_id)),
  requestEmailUpdate: operation(s.requestEmailUpdate, ({ params, body }, ctx) => flows().requestEmailUpdate(ctx.saasId, params.user_id, body)),
  confirmEmailUpdate: operation(s.confirmEmailUpdate, ({ params, body }, ctx) => flows().confirmEmailUpdate(ctx.saasId, params.user_id, body)),
  createSecretCode: operation(s.createSecretCode, ({ params, body }, ctx) => flows().createSecretCode(ctx.saasId, params.user_id, body.access_token)),
  updateSoftwareToken: operation(s.updateSoftwareToken, ({ params, body }, ctx) => flows().registerSoftwareToken(ctx.saasId, params.user_id, body)),
  requestExternalUserLink: operation(s.requestExternalUserLink, ({ body }, ctx) => flows().requestExternalLink(ctx.saasId, body.access_token)),
  confirmExternalUserLink: operation(s.confirmExternalUserLink, ({ body }, ctx) => flows().confirmExternalLink(ctx.saasId, body)),
  startImport: operation(migration.startImport, ({ body }, ctx) =>
    imports().start(ctx.saasId, body.jsonl, { mail_set_password: body.mail_set_password === true, seal_key: body.seal_key }),
  ),
  getImports: operation(migration.getImports, async (_, ctx) => ({ imports: await imports().list(ctx.saasId) })),
  getImport: operation(migration.getImport, ({ params }, ctx) => imports().get(ctx.saasId, params.job_id)),
  getExport: operation(migration.getExport, (_, ctx) => exports().answer(ctx.saasId)),
  startExport: operation(migration.startExport, ({ body }, ctx) => exportJobs().start(ctx.saasId, { seal_key: body.seal_key })),
  getExportJob: operation(migration.getExportJob, ({ params, query }, ctx) => exportJobs().get(ctx.saasId, params.job_id, query.part)),
});
