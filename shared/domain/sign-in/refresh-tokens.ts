/**
 * Refresh tokens carry what they grant, sealed: the user, the session version they are bound to, when the
 * user proved who they are, and when the token ends, under AES-256-GCM with a key derived from the
 * deployment's SRP secret for this use and bound to the SaaS. Nothing is stored, so a refresh is one read:
 * the user's profile, whose session version a password change, a reset or Sign Out raises past the token's
 * (and which is gone with a deleted user). A token of another SaaS, another deployment, altered or expired,
 * opens to nothing.
 */
import { sealWithKey, openWithKey } from '../../crypto/code-box.js';
import { nowSeconds } from '../../clock.js';
import type { SrpSecretSource } from './srp-sign-in.js';

export interface RefreshGrant {
  userId: string;
  sessionVersion: number;
  /** The tokens' auth_time: when the user signed in. */
  authTime: number;
  expiresAt: number;
}

/** `rt1.` and the sealed grant, base64url: the version prefix leaves room for another format later. */
const PREFIX = 'rt1.';
const SHAPE = /^rt1\.[A-Za-z0-9_-]{40,400}$/;
const context = (saasId: string) => `refresh token v1\n${saasId}`;

export class RefreshTokens {
  constructor(
    private readonly secrets: SrpSecretSource,
    private readonly lifetimeSeconds: number,
  ) {}

  async issue(saasId: string, grant: Omit<RefreshGrant, 'expiresAt'>): Promise<string> {
    const sealed: [string, number, number, number] = [grant.userId, grant.sessionVersion, grant.authTime, nowSeconds() + this.lifetimeSeconds];
    return PREFIX + sealWithKey(await this.secrets.srpSecret(), context(saasId), JSON.stringify(sealed)).toString('base64url');
  }

  /** The grant of a token this deployment issued for this SaaS and that has not expired; else undefined. */
  async open(saasId: string, token: string): Promise<RefreshGrant | undefined> {
    if (!SHAPE.test(token)) return undefined;
    const opened = openWithKey(await this.secrets.srpSecret(), context(saasId), Buffer.from(token.slice(PREFIX.length), 'base64url'));
    if (opened === undefined) return undefined;
    const [userId, sessionVersion, authTime, expiresAt] = JSON.parse(opened) as [string, number, number, number];
    return expiresAt > nowSeconds() ? { userId, sessionVersion, authTime, expiresAt } : undefined;
  }
}
