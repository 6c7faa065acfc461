/**
 * Refresh tokens carry what they grant, sealed: the user, the session version they are bound to, when the
 * user proved who they are, when the token ends, and the grant they belong to, under AES-256-GCM with a key
 * derived from the deployment's SRP secret for this use and bound to the SaaS. A token of another SaaS,
 * another deployment, altered or expired, opens to nothing.
 *
 * The grant id (`origin_jti` in the ID and access tokens issued with it, as Cognito names it) is what Revoke
 * Token ends: the refresh token and every token issued from it (grants.ts). A rotating grant (the OpenID
 * Connect token endpoint's) also carries its generation: each refresh answers the next one, and an older one
 * presented again is a reuse that ends the whole grant (RFC 9700 section 4.14.2).
 */
import { createHash, randomBytes } from 'node:crypto';
import { sealWithKey, openWithKey } from '../../crypto/code-box.js';
import { nowSeconds } from '../../clock.js';
import type { SrpSecretPort } from '../tokens/key-store.js';
import type { AuthMethod } from '../tokens/tokens.js';

export interface RefreshGrant {
  userId: string;
  sessionVersion: number;
  /** The tokens' auth_time: when the user signed in. */
  authTime: number;
  expiresAt: number;
  /** The grant the token belongs to: every token issued from it carries it as `origin_jti`. */
  grantId: string;
  /** Rotating grants only (OpenID Connect clients): the token's place in its grant's chain. */
  generation?: number;
  /** Rotating grants only: the scope granted, kept by every refresh. */
  scope?: string;
  /** How the person signed in (the ID tokens' `amr`), kept by every refresh; absent from tokens sealed before. */
  amr?: readonly AuthMethod[];
}

/** What a new token says; `expiresAt` is given when it continues a grant (rotation keeps the grant's end). */
export type NewRefreshToken = Omit<RefreshGrant, 'expiresAt' | 'grantId'> & { grantId?: string; expiresAt?: number };

/** `rt2.` and the sealed grant, base64url; `rt1.` tokens (issued before grants had ids) are still read. */
const PREFIX = 'rt2.';
const SHAPE = /^rt[12]\.[A-Za-z0-9_-]{40,400}$/;
const context = (saasId: string, version: 'rt1' | 'rt2') => (version === 'rt1' ? `refresh token v1\n${saasId}` : `refresh token v2\n${saasId}`);

/** A new grant id: 128 random bits. */
export const newGrantId = () => randomBytes(16).toString('base64url');

type SealedV2 = [string, number, number, number, string, number | null, string | null, (readonly AuthMethod[])?];

export class RefreshTokens {
  constructor(
    private readonly secrets: SrpSecretPort,
    /** How long a new grant's tokens live for this SaaS (refresh_token_validity). */
    private readonly lifetimeSeconds: (saasId: string) => Promise<number>,
  ) {}

  /** A token of a new grant, or (with `grantId` and `expiresAt`) the next token of an existing one. */
  async issue(saasId: string, grant: NewRefreshToken): Promise<{ token: string; grant: RefreshGrant }> {
    const [secret, expiresAt] = await Promise.all([
      this.secrets.srpSecret(),
      grant.expiresAt !== undefined ? grant.expiresAt : this.lifetimeSeconds(saasId).then((seconds) => nowSeconds() + seconds),
    ]);
    const full: RefreshGrant = { ...grant, grantId: grant.grantId ?? newGrantId(), expiresAt };
    const sealed: SealedV2 = [
      full.userId,
      full.sessionVersion,
      full.authTime,
      full.expiresAt,
      full.grantId,
      full.generation ?? null,
      full.scope ?? null,
    ];
    // Appended only when known, so a token without it keeps the shape tokens sealed before had.
    if (full.amr !== undefined && full.amr.length > 0) sealed.push(full.amr);
    return { token: PREFIX + sealWithKey(secret, context(saasId, 'rt2'), JSON.stringify(sealed)).toString('base64url'), grant: full };
  }

  /** When every grant issued for this SaaS until now has ended (its refresh tokens' lifetime from now). */
  async grantsEndBy(saasId: string): Promise<number> {
    return nowSeconds() + (await this.lifetimeSeconds(saasId));
  }

  /** The grant of a token this deployment issued for this SaaS and that has not expired; else undefined. */
  async open(saasId: string, token: string): Promise<RefreshGrant | undefined> {
    if (!SHAPE.test(token)) return undefined;
    const version = token.startsWith('rt1.') ? 'rt1' : 'rt2';
    const opened = openWithKey(await this.secrets.srpSecret(), context(saasId, version), Buffer.from(token.slice(4), 'base64url'));
    if (opened === undefined) return undefined;
    const grant = version === 'rt1' ? openV1(token, opened) : openV2(opened);
    return grant.expiresAt > nowSeconds() ? grant : undefined;
  }
}

function openV2(opened: string): RefreshGrant {
  const [userId, sessionVersion, authTime, expiresAt, grantId, generation, scope, amr] = JSON.parse(opened) as SealedV2;
  return {
    userId,
    sessionVersion,
    authTime,
    expiresAt,
    grantId,
    ...(generation !== null ? { generation } : {}),
    ...(scope !== null ? { scope } : {}),
    ...(amr !== undefined ? { amr } : {}),
  };
}

/** A token sealed before grants had ids: its grant is named by its own hash, so it can be revoked all the same. */
function openV1(token: string, opened: string): RefreshGrant {
  const [userId, sessionVersion, authTime, expiresAt] = JSON.parse(opened) as [string, number, number, number];
  return { userId, sessionVersion, authTime, expiresAt, grantId: createHash('sha256').update(token).digest('base64url').slice(0, 22) };
}
