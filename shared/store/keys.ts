/**
 * Every key shape of the single table lives here and nowhere else (docs/decisions.md, decision 5). Generic key
 * attributes, an entity tag and a version on every item, and every partition key starting with the SaaS
 * id, so no query can wander into another SaaS's items. The one exception is DEPLOYMENT_KEYS below: the
 * deployment's own keys, which no SaaS owns.
 */
import type { Login } from '../domain/users/users.js';

export const TTL_ATTRIBUTE = 'expiresAt';

/** The table's one index, over `gsi1pk` and `gsi1sk` (the `gsi1` key shapes below). */
export const INDEX_NAME = 'gsi1';

export const ENTITY = {
  saas: 'SaaS',
  apiKey: 'ApiKey',
  attributeDefinition: 'AttributeDefinition',
  role: 'Role',
  env: 'Env',
  tenant: 'Tenant',
  setting: 'Setting',
  outbox: 'OutboxMail',
  mailCounter: 'MailCounter',
  mailSuppression: 'MailSuppression',
  user: 'User',
  userDirectoryItem: 'UserDirectoryEntry',
  loginOwner: 'LoginOwner',
  membership: 'Membership',
  userMembership: 'UserMembership',
  tenantUserCount: 'TenantUserCount',
  signingKey: 'SigningKey',
  currentSigningKey: 'CurrentSigningKey',
  deploymentSecret: 'DeploymentSecret',
  verificationCode: 'VerificationCode',
  invitation: 'Invitation',
  invitationPointer: 'InvitationPointer',
  signInChallenge: 'SignInChallenge',
  usedTotpStep: 'UsedTotpStep',
  device: 'Device',
  tempCode: 'TempCode',
  refreshGrant: 'RefreshGrant',
  marketplaceCustomer: 'MarketplaceCustomer',
  tenantMarketplaceLink: 'TenantMarketplaceLink',
  externalIdentity: 'ExternalIdentity',
  usedSamlAssertion: 'UsedSamlAssertion',
  userExternalIdentity: 'UserExternalIdentity',
  domainClaim: 'DomainClaim',
  tenantDomain: 'TenantDomain',
  verifiedDomain: 'VerifiedDomain',
  decoy: 'Decoy',
  pendingSignUp: 'PendingSignUp',
  passkey: 'Passkey',
  passkeyOwner: 'PasskeyOwner',
  passkeyChallenge: 'PasskeyChallenge',
  pricingUnit: 'PricingUnit',
  meteringUnit: 'MeteringUnit',
  pricingMenu: 'PricingMenu',
  pricingPlan: 'PricingPlan',
  taxRate: 'TaxRate',
  meteringCount: 'MeteringCount',
  apiLog: 'ApiLog',
  signInCounts: 'SignInCounts',
  consoleThrottle: 'ConsoleThrottle',
  importJob: 'ImportJob',
  importPart: 'ImportPart',
  exportJob: 'ExportJob',
  exportPart: 'ExportPart',
  consoleSessionRevoked: 'ConsoleSessionRevoked',
  apiEvent: 'ApiEvent',
  eventSequence: 'EventSequence',
  eventBridgeSettings: 'EventBridgeSettings',
  webhook: 'Webhook',
  activeUsers: 'ActiveUsers',
  activeUserMark: 'ActiveUserMark',
  activeUsersCount: 'ActiveUsersCount',
  behaviorDay: 'BehaviorDay',
  feedback: 'Feedback',
  feedbackComment: 'FeedbackComment',
  feedbackVote: 'FeedbackVote',
  scimTokens: 'ScimTokens',
  setupLink: 'SetupLink',
  scimGroup: 'ScimGroup',
  scimCalls: 'ScimCalls',
  screenSession: 'ScreenSession',
} as const;
export type EntityName = (typeof ENTITY)[keyof typeof ENTITY];

export interface ItemKey {
  pk: string;
  sk: string;
}

const saasPartition = (saasId: string) => `SAAS#${saasId}`;
const definitionsPartition = (saasId: string) => `SAAS#${saasId}#DEF`;
const tenantPartition = (saasId: string, tenantId: string) => `SAAS#${saasId}#TENANT#${tenantId}`;
const userPartition = (saasId: string, userId: string) => `SAAS#${saasId}#USER#${userId}`;
/** The sort key of a user's directory entry item, in the user's partition. */
const DIRECTORY_ENTRY_SK = 'DIRECTORY';

/** `E#alice@example.com` or `S#alice`: e-mail users sort before sign-in-ID users, each by name. */
export const loginKey = (login: Login) => `${login.kind === 'email' ? 'E' : 'S'}#${login.value}`;

export function loginFromKey(key: string): Login {
  return { kind: key.startsWith('E#') ? 'email' : 'sign_in_id', value: key.slice(2) };
}

/** Env ids sort numerically when zero-padded; 10 digits hold every 31-bit id. */
const padEnvId = (id: number) => String(id).padStart(10, '0');
/** Unix seconds, zero-padded so they sort as numbers until the year 33658. */
const padSeconds = (seconds: number) => String(seconds).padStart(12, '0');

/**
 * The one partition that does not start with a SaaS id: gsi1's registry of SaaS accounts, which holds SaaS
 * records only, so the scheduled worker and the admin command can find every SaaS without a scan.
 */
export const SAAS_REGISTRY = 'REGISTRY#SAAS';

/**
 * The one table partition that belongs to no SaaS: the deployment's own keys. Token signing keys (one
 * JWKS for the whole deployment), the pointer to the current one, and deployment secrets (the SRP sealing
 * secret). A handful of items, read in one query and cached per cold start.
 */
export const DEPLOYMENT_KEYS = 'DEPLOYMENT#KEYS';

/**
 * The other partitions no SaaS owns: one per custom domain a SaaS serves its login screen on, naming that SaaS,
 * so that a domain is held by one SaaS at a time (the claim is written in the transaction that saves the SaaS's
 * basic configuration). Only ever read by key.
 */
export const domainClaimKey = (domain: string): ItemKey => ({ pk: `DOMAIN#${domain.toLowerCase()}`, sk: 'CLAIM' });

/**
 * A user's security activity (shared/domain/users/activity.ts) is kept on the profile item, one attribute per
 * event named by the event's id, so the write a sign-in already makes records it, and Delete User takes it along.
 */
const ACTIVITY_PREFIX = 'activity#';
export const activityAttribute = (eventId: string) => `${ACTIVITY_PREFIX}${eventId}`;
/** The event id an attribute of the profile holds, or undefined when it holds none. */
export const activityEventId = (attribute: string) => (attribute.startsWith(ACTIVITY_PREFIX) ? attribute.slice(ACTIVITY_PREFIX.length) : undefined);

/**
 * A count of failed sign-ins to the operator console (shared/domain/console/sign-in-throttle.ts): per source
 * address or per API key, in one fixed window named in `counter`. Deployment-wide like the domain claims:
 * what is counted (a stranger's address, a key that may not exist) belongs to no SaaS yet.
 */
export const consoleThrottleKey = (counter: string): ItemKey => ({ pk: `CONSOLE#THROTTLE#${counter}`, sk: 'COUNT' });
/** Those partitions as an IAM pattern: the console function may update these and write nothing else (ENTRY_FUNCTIONS' `updatesOnly`, shared/routes.ts). */
export const CONSOLE_THROTTLE_PARTITIONS = 'CONSOLE#THROTTLE#*';
/**
 * A console session signed out before its end (shared/domain/console/session-revocations.ts), by the session's
 * random id: deployment-wide like the counts, kept by TTL until the session's absolute end.
 */
export const consoleSessionKey = (sessionId: string): ItemKey => ({ pk: `CONSOLE#SESSION#${sessionId}`, sk: 'REVOKED' });
/** Those partitions as an IAM pattern: the console function's other `updatesOnly` (shared/routes.ts). */
export const CONSOLE_SESSION_PARTITIONS = 'CONSOLE#SESSION#*';

/**
 * Shards of the user directory (gsi1 `SAAS#<id>#USERS#<k>`). Every write of a profile writes its index entry,
 * and one index key takes 1 000 write units/s: a sign-up writes about 4 units there (a 1.25 KB profile, inside
 * a transaction), so a surge of 5 000 sign-ups/s needs 20 000 units/s, 625 on each of 32 shards
 * (docs/deployment-shape.md, "Hot partitions"). Reads query every shard a SaaS has, so a SaaS starts on 1 and
 * grows to this many only when its writes near one key's limit (directory-shards.ts).
 */
export const USER_DIRECTORY_SHARDS = 32;

/** User ids are random UUIDs: their first two hex digits spread them evenly (an id of any other shape goes to shard 0). */
function userDirectoryShard(saasId: string, userId: string, shards: number): string {
  const lead = /^[0-9a-f]{2}/i.test(userId) ? Number.parseInt(userId.slice(0, 2), 16) : 0;
  return userDirectoryShardKey(saasId, lead % shards);
}

const userDirectoryShardKey = (saasId: string, k: number) => `SAAS#${saasId}#USERS#${k}`;

const userDirectoryPosition = (login: Login, userId: string) => `${loginKey(login)} ${userId}`;

export const keys = {
  saas: (saasId: string): ItemKey => ({ pk: saasPartition(saasId), sk: 'SAAS' }),
  saasRegistryEntry: (saasId: string) => ({ gsi1pk: SAAS_REGISTRY, gsi1sk: `SAAS#${saasId}` }),
  apiKey: (saasId: string, apiKey: string): ItemKey => ({ pk: saasPartition(saasId), sk: `APIKEY#${apiKey}` }),
  apiKeys: (saasId: string) => ({ pk: saasPartition(saasId), skPrefix: 'APIKEY#' }),
  /** One item per settings document of a SaaS (infrastructure, and the configuration documents). */
  setting: (saasId: string, name: string): ItemKey => ({ pk: saasPartition(saasId), sk: `SETTING#${name}` }),

  /** User and SaaS-user attributes share one namespace: a name means one thing on a user. */
  userAttribute: (saasId: string, name: string): ItemKey => ({ pk: definitionsPartition(saasId), sk: `UATTR#${name}` }),
  userAttributes: (saasId: string) => ({ pk: definitionsPartition(saasId), skPrefix: 'UATTR#' }),
  tenantAttribute: (saasId: string, name: string): ItemKey => ({ pk: definitionsPartition(saasId), sk: `TATTR#${name}` }),
  tenantAttributes: (saasId: string) => ({ pk: definitionsPartition(saasId), skPrefix: 'TATTR#' }),
  role: (saasId: string, name: string): ItemKey => ({ pk: definitionsPartition(saasId), sk: `ROLE#${name}` }),
  roles: (saasId: string) => ({ pk: definitionsPartition(saasId), skPrefix: 'ROLE#' }),
  env: (saasId: string, id: number): ItemKey => ({ pk: definitionsPartition(saasId), sk: `ENV#${padEnvId(id)}` }),
  envs: (saasId: string) => ({ pk: definitionsPartition(saasId), skPrefix: 'ENV#' }),

  /** Tenants of a SaaS share one partition, so listing them is one strongly consistent query. */
  tenant: (saasId: string, tenantId: string): ItemKey => ({ pk: `SAAS#${saasId}#TENANTS`, sk: `TENANT#${tenantId}` }),
  tenants: (saasId: string) => ({ pk: `SAAS#${saasId}#TENANTS`, skPrefix: 'TENANT#' }),
  /**
   * Everything that belongs to one tenant (memberships, role assignments, invitations) lives in the
   * tenant's own partition, so deleting a tenant is one query and batch deletes. An item there may name a
   * `mirror` {pk, sk} elsewhere (a user's view of the membership) that is deleted with it.
   */
  tenantContents: (saasId: string, tenantId: string) => ({ pk: tenantPartition(saasId, tenantId), skPrefix: '' }),
  /** A user's membership of a tenant, in the tenant's partition; its `mirror` is the user's side. */
  membership: (saasId: string, tenantId: string, userId: string): ItemKey => ({ pk: tenantPartition(saasId, tenantId), sk: `MEMBER#${userId}` }),
  tenantMemberships: (saasId: string, tenantId: string) => ({ pk: tenantPartition(saasId, tenantId), skPrefix: 'MEMBER#' }),
  /** gsi1: every membership of a SaaS, by user id then tenant id (Get Users, and searches without a narrower key). */
  membershipDirectory: (saasId: string) => `SAAS#${saasId}#MEMBERS`,
  membershipDirectoryEntry: (saasId: string, userId: string, tenantId: string) => ({
    gsi1pk: `SAAS#${saasId}#MEMBERS`,
    gsi1sk: `${userId} ${tenantId}`,
  }),
  /** A tenant's SCIM bearer tokens (hashes only), in the tenant's partition: they go with the tenant (shared/domain/scim). */
  scimTokens: (saasId: string, tenantId: string): ItemKey => ({ pk: tenantPartition(saasId, tenantId), sk: 'SCIM#TOKENS' }),
  /** A SCIM group of the tenant, named by the role it maps to; in the tenant's partition. */
  scimGroup: (saasId: string, tenantId: string, roleName: string): ItemKey => ({
    pk: tenantPartition(saasId, tenantId),
    sk: `SCIMGROUP#${roleName}`,
  }),
  scimGroups: (saasId: string, tenantId: string) => ({ pk: tenantPartition(saasId, tenantId), skPrefix: 'SCIMGROUP#' }),
  /** A tenant's SCIM calls in one window (the rate limit), gone by TTL. */
  scimCalls: (saasId: string, tenantId: string, window: number): ItemKey => ({ pk: `SAAS#${saasId}#SCIMCALLS#${tenantId}`, sk: `W#${window}` }),
  /** An invitation to the tenant, in the tenant's partition (it goes with the tenant); its `mirror` is its pointer. */
  invitation: (saasId: string, tenantId: string, invitationId: string): ItemKey => ({
    pk: tenantPartition(saasId, tenantId),
    sk: `INVITATION#${invitationId}`,
  }),
  /** A tenant's one-time setup link (shared/domain/tenants/setup-links.ts), in the tenant's partition: it goes with the tenant. */
  setupLink: (saasId: string, tenantId: string, linkId: string): ItemKey => ({ pk: tenantPartition(saasId, tenantId), sk: `SETUPLINK#${linkId}` }),
  setupLinks: (saasId: string, tenantId: string) => ({ pk: tenantPartition(saasId, tenantId), skPrefix: 'SETUPLINK#' }),
  /** A tenant's claim of a domain (issue 41), in the tenant's partition: it goes with the tenant. */
  tenantDomain: (saasId: string, tenantId: string, domain: string): ItemKey => ({ pk: tenantPartition(saasId, tenantId), sk: `DOMAIN#${domain}` }),
  tenantDomains: (saasId: string, tenantId: string) => ({ pk: tenantPartition(saasId, tenantId), skPrefix: 'DOMAIN#' }),
  /** The tenant a verified domain belongs to: one item per SaaS and domain, read by key at each address-first sign-in. */
  verifiedDomain: (saasId: string, domain: string): ItemKey => ({ pk: `SAAS#${saasId}#DOMAINS`, sk: `DOMAIN#${domain}` }),
  tenantInvitations: (saasId: string, tenantId: string) => ({ pk: tenantPartition(saasId, tenantId), skPrefix: 'INVITATION#' }),
  /**
   * Validate Invitation names only the invitation: this item names its tenant (strongly consistent, unlike
   * an index). Deleting the invitation leaves it as a tombstone until the invitation would have expired, so
   * a deleted invitation is told from one that never was.
   */
  invitationPointer: (saasId: string, invitationId: string): ItemKey => ({ pk: `SAAS#${saasId}#INVITATION#${invitationId}`, sk: 'POINTER' }),
  /** The user count a SaaS reported for a tenant; in the tenant's partition, so it goes with the tenant. */
  tenantUserCount: (saasId: string, tenantId: string): ItemKey => ({ pk: tenantPartition(saasId, tenantId), sk: 'USER_COUNT' }),
  /** gsi1: every tenant's reported user count, read in one query. */
  tenantUserCountEntry: (saasId: string, tenantId: string) => ({ gsi1pk: `SAAS#${saasId}#TENANT_USER_COUNTS`, gsi1sk: tenantId }),
  tenantUserCounts: (saasId: string) => ({ gsi1pk: `SAAS#${saasId}#TENANT_USER_COUNTS` }),

  /**
   * Everything of one user lives in the user's own partition: the profile, the user's side of each
   * membership, and what sign-in keeps (devices, refresh tokens, codes). Delete User empties the partition
   * and the items its items name as `mirror`.
   */
  userProfile: (saasId: string, userId: string): ItemKey => ({ pk: userPartition(saasId, userId), sk: 'PROFILE' }),
  /**
   * The user's directory entry, where a SaaS's directory is made of entries (directory-shards.ts): what the lists
   * answer of the user, in gsi1 under `userDirectoryEntry`, so the profile is in no index and a sign-in's write
   * of it writes none (docs/decisions.md, decision 18).
   */
  userDirectoryItem: (saasId: string, userId: string): ItemKey => ({ pk: userPartition(saasId, userId), sk: DIRECTORY_ENTRY_SK }),
  /** Of the two kinds of item a directory key can hold while a SaaS moves onto entries: the user's profile, else their entry. */
  isUserProfile: (item: { sk?: unknown }): boolean => item.sk === 'PROFILE',
  /** Whom an external provider's account (its subject) is linked to: one user per provider account in a SaaS. */
  externalIdentity: (saasId: string, provider: string, subject: string): ItemKey => ({
    pk: `SAAS#${saasId}#IDENTITY#${provider}#${subject}`,
    sk: 'OWNER',
  }),
  /** A SAML assertion that signed someone in: the same one is refused after (kept until it expires). */
  usedSamlAssertion: (saasId: string, issuer: string, assertionId: string): ItemKey => ({
    pk: `SAAS#${saasId}#SAML#${issuer}#${assertionId}`,
    sk: 'USED',
  }),
  /** The screen's ticket for that assertion, once it signed in (or offered a link): a replayed ticket is refused. */
  usedSamlTicket: (saasId: string, issuer: string, assertionId: string): ItemKey => ({
    pk: `SAAS#${saasId}#SAML#${issuer}#${assertionId}`,
    sk: 'TICKET',
  }),
  /** The user's side of that link, naming it as `mirror`: Delete User frees the provider's account. */
  userExternalIdentity: (saasId: string, userId: string, provider: string): ItemKey => ({
    pk: userPartition(saasId, userId),
    sk: `IDENTITY#${provider}`,
  }),
  userContents: (saasId: string, userId: string) => ({ pk: userPartition(saasId, userId), skPrefix: '' }),
  userMembership: (saasId: string, userId: string, tenantId: string): ItemKey => ({
    pk: userPartition(saasId, userId),
    sk: `TENANT#${tenantId}`,
  }),
  userMemberships: (saasId: string, userId: string) => ({ pk: userPartition(saasId, userId), skPrefix: 'TENANT#' }),
  /**
   * gsi1: the SaaS's users by sign-in name (`E#<e-mail> <id>`, `S#<sign-in id> <id>`, lower-case), so a name
   * prefix is a key condition. Names hold no spaces, so the space ends the name and the id makes the entry
   * unique and names its item.
   */
  userDirectoryEntry: (saasId: string, login: Login, userId: string, shards: number) => ({
    gsi1pk: userDirectoryShard(saasId, userId, shards),
    gsi1sk: userDirectoryPosition(login, userId),
  }),
  /** The entry's sort key: its place in name order. */
  userDirectoryPosition: (login: Login, userId: string) => userDirectoryPosition(login, userId),
  /**
   * The directory shard a user's entry is written to when the SaaS writes over `shards` shards: `SAAS#<id>#USERS#<k>`,
   * k from the user id. With 1 that is shard 0, and an entry's shard under any count is below every larger one.
   */
  userDirectoryShard: (saasId: string, userId: string, shards: number) => userDirectoryShard(saasId, userId, shards),
  /** The key entries were written under before the directory had shards (SaaS with no recorded count only). */
  userDirectoryUnsharded: (saasId: string) => `SAAS#${saasId}#USERS`,
  /** Shard k of the directory. */
  userDirectoryShardKey: (saasId: string, k: number) => userDirectoryShardKey(saasId, k),
  /** One second's directory write rate, summed over the instances that measured one (directory-shards.ts); gone after a day. */
  userDirectoryRate: (saasId: string, second: number): ItemKey => ({ pk: `SAAS#${saasId}#DIRECTORY_RATE`, sk: String(second) }),
  /**
   * A code mailed to confirm something the user asked for (`EMAIL_UPDATE`, `EXTERNAL_LINK`), hashed, with
   * what it confirms; in the user's partition, one per purpose and slot (a new request replaces the old code
   * of its slot; `EXTERNAL_LINK` offers have one slot per provider, so one provider's offer never replaces
   * another's).
   */
  verificationCode: (saasId: string, userId: string, purpose: string, slot?: string): ItemKey => ({
    pk: userPartition(saasId, userId),
    sk: slot === undefined ? `VERIFY#${purpose}` : `VERIFY#${purpose}#${slot}`,
  }),
  /**
   * What sign-in keeps of a user beside the profile (which holds the failed-proof counter and the last
   * answered SRP session), in the user's partition so Delete User takes it along: the open follow-up
   * challenges (NEW_PASSWORD_REQUIRED, MFA, DEVICE_SRP_AUTH; by the SHA-256 of their session's secret), the
   * last TOTP step used, and remembered devices. Refresh tokens are sealed, not stored; their grants are (refreshGrant).
   */
  signInChallenge: (saasId: string, userId: string, sessionHash: string): ItemKey => ({
    pk: userPartition(saasId, userId),
    sk: `SIGNIN#CHALLENGE#${sessionHash}`,
  }),
  usedTotpStep: (saasId: string, userId: string): ItemKey => ({ pk: userPartition(saasId, userId), sk: 'SIGNIN#TOTP' }),
  device: (saasId: string, userId: string, deviceKey: string): ItemKey => ({ pk: userPartition(saasId, userId), sk: `DEVICE#${deviceKey}` }),
  /** A passkey of the user (its public key, counter, backup flags), naming its owner item as `mirror`. */
  passkey: (saasId: string, userId: string, passkeyId: string): ItemKey => ({ pk: userPartition(saasId, userId), sk: `PASSKEY#${passkeyId}` }),
  passkeys: (saasId: string, userId: string) => ({ pk: userPartition(saasId, userId), skPrefix: 'PASSKEY#' }),
  /**
   * Whose a credential is, by its passkey id (the SHA-256 of its credential id): a passkey sign-in names only
   * the credential. One credential belongs to one user of one SaaS: the rule is this item's existence.
   */
  passkeyOwner: (saasId: string, passkeyId: string): ItemKey => ({ pk: `SAAS#${saasId}#PASSKEY#${passkeyId}`, sk: 'OWNER' }),
  /** A WebAuthn challenge handed to a page: taken (deleted) by the answer that uses it, so it serves once. */
  passkeyChallenge: (saasId: string, challengeId: string): ItemKey => ({ pk: `SAAS#${saasId}#PASSKEYCHALLENGE#${challengeId}`, sk: 'CHALLENGE' }),
  /**
   * A refresh-token grant (shared/domain/sign-in/grants.ts): revoked, or the generation a rotating one is at.
   * In the user's partition, read beside the profile in one request, and gone with Delete User.
   */
  refreshGrant: (saasId: string, userId: string, grantId: string): ItemKey => ({ pk: userPartition(saasId, userId), sk: `GRANT#${grantId}` }),
  /**
   * A session of the hosted screen (shared/domain/sign-in/screen-sessions.ts): in the user's partition, read
   * beside the profile in one request, listed with one query, and gone with Delete User.
   */
  screenSession: (saasId: string, userId: string, sessionId: string): ItemKey => ({ pk: userPartition(saasId, userId), sk: `SESSION#${sessionId}` }),
  screenSessions: (saasId: string, userId: string) => ({ pk: userPartition(saasId, userId), skPrefix: 'SESSION#' }),
  /**
   * A temporary code of Save Authentication/Authorization Information: its own partition per code (by the
   * SHA-256 of the code, which is all GET /credentials?code= knows), so codes never crowd one partition.
   * An OpenID Connect authorization code is spent in place (`spent_grant`, grant-repository.ts) and stays
   * until its TTL, so a replay finds what it issued.
   */
  tempCode: (saasId: string, codeHash: string): ItemKey => ({ pk: `SAAS#${saasId}#TEMPCODE#${codeHash}`, sk: 'CODE' }),
  /** One item per sign-in name of a SaaS, naming the user who holds it: the uniqueness rule is its existence. */
  loginOwner: (saasId: string, login: Login): ItemKey => ({ pk: `SAAS#${saasId}#LOGIN#${loginKey(login)}`, sk: 'OWNER' }),
  /**
   * A marketplace customer's claim on the one tenant it is linked to: the rule "one tenant per customer" is
   * its existence. The tenant's partition holds a link item naming it as `mirror`, so Delete Tenant frees the
   * customer.
   */
  marketplaceCustomer: (saasId: string, customerIdentifier: string): ItemKey => ({
    pk: `SAAS#${saasId}#MARKETPLACE#${customerIdentifier}`,
    sk: 'TENANT',
  }),
  tenantMarketplaceLink: (saasId: string, tenantId: string): ItemKey => ({ pk: tenantPartition(saasId, tenantId), sk: 'MARKETPLACE' }),
  /** gsi1: pending plan reservations of a SaaS by due time. */
  planReservation: (saasId: string, tenantId: string, due: number) => ({
    gsi1pk: `SAAS#${saasId}#PLANRES`,
    gsi1sk: `${padSeconds(due)}#${tenantId}`,
  }),
  dueReservations: (saasId: string, now: number) => ({ gsi1pk: `SAAS#${saasId}#PLANRES`, gsi1skUpTo: `${padSeconds(now)}#~` }),

  /** Token signing keys: `SIGNING#KEY#<kid>`, and `SIGNING#CURRENT` naming the one that signs. */
  signingKey: (kid: string): ItemKey => ({ pk: DEPLOYMENT_KEYS, sk: `SIGNING#KEY#${kid}` }),
  currentSigningKey: (): ItemKey => ({ pk: DEPLOYMENT_KEYS, sk: 'SIGNING#CURRENT' }),
  signing: () => ({ pk: DEPLOYMENT_KEYS, skPrefix: 'SIGNING#' }),
  deploymentSecret: (name: string): ItemKey => ({ pk: DEPLOYMENT_KEYS, sk: `SECRET#${name}` }),

  /** An import job (domain/migration/imports.ts), beside the SaaS's other jobs: `SAAS#<id>#IMPORT`, `JOB#<job id>`. */
  importJob: (saasId: string, jobId: string): ItemKey => ({ pk: `SAAS#${saasId}#IMPORT`, sk: `JOB#${jobId}` }),
  importJobs: (saasId: string) => ({ pk: `SAAS#${saasId}#IMPORT`, skPrefix: 'JOB#' }),
  /** A part of an import job's file, in file order (the index zero-padded). */
  importPart: (saasId: string, jobId: string, index: number): ItemKey => ({
    pk: `SAAS#${saasId}#IMPORT#${jobId}`,
    sk: `PART#${String(index).padStart(6, '0')}`,
  }),
  importParts: (saasId: string, jobId: string) => ({ pk: `SAAS#${saasId}#IMPORT#${jobId}`, skPrefix: 'PART#' }),
  /** An export job (domain/migration/export-jobs.ts): `SAAS#<id>#EXPORT`, `JOB#<job id>`. */
  exportJob: (saasId: string, jobId: string): ItemKey => ({ pk: `SAAS#${saasId}#EXPORT`, sk: `JOB#${jobId}` }),
  exportJobs: (saasId: string) => ({ pk: `SAAS#${saasId}#EXPORT`, skPrefix: 'JOB#' }),
  /** A part of an export job's file, in file order (the index zero-padded). */
  exportPart: (saasId: string, jobId: string, index: number): ItemKey => ({
    pk: `SAAS#${saasId}#EXPORT#${jobId}`,
    sk: `PART#${String(index).padStart(6, '0')}`,
  }),
  exportParts: (saasId: string, jobId: string) => ({ pk: `SAAS#${saasId}#EXPORT#${jobId}`, skPrefix: 'PART#' }),

  outboxMail: (saasId: string, mailId: string): ItemKey => ({ pk: `SAAS#${saasId}#OUTBOX`, sk: `MAIL#${mailId}` }),
  /** A mail rate counter (domain/mail/mail.ts mailCounters): `TO#<address>#<window>` or `USER#<user>#<window>`. */
  mailCounter: (saasId: string, counter: string): ItemKey => ({ pk: `SAAS#${saasId}#MAILRATE`, sk: counter }),
  /** gsi1, while a mail is not final: by the time it is next due (its next attempt, or its claim lapsing). */
  outboxDue: (saasId: string, mailId: string, at: number) => ({ gsi1pk: `SAAS#${saasId}#OUTBOX`, gsi1sk: `${padSeconds(at)}#${mailId}` }),
  outboxDueBy: (saasId: string, now: number) => ({ gsi1pk: `SAAS#${saasId}#OUTBOX`, gsi1skUpTo: `${padSeconds(now)}#~` }),
  /** gsi1: every mail that is not final yet, whenever it is due (the backlog the scheduled worker reports). */
  outboxNotFinal: (saasId: string) => ({ gsi1pk: `SAAS#${saasId}#OUTBOX` }),

  /**
   * An address that bounced for good or complained, in the SaaS's own partition (one GetItem before each
   * send). Addresses compare without case, as mail providers treat them.
   */
  mailSuppression: (saasId: string, address: string): ItemKey => ({ pk: saasPartition(saasId), sk: `SUPPRESSED#${address.toLowerCase()}` }),

  /**
   * A decoy: what a step writes for a name nobody has (or a refused attempt), where it writes for a user, so
   * the requests and their time are the same (sign-in-repository.ts, user-flow-repository.ts). It holds no
   * one's data and expires; `id` is the made-up id of the name, so repeated tries of a name reuse its items.
   */
  decoy: (saasId: string, id: string, what: string): ItemKey => ({ pk: `SAAS#${saasId}#DECOY#${id}`, sk: `DECOY#${what}` }),
  /**
   * A sign-up waiting for the code mailed to its address (the sign-in setting sign_up.password "chosen",
   * shared/domain/sign-in/sign-up.ts): no user exists yet, so it has a partition of its own per address (by the
   * SHA-256 of the lower-cased address), replaced by a newer request and gone with its TTL.
   */
  pendingSignUp: (saasId: string, addressHash: string): ItemKey => ({ pk: `SAAS#${saasId}#SIGNUP#${addressHash}`, sk: 'PENDING' }),
  /** gsi1 of a decoy that stands for a user's profile, which is in the index (the user directory): its index entry is written alike. */
  decoyIndexEntry: (saasId: string, id: string) => ({ gsi1pk: `SAAS#${saasId}#DECOYS`, gsi1sk: id }),
};

/** The catalogue's item kinds and their sort-key prefixes. */
const CATALOGUE_PREFIX = { unit: 'UNIT#', meter: 'METER#', menu: 'MENU#', plan: 'PLAN#', taxRate: 'TAX#' } as const;
export type CatalogueKey = keyof typeof CATALOGUE_PREFIX;

export const pricingKeys = {
  /**
   * A SaaS's pricing catalogue in one partition (a few hundred small items at most), so that every read of it
   * (a plan with its menus and units) is one strongly consistent query. Metering units are keyed by name: the
   * metering routes name them, and the metering hot path reads one by its key.
   */
  catalogueItem: (saasId: string, kind: CatalogueKey, idOrName: string): ItemKey => ({
    pk: `SAAS#${saasId}#PRICING`,
    sk: `${CATALOGUE_PREFIX[kind]}${idOrName}`,
  }),
  catalogue: (saasId: string) => ({ pk: `SAAS#${saasId}#PRICING`, skPrefix: '' }),
  kindOfSortKey: (sk: string): CatalogueKey | undefined =>
    (Object.entries(CATALOGUE_PREFIX) as [CatalogueKey, string][]).find(([, prefix]) => sk.startsWith(prefix))?.[0],
  /**
   * A tenant's metering counts of one UTC month (`2026-11`) in one partition: the month of a tenant is one
   * query. Within it, one item per unit, write shard and timestamp (`storage#3#001764115200`): a busy
   * timestamp's updates spread over several items and over several sort-key ranges, between which DynamoDB
   * can split the partition (docs/decisions.md, decision 13); one unit's counts are one key prefix.
   */
  meteringCount: (saasId: string, tenantId: string, month: string, unitName: string, timestamp: number, shard: number): ItemKey => ({
    pk: `SAAS#${saasId}#METER#${tenantId}#${month}`,
    sk: `${unitName}#${shard}#${padSeconds(timestamp)}`,
  }),
  meteringMonth: (saasId: string, tenantId: string, month: string) => ({ pk: `SAAS#${saasId}#METER#${tenantId}#${month}`, skPrefix: '' }),
  meteringUnitMonth: (saasId: string, tenantId: string, month: string, unitName: string) => ({
    pk: `SAAS#${saasId}#METER#${tenantId}#${month}`,
    skPrefix: `${unitName}#`,
  }),
};

/** Unix milliseconds, zero-padded so they sort as numbers until the year 33658. */
const padMillis = (ms: number) => String(ms).padStart(15, '0');
const API_LOG_POSITION = /^\d{15}#[0-9a-f-]{36}$/;
const API_LOG_PARTITION = /^SAAS#[^#]+#APILOG#\d+$/;

export const apiLogKeys = {
  /**
   * One record per signed call, in one of a SaaS's write shards (APILOG_WRITE_SHARDS), chosen at random:
   * the sort key grows with time, so DynamoDB cannot split a partition's hot end, and a busy SaaS's calls
   * instead spread over that many partitions (each takes 1,000 writes a second). A range of time is one
   * query per shard, merged; the record's id (a UUIDv7) names its time, so Get is one BatchGetItem over the
   * shards (docs/deployment-shape.md).
   */
  record: (saasId: string, shard: number, at: number, id: string): ItemKey => ({
    pk: `SAAS#${saasId}#APILOG#${shard}`,
    sk: `${padMillis(at)}#${id}`,
  }),
  shard: (saasId: string, shard: number) => `SAAS#${saasId}#APILOG#${shard}`,
  /** The sort keys of `from <= at < to`, inclusive bounds for BETWEEN. */
  range: (from: number, to: number) => ({ low: padMillis(from), high: `${padMillis(to - 1)}#~` }),
  isPosition: (position: string) => API_LOG_POSITION.test(position),
  /** Whether a partition key is one of the API log's (tests tell the log's writes from the operations'). */
  isPartition: (pk: string) => API_LOG_PARTITION.test(pk),
  /**
   * Whether a store command is the API log writer's (shared/domain/apilog/shipped-lines.ts): a batch of records, a
   * record put alone, an update of the sign-in counts, the active users or the page histories, or a sign-in's time
   * copied to a directory entry (the one update of an entry made alone: the others go in transactions). Tests and
   * benches count them apart from the operations'.
   */
  isRecordWrite: (operation: string, input: object) => {
    const { Item, Key, RequestItems } = input as {
      Item?: { pk?: unknown };
      Key?: { pk?: unknown };
      RequestItems?: Record<string, { PutRequest?: { Item?: { pk?: unknown } } }[]>;
    };
    if (operation === 'PutItem') return API_LOG_PARTITION.test(String(Item?.pk ?? ''));
    if (operation === 'UpdateItem')
      return (
        [SIGN_IN_COUNTS_PARTITION, EVENT_SEQUENCE_PARTITION, ACTIVE_USERS_PARTITION, BEHAVIOR_PARTITION].some((partition) =>
          partition.test(String(Key?.pk ?? '')),
        ) || (Key as { sk?: unknown } | undefined)?.sk === DIRECTORY_ENTRY_SK
      );
    if (operation !== 'BatchWriteItem' || !RequestItems) return false;
    const requests = Object.values(RequestItems).flat();
    const ours = (pk: string) => API_LOG_PARTITION.test(pk) || EVENT_PARTITION.test(pk);
    return requests.length > 0 && requests.every((request) => ours(String(request.PutRequest?.Item?.pk ?? '')));
  },
};

/** The partitions the API log writer may write (lib/service-stack.ts), as IAM patterns of partition keys. */
export const API_LOG_PARTITIONS = 'SAAS#*#APILOG#*';
export const SIGN_IN_COUNTS_PARTITIONS = 'SAAS#*#SIGNINCOUNTS';
const SIGN_IN_COUNTS_PARTITION = /^SAAS#[^#]+#SIGNINCOUNTS$/;
/** Who signed in within a day or month, and how many (shared/domain/analysis/active-users.ts): the writer's too. */
export const ACTIVE_USERS_PARTITIONS = 'SAAS#*#ACTIVE#*';
const ACTIVE_USERS_PARTITION = /^SAAS#[^#]+#ACTIVE#/;
/** Users' page histories, which GetUserInfo's Referer feeds (shared/domain/analysis/page-views.ts): the writer's too. */
export const BEHAVIOR_PARTITIONS = 'SAAS#*#BEHAVIOR';
const BEHAVIOR_PARTITION = /^SAAS#[^#]+#BEHAVIOR$/;
/**
 * Users' partitions, where the writer copies a sign-in's time to the directory entry (shared/store/user-repository.ts,
 * copyLastSignIn): it may touch these attributes of them only, the key and the entry's shard among them.
 */
export const USER_PARTITIONS = 'SAAS#*#USER#*';
export const DIRECTORY_COPY_ATTRIBUTES = ['pk', 'sk', 'last_login_at', 'gsi1pk'] as const;
/** The events the writer keeps, and the counters that number them (shared/domain/integration): the writer's too. */
export const EVENT_PARTITIONS = 'SAAS#*#EVENTS';
export const EVENT_SEQUENCE_PARTITIONS = 'SAAS#*#EVENTSEQ';
const EVENT_PARTITION = /^SAAS#[^#]+#EVENTS$/;
const EVENT_SEQUENCE_PARTITION = /^SAAS#[^#]+#EVENTSEQ$/;

/**
 * The Analysis API's (shared/domain/analysis): active-user figures a SaaS saved, by type, in date order; and each
 * user's page histories of a day, by day (page statistics read a range of days), and in gsi1 by user (a user's month).
 */
export const analysisKeys = {
  activeUsers: (saasId: string, type: string, date: string, tenantId: string, envId: number): ItemKey => ({
    pk: `SAAS#${saasId}#ACTIVEUSERS#${type}`,
    sk: `${date}#${tenantId}#${envId}`,
  }),
  activeUsersRange: (saasId: string, type: string, from: string, to: string) => ({
    pk: `SAAS#${saasId}#ACTIVEUSERS#${type}`,
    low: from,
    high: `${to}#~`,
  }),
  /** That a user signed in within one day or month (`date`: YYYY-MM-DD or YYYY-MM): one partition a period. */
  activeUserMark: (saasId: string, type: string, date: string, userId: string): ItemKey => ({
    pk: `SAAS#${saasId}#ACTIVE#${type}#${date}`,
    sk: `U#${userId}`,
  }),
  /** How many users the marks of one period hold, in date order. */
  activeUsersCount: (saasId: string, type: string, date: string): ItemKey => ({ pk: `SAAS#${saasId}#ACTIVE#COUNT#${type}`, sk: date }),
  activeUsersCountRange: (saasId: string, type: string, from: string, to: string) => ({
    pk: `SAAS#${saasId}#ACTIVE#COUNT#${type}`,
    low: from,
    high: to,
  }),
  behaviorDay: (saasId: string, day: number, userId: string): ItemKey => ({ pk: `SAAS#${saasId}#BEHAVIOR`, sk: `D#${padSeconds(day)}#U#${userId}` }),
  behaviorRange: (saasId: string, fromDay: number, toDay: number) => ({
    pk: `SAAS#${saasId}#BEHAVIOR`,
    low: `D#${padSeconds(fromDay)}#`,
    high: `D#${padSeconds(toDay)}#~`,
  }),
  behaviorOfUser: (saasId: string, userId: string, day: number) => ({ gsi1pk: `SAAS#${saasId}#BEHAVIOR#U#${userId}`, gsi1sk: padSeconds(day) }),
};

/**
 * A SaaS's events (shared/domain/integration): each kept event (`E#<id>`, a UUIDv7, so the newest sort last), its
 * EventBridge settings (`SETTINGS#eventbridge`) and its webhooks (`WEBHOOK#<id>`) in one partition; while a destination waits for an
 * attempt, the event is in gsi1 by the time it is next due. Each subject's counter is in a partition of its own kind.
 */
export const eventKeys = {
  partition: (saasId: string) => `SAAS#${saasId}#EVENTS`,
  event: (saasId: string, id: string): ItemKey => ({ pk: `SAAS#${saasId}#EVENTS`, sk: `E#${id}` }),
  settings: (saasId: string): ItemKey => ({ pk: `SAAS#${saasId}#EVENTS`, sk: 'SETTINGS#eventbridge' }),
  webhook: (saasId: string, id: string): ItemKey => ({ pk: `SAAS#${saasId}#EVENTS`, sk: `WEBHOOK#${id}` }),
  due: (saasId: string, id: string, at: number) => ({ gsi1pk: `SAAS#${saasId}#EVENTSDUE`, gsi1sk: `${padSeconds(at)}#${id}` }),
  dueBy: (saasId: string, now: number) => ({ gsi1pk: `SAAS#${saasId}#EVENTSDUE`, gsi1skUpTo: `${padSeconds(now)}#~` }),
  sequence: (saasId: string, subject: string): ItemKey => ({ pk: `SAAS#${saasId}#EVENTSEQ`, sk: subject }),
  /** A kept event or a subject's counter: the record of a call, written after it as the API log is (not settings or webhooks). */
  isCallRecord: (pk: string, sk: string) => EVENT_SEQUENCE_PARTITION.test(pk) || (EVENT_PARTITION.test(pk) && sk.startsWith('E#')),
};

/** Strips the storage-only attributes from an item before it reaches the domain. */
export function withoutKeys<T>(item: Record<string, unknown>): T {
  const { pk: _pk, sk: _sk, gsi1pk: _gsi1pk, gsi1sk: _gsi1sk, entity: _entity, v: _v, ...rest } = item;
  return rest as T;
}

/**
 * A SaaS's sign-ins, refused proofs and lockouts of one UTC day (YYYY-MM-DD): one item of counters raised by
 * atomic ADDs, gone by TTL. Written off the sign-in's path, a batch at a time (so the partition sees a few
 * writes a second however many users sign in); read a range of days at a time by the console's overview.
 */
export const signInCountsKeys = {
  day: (saasId: string, day: string): ItemKey => ({ pk: `SAAS#${saasId}#SIGNINCOUNTS`, sk: `DAY#${day}` }),
  partition: (saasId: string) => `SAAS#${saasId}#SIGNINCOUNTS`,
  /** The sort keys of the days from `fromDay` to `toDay`, both included, for BETWEEN. */
  range: (fromDay: string, toDay: string) => ({ low: `DAY#${fromDay}`, high: `DAY#${toDay}` }),
  isPartition: (pk: string) => SIGN_IN_COUNTS_PARTITION.test(pk),
};

const feedbackPartition = (saasId: string) => `SAAS#${saasId}#FEEDBACK`;
const feedbackSort = (feedbackId: string) => `F#${feedbackId.toLowerCase()}`;

/**
 * A SaaS's feedback portal (shared/domain/communication) in one partition: each feedback (`F#<id>`) with its
 * comments (`F#<id>#C#<comment id>`) and votes (`F#<id>#V#<user id>`) right after it, so one feedback is one
 * query of its prefix (ids are UUIDs of one length, so no feedback's prefix holds another's) and the whole
 * list, which the API answers unpaged, one query of the partition. A vote's key is its user: one per user.
 */
export const feedbackKeys = {
  feedback: (saasId: string, feedbackId: string): ItemKey => ({ pk: feedbackPartition(saasId), sk: feedbackSort(feedbackId) }),
  comment: (saasId: string, feedbackId: string, commentId: string): ItemKey => ({
    pk: feedbackPartition(saasId),
    sk: `${feedbackSort(feedbackId)}#C#${commentId.toLowerCase()}`,
  }),
  vote: (saasId: string, feedbackId: string, userId: string): ItemKey => ({
    pk: feedbackPartition(saasId),
    sk: `${feedbackSort(feedbackId)}#V#${userId.toLowerCase()}`,
  }),
  thread: (saasId: string, feedbackId: string) => ({ pk: feedbackPartition(saasId), skPrefix: feedbackSort(feedbackId) }),
  all: (saasId: string) => ({ pk: feedbackPartition(saasId), skPrefix: 'F#' }),
};
