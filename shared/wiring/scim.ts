/**
 * SCIM 2.0 provisioning per tenant (issue 41, shared/domain/scim): a tenant's tokens, which the API's extension and
 * the setup page make and revoke and which admit every SCIM call, and its directory of users and groups. What belongs
 * here: services a tenant's directory reaches through SCIM.
 */
import { config } from '../config.js';
import { generatePassword } from '../domain/configuration/password-policy.js';
import { ScimDirectory, type Listed } from '../domain/scim/scim-directory.js';
import { Recent } from '../store/recent.js';
import { ClaimedCalls, ScimTokenService } from '../domain/scim/scim-tokens.js';
import { SCIM_PATH } from '../routes.js';
import { configurationReader } from './configuration.js';
import { committer, definitionRepository, membershipRepository, scimRepository, tenantRepository, userRepository } from './repositories.js';
import { userService } from './users.js';

/** The calls of the minute this instance has claimed from each tenant's count. */
const claimedCalls = new ClaimedCalls();

export const scimTokenService = () =>
  new ScimTokenService(
    scimRepository(),
    async (saasId, tenantId) => (await tenantRepository().get(saasId, tenantId)) !== undefined,
    () => config().scimRequestsPerMinute,
    claimedCalls,
  );

/** A tenant's SCIM base URL, as the setup page and the token's answer show it. */
export const scimBaseUrl = (saasId: string, tenantId: string) =>
  `${config().publicBaseUrl}${SCIM_PATH}/${encodeURIComponent(saasId)}/${encodeURIComponent(tenantId)}`;

/** Each tenant's members as a paged read's first page read them, kept by this instance for the pages after it. */
const memberSnapshots = new Recent<Listed[]>();

export const scimDirectory = () => {
  const users = userRepository();
  return new ScimDirectory({
    scim: scimRepository(),
    users,
    memberships: membershipRepository(users),
    definitions: definitionRepository(),
    committer: committer(),
    snapshots: memberSnapshots,
    // A provisioned user signs in through their organisation's IdP: a password nobody is told, and no mail.
    prepareUser: async (saasId, input) =>
      userService().prepareUser(saasId, {
        ...input,
        password: input.password ?? generatePassword(await configurationReader().passwordPolicy(saasId)),
      }),
  });
};
