/**
 * One-time setup links (issue 41, docs/enterprise.md "Setup links"): the SaaS hands one to its customer's IT admin,
 * who opens it without an account and connects the tenant's identity provider, SCIM and domains on the hosted
 * screen (web/login/setup). The link carries a random secret, kept here as its SHA-256 only (256 random bits: a
 * fast hash is enough, there is nothing to guess). Opening it consumes it; the page's session that opening starts
 * lasts until the link's own end, at most SESSION_SECONDS, and a revoked link ends it at the next request.
 */
import { createHash, randomBytes } from 'node:crypto';
import { nowSeconds } from '../../clock.js';
import { constantTimeEqual } from '../../crypto/compare.js';
import { invalid, notFound, unauthenticated } from '../../errors.js';

export interface StoredSetupLink {
  id: string;
  tenant_id: string;
  /** SHA-256 of the secret, hex. */
  hash: string;
  created_at: number;
  expires_at: number;
  used_at?: number;
  revoked_at?: number;
}

export interface SetupLinkRepository {
  save(saasId: string, link: StoredSetupLink): Promise<void>;
  get(saasId: string, tenantId: string, linkId: string): Promise<StoredSetupLink | undefined>;
  list(saasId: string, tenantId: string): Promise<StoredSetupLink[]>;
  /** Marks the link used unless it was used or revoked already, or has ended by `now`: false then. */
  consume(saasId: string, tenantId: string, linkId: string, now: number): Promise<boolean>;
  /** False when there is no such link. */
  revoke(saasId: string, tenantId: string, linkId: string, now: number): Promise<boolean>;
}

export type SetupLinkState = 'unused' | 'used' | 'expired' | 'revoked';

/** What the API and the console show of a link: never its secret, nor its hash. */
export interface SetupLinkView {
  id: string;
  state: SetupLinkState;
  created_at: number;
  expires_at: number;
  used_at?: number;
  revoked_at?: number;
}

/** Who the setup page serves, as its sealed cookie holds it (web/login/setup). */
export interface SetupGrant {
  saasId: string;
  tenantId: string;
  linkId: string;
  /** Unix seconds: the page's session ends then, whatever the cookie's own age. */
  until: number;
}

export const DEFAULT_VALID_DAYS = 7;
export const MAX_VALID_DAYS = 30;
/** How long the setup page stays open after the link was opened: a working day, never past the link's end. */
export const SESSION_SECONDS = 8 * 60 * 60;

const SECRET_PREFIX = 'stl';
const ID = /^[0-9a-f]{16}$/;
const TENANT = /^[A-Za-z0-9-]{1,64}$/;
const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');

const stateOf = (link: StoredSetupLink, now: number): SetupLinkState =>
  link.revoked_at !== undefined ? 'revoked' : link.used_at !== undefined ? 'used' : link.expires_at <= now ? 'expired' : 'unused';

const view = (link: StoredSetupLink, now: number): SetupLinkView => ({
  id: link.id,
  state: stateOf(link, now),
  created_at: link.created_at,
  expires_at: link.expires_at,
  ...(link.used_at !== undefined ? { used_at: link.used_at } : {}),
  ...(link.revoked_at !== undefined ? { revoked_at: link.revoked_at } : {}),
});

/** One refusal for every link that does not open: nobody learns whether it existed, was used, or ended. */
const refused = () => unauthenticated('setup_link_invalid', 'this setup link is not valid: it was used, revoked or has expired');

export interface SetupLinkDeps {
  links: SetupLinkRepository;
  tenantExists(saasId: string, tenantId: string): Promise<boolean>;
  /** The page that opens a link: the SaaS's hosted screen, `…/setup?key=`. */
  pageUrl(saasId: string): string;
}

export class SetupLinkService {
  constructor(private readonly deps: SetupLinkDeps) {}

  private async tenant(saasId: string, tenantId: string): Promise<void> {
    if (!(await this.deps.tenantExists(saasId, tenantId))) throw notFound('tenant_not_found', `no tenant with id ${tenantId}`);
  }

  /** A new link, its URL answered once. */
  async create(saasId: string, tenantId: string, validDays = DEFAULT_VALID_DAYS): Promise<SetupLinkView & { url: string }> {
    if (!Number.isInteger(validDays) || validDays < 1 || validDays > MAX_VALID_DAYS) {
      throw invalid('invalid_parameter', `valid_days: a whole number of days from 1 to ${MAX_VALID_DAYS}`, { field: 'valid_days' });
    }
    await this.tenant(saasId, tenantId);
    const now = nowSeconds();
    const secret = randomBytes(32).toString('base64url');
    const link: StoredSetupLink = {
      id: randomBytes(8).toString('hex'),
      tenant_id: tenantId,
      hash: hashOf(secret),
      created_at: now,
      expires_at: now + validDays * 86400,
    };
    await this.deps.links.save(saasId, link);
    const key = `${SECRET_PREFIX}.${tenantId}.${link.id}.${secret}`;
    return { ...view(link, now), url: `${this.deps.pageUrl(saasId)}?key=${encodeURIComponent(key)}` };
  }

  async list(saasId: string, tenantId: string): Promise<{ setup_links: SetupLinkView[] }> {
    await this.tenant(saasId, tenantId);
    const now = nowSeconds();
    const links = await this.deps.links.list(saasId, tenantId);
    return { setup_links: links.sort((a, b) => b.created_at - a.created_at).map((link) => view(link, now)) };
  }

  async revoke(saasId: string, tenantId: string, linkId: string): Promise<void> {
    await this.tenant(saasId, tenantId);
    if (!ID.test(linkId) || !(await this.deps.links.revoke(saasId, tenantId, linkId, nowSeconds()))) {
      throw notFound('setup_link_not_found', `no setup link with id ${linkId}`);
    }
  }

  /** The link's key exchanged, once, for the page's grant; a used, revoked, ended or unknown key is a 401. */
  async open(saasId: string, key: string): Promise<SetupGrant> {
    const [prefix, tenantId = '', linkId = '', secret = '', ...rest] = key.split('.');
    if (prefix !== SECRET_PREFIX || rest.length || !TENANT.test(tenantId) || !ID.test(linkId) || !secret) throw refused();
    const link = await this.deps.links.get(saasId, tenantId, linkId);
    const now = nowSeconds();
    if (!link || !constantTimeEqual(link.hash, hashOf(secret)) || stateOf(link, now) !== 'unused') throw refused();
    if (!(await this.deps.links.consume(saasId, tenantId, linkId, now))) throw refused();
    await this.tenant(saasId, tenantId).catch(() => Promise.reject(refused()));
    return { saasId, tenantId, linkId, until: Math.min(link.expires_at, now + SESSION_SECONDS) };
  }

  /** Whether the page's grant still holds: its time, and its link neither revoked nor gone with its tenant. */
  async check(grant: SetupGrant): Promise<void> {
    if (grant.until <= nowSeconds()) throw refused();
    const link = await this.deps.links.get(grant.saasId, grant.tenantId, grant.linkId);
    if (!link || link.revoked_at !== undefined) throw refused();
    await this.tenant(grant.saasId, grant.tenantId).catch(() => Promise.reject(refused()));
  }
}
