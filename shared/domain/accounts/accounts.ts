/**
 * SaaS accounts and their API keys: what the admin command manages and what every signed request is
 * checked against. Pure logic over two ports: the repository and the secret box.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { nowSeconds } from '../../clock.js';
import { PERMISSIONS, type PermissionGrant } from '../../permissions.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import { invalid, notFound } from '../../errors.js';

export interface SaasAccount {
  id: string;
  name: string;
  /** Cognito clients take POOL_NAME from `REGION_POOLNAME`, so letters and digits only (decision 3). */
  poolName: string;
  createdAt: number;
}

export interface ApiKeyRecord {
  apiKey: string;
  saasId: string;
  permissions: PermissionGrant[];
  description: string;
  /** The secret, sealed by the secret box with {saasId, apiKey} as context. */
  sealedSecret: string;
  createdAt: number;
  revokedAt?: number;
}

export interface AccountRepository {
  createSaas(account: SaasAccount): Promise<void>;
  getSaas(saasId: string): Promise<SaasAccount | undefined>;
  listSaas(): Promise<SaasAccount[]>;
  putApiKey(record: ApiKeyRecord): Promise<void>;
  getApiKey(saasId: string, apiKey: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(saasId: string): Promise<ApiKeyRecord[]>;
  /** false when there is no such key. */
  revokeApiKey(saasId: string, apiKey: string, at: number): Promise<boolean>;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomAlphanumeric(length: number): string {
  // 248 = 62 * 4: bytes at or above it are dropped so every character is equally likely.
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHANUMERIC[byte % 62];
    }
  }
  return out;
}

export function parsePermissions(list: readonly string[]): PermissionGrant[] {
  if (list.length === 0) throw invalid('invalid_parameter', 'permissions: give at least one permission');
  const areas = new Set(PERMISSIONS.map((p) => p.split(':')[0]));
  for (const grant of list) {
    const known = grant === '*' || (PERMISSIONS as readonly string[]).includes(grant) || (grant.endsWith(':*') && areas.has(grant.slice(0, -2)));
    if (!known) {
      throw invalid('invalid_parameter', `permissions: unknown permission '${grant}' (known: *, ${PERMISSIONS.join(', ')})`);
    }
  }
  return [...new Set(list)] as PermissionGrant[];
}

export async function createSaasAccount(repo: AccountRepository, name: string): Promise<SaasAccount> {
  const trimmed = name.trim();
  if (!trimmed) throw invalid('invalid_parameter', 'name: must not be blank');
  const account: SaasAccount = {
    id: randomUUID(),
    name: trimmed,
    poolName: `Pool${randomAlphanumeric(20)}`,
    createdAt: nowSeconds(),
  };
  await repo.createSaas(account);
  return account;
}

export interface IssuedApiKey {
  apiKey: string;
  secret: string;
  saasId: string;
  permissions: PermissionGrant[];
}

export async function issueApiKey(
  repo: AccountRepository,
  box: SecretBox,
  saasId: string,
  permissions: readonly string[],
  description = '',
): Promise<IssuedApiKey> {
  const grants = parsePermissions(permissions);
  if (!(await repo.getSaas(saasId))) throw notFound('saas_not_found', `no SaaS with id ${saasId}`);
  const apiKey = randomAlphanumeric(32);
  const secret = randomBytes(32).toString('base64url');
  await repo.putApiKey({
    apiKey,
    saasId,
    permissions: grants,
    description,
    sealedSecret: await box.seal(secret, { saasId, apiKey }),
    createdAt: nowSeconds(),
  });
  return { apiKey, secret, saasId, permissions: grants };
}

export async function revokeApiKey(repo: AccountRepository, saasId: string, apiKey: string): Promise<void> {
  if (!(await repo.revokeApiKey(saasId, apiKey, nowSeconds()))) {
    throw notFound('api_key_not_found', `no API key ${apiKey} in SaaS ${saasId}`);
  }
}

export interface ActiveApiKey {
  saasId: string;
  apiKey: string;
  permissions: PermissionGrant[];
  secret: string;
}

/**
 * Opened secrets are cached for the life of the process: the record itself is read on every request, so
 * revocation takes effect at once, while KMS is called once per key per cold start.
 */
const openedSecrets = new Map<string, string>();

export async function findActiveApiKey(repo: AccountRepository, box: SecretBox, saasId: string, apiKey: string): Promise<ActiveApiKey | undefined> {
  const record = await repo.getApiKey(saasId, apiKey);
  if (!record || record.revokedAt !== undefined || record.saasId !== saasId) return undefined;
  let secret = openedSecrets.get(record.sealedSecret);
  if (secret === undefined) {
    secret = await box.open(record.sealedSecret, { saasId, apiKey });
    openedSecrets.set(record.sealedSecret, secret);
  }
  return { saasId, apiKey, permissions: record.permissions, secret };
}
