/**
 * A tenant's SCIM bearer tokens (RFC 7644 §2 leaves authentication to the service): random, shown once, kept as
 * SHA-256 hashes (they carry 256 bits, so a fast hash is enough; there is nothing to guess). At most two are live,
 * so a directory is moved to a new token before the old one is revoked: rotation without downtime. A token is
 * looked up under the tenant its URL names, so it opens that tenant only.
 */
import { createHash, randomBytes } from 'node:crypto';
import { nowSeconds } from '../../clock.js';
import { constantTimeEqual } from '../../crypto/compare.js';
import { concurrentUpdate, notFound, tooManyRequests, unauthenticated } from '../../errors.js';
import type { AtomicWrite } from '../atomic.js';

export interface StoredScimToken {
  id: string;
  /** SHA-256 of the token, hex. */
  hash: string;
  created_at: number;
}

export interface ScimTokens {
  /** Raised by every change: a save of what was read refuses when another came first. */
  version: number;
  tokens: StoredScimToken[];
}

/** A SCIM group: a role of the SaaS, pushed to one tenant; its id is the role's name. */
export interface ScimGroupRecord {
  role_name: string;
  display_name: string;
  external_id?: string;
  /** The env in which the group's members hold the role. */
  env_id: number;
  created_at: number;
}

export interface ScimRepository {
  /** `fresh`: read now, strongly consistent (before a change); else a warm instance may answer what it read lately. */
  tokens(saasId: string, tenantId: string, fresh?: boolean): Promise<ScimTokens>;
  saveTokens(saasId: string, tenantId: string, tokens: StoredScimToken[], readVersion: number): Promise<boolean>;
  /** Counts one call in the window and answers the window's count so far. */
  countCall(saasId: string, tenantId: string, window: number, expiresAt: number): Promise<number>;
  groups(saasId: string, tenantId: string): Promise<ScimGroupRecord[]>;
  group(saasId: string, tenantId: string, roleName: string): Promise<ScimGroupRecord | undefined>;
  /** Rules: `tenant_live`, `role_exists:<name>`, `group_free`. */
  groupCreateWrite(saasId: string, tenantId: string, group: ScimGroupRecord): AtomicWrite;
  /** Rule `group_exists`. */
  groupUpdateWrite(saasId: string, tenantId: string, group: ScimGroupRecord): AtomicWrite;
  /** Rule `group_exists`. */
  groupRemoveWrite(saasId: string, tenantId: string, roleName: string): AtomicWrite;
}

/** What the setup page and the API show of a token: never the token itself, nor its hash. */
export interface ScimTokenInfo {
  id: string;
  created_at: number;
}

const MAX_LIVE_TOKENS = 2;
const TOKEN_PREFIX = 'scim_';
const WINDOW_SECONDS = 60;

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
const info = (token: StoredScimToken): ScimTokenInfo => ({ id: token.id, created_at: token.created_at });

export class ScimTokenService {
  constructor(
    private readonly repository: ScimRepository,
    /** The tenant exists and is live. */
    private readonly tenantExists: (saasId: string, tenantId: string) => Promise<boolean>,
    private readonly requestsPerMinute: () => number,
  ) {}

  private async tenant(saasId: string, tenantId: string): Promise<void> {
    if (!(await this.tenantExists(saasId, tenantId))) throw notFound('tenant_not_found', `no tenant with id ${tenantId}`);
  }

  async list(saasId: string, tenantId: string): Promise<ScimTokenInfo[]> {
    await this.tenant(saasId, tenantId);
    return (await this.repository.tokens(saasId, tenantId)).tokens.map(info);
  }

  /**
   * A new token, answered once. With two live already, the older goes: the directory was moved to the newer
   * one at the last rotation, or the admin has revoked nothing since, and a third would never be used.
   */
  async create(saasId: string, tenantId: string): Promise<ScimTokenInfo & { token: string }> {
    await this.tenant(saasId, tenantId);
    const read = await this.repository.tokens(saasId, tenantId, true);
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const stored: StoredScimToken = { id: randomBytes(8).toString('hex'), hash: hashOf(token), created_at: nowSeconds() };
    const kept = [...read.tokens].sort((a, b) => a.created_at - b.created_at).slice(-(MAX_LIVE_TOKENS - 1));
    if (!(await this.repository.saveTokens(saasId, tenantId, [...kept, stored], read.version))) throw concurrentUpdate('SCIM tokens');
    return { ...info(stored), token };
  }

  async revoke(saasId: string, tenantId: string, tokenId: string): Promise<void> {
    await this.tenant(saasId, tenantId);
    const read = await this.repository.tokens(saasId, tenantId, true);
    if (!read.tokens.some((t) => t.id === tokenId)) throw notFound('scim_token_not_found', `no SCIM token with id ${tokenId}`);
    const left = read.tokens.filter((t) => t.id !== tokenId);
    if (!(await this.repository.saveTokens(saasId, tenantId, left, read.version))) throw concurrentUpdate('SCIM tokens');
  }

  /**
   * A SCIM call's authorisation, then its rate: 401 unless the bearer token is one of this tenant's, then 429
   * past the tenant's calls per minute. Only authorised calls are counted, so nobody without the token can use
   * up the tenant's rate.
   */
  async admit(saasId: string, tenantId: string, authorization: string | undefined): Promise<void> {
    const bearer = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    if (!bearer) throw unauthenticated('invalid_token', 'Authorization: a Bearer token is required');
    const stored = await this.repository.tokens(saasId, tenantId);
    const hash = hashOf(bearer);
    // Every stored hash is compared, so the time taken says nothing of which matched.
    const matches = stored.tokens.map((t) => constantTimeEqual(t.hash, hash));
    if (!matches.includes(true)) throw unauthenticated('invalid_token', 'Authorization: the token is not valid for this tenant');
    const now = nowSeconds();
    const window = Math.floor(now / WINDOW_SECONDS);
    const count = await this.repository.countCall(saasId, tenantId, window, (window + 2) * WINDOW_SECONDS);
    if (count > this.requestsPerMinute()) {
      throw tooManyRequests('too_many_requests', 'too many SCIM calls for this tenant; try again shortly', (window + 1) * WINDOW_SECONDS - now);
    }
  }
}
