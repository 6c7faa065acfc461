/**
 * What the store keeps of refresh-token grants (docs/architecture.md, "Token revocation"). A grant is the
 * chain of tokens one sign-in started: its refresh token, and every ID and access token issued with it or
 * from it (they carry its id as `origin_jti`).
 *
 * - A grant record exists only once a grant is revoked, or for a rotating grant (OpenID Connect clients),
 *   where it holds the generation the chain is at. A refresh reads it beside the user's profile, in one request.
 * - Revoking also lists the grant on the user's profile for as long as the ID and access tokens issued before
 *   could live (their lifetime): the token check reads that profile anyway, so a revoked grant's tokens are
 *   refused with no extra read, and the list holds only the last hour's revocations.
 */
import type { UserRecord } from '../users/users.js';

export interface GrantRecord {
  revoked: boolean;
  /** Rotating grants: the generation of the one refresh token that may still be used. */
  generation?: number;
}

/** What a rotation attempt found. */
export type Advance = 'advanced' | 'reused' | 'revoked' | 'unknown';

/** An authorization code spent: its saved credentials, or the grant it issued when it was spent before. */
export type SpentCode<T> = { saved: T } | { replayed: { userId: string; grantId: string } } | undefined;

export interface GrantRepository {
  /** The live user (undefined when gone) and the grant's record (undefined when there is none), in one request. */
  userAndGrant(saasId: string, userId: string, grantId: string): Promise<{ user?: UserRecord; grant?: GrantRecord }>;
  /** Records a rotating grant at generation 0, kept until `expiresAt`; false when the id has a record (revoked by a code replay). */
  start(saasId: string, userId: string, grantId: string, expiresAt: number): Promise<boolean>;
  /** Moves a rotating grant from `generation` to the next, only when it is there and not revoked. */
  advance(saasId: string, userId: string, grantId: string, generation: number): Promise<Advance>;
  /**
   * Ends the grant: its record says revoked until `expiresAt`, and the user's profile lists it until
   * `tokensUntil`. Nothing happens for a user who is gone (their tokens died with them).
   */
  revoke(saasId: string, userId: string, grantId: string, expiresAt: number, tokensUntil: number, now: number): Promise<void>;
}

/**
 * OpenID Connect authorization codes, spent once (RFC 6749 section 4.1.2): a spent code keeps the grant it
 * issued until its item expires, so a second redemption can revoke what the first one issued.
 */
export interface AuthorizationCodeRepository<T> {
  spend(saasId: string, codeHash: string, now: number, grantId: string): Promise<SpentCode<T>>;
}
