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
  /** Counts `calls` calls in the window and answers the window's count so far, these included. */
  countCall(saasId: string, tenantId: string, window: number, expiresAt: number, calls: number): Promise<number>;
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
/** The most calls of a minute an instance claims at once: a sync's pace costs one count write per this many calls. */
const MAX_CLAIM = 50;
/** A claim is at most this share of the rate, so what instances claim and never use costs a tenant little of it. */
const CLAIM_SHARE = 100;

/**
 * The calls of the current minute a warm instance has claimed from a tenant's count and not used yet. A claim takes
 * a block of the count's numbers at once; a call takes one of them without asking the store. The count is never
 * under what was admitted, so instances together never admit more than the rate; a number claimed and not used
 * (the instance went cold, the minute ended) only refuses a little early.
 */
export class ClaimedCalls {
  private readonly held = new Map<string, { window: number; left: number }>();

  /** One claimed call of this window, when this instance holds one. */
  take(key: string, window: number): boolean {
    const claim = this.held.get(key);
    if (!claim || claim.window !== window || claim.left === 0) return false;
    claim.left--;
    return true;
  }

  keep(key: string, window: number, left: number): void {
    if (left > 0) this.held.set(key, { window, left });
    else this.held.delete(key);
  }
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
const info = (token: StoredScimToken): ScimTokenInfo => ({ id: token.id, created_at: token.created_at });

export class ScimTokenService {
  constructor(
    private readonly repository: ScimRepository,
    /** The tenant exists and is live. */
    private readonly tenantExists: (saasId: string, tenantId: string) => Promise<boolean>,
    private readonly requestsPerMinute: () => number,
    /** This warm instance's claims (one per process; a new one claims nothing). */
    private readonly claimed: ClaimedCalls = new ClaimedCalls(),
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
   * up the tenant's rate. The count is claimed in blocks (ClaimedCalls): a directory's sync writes it once per
   * block, not once per call; a rate under 200 a minute is counted call by call, as before.
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
    const key = `${saasId}\n${tenantId}`;
    if (this.claimed.take(key, window)) return;
    // Numbers count - claim + 1 … count are this call's and the claim's; those past the rate are nobody's.
    const rate = this.requestsPerMinute();
    const claim = Math.max(1, Math.min(MAX_CLAIM, Math.floor(rate / CLAIM_SHARE)));
    const count = await this.repository.countCall(saasId, tenantId, window, (window + 2) * WINDOW_SECONDS, claim);
    const usable = Math.min(claim, rate - (count - claim));
    if (usable <= 0) {
      throw tooManyRequests('too_many_requests', 'too many SCIM calls for this tenant; try again shortly', (window + 1) * WINDOW_SECONDS - now);
    }
    this.claimed.keep(key, window, usable - 1);
  }
}
