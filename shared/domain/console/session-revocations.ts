/**
 * Console sessions signed out before their end. A session is a sealed cookie (web/console/session.ts): a copy
 * of it would open until its idle end, so sign-out records the session's id, and every console request asks
 * whether its session's id was recorded. Kept until the session's absolute end, after which its cookie is
 * refused anyway.
 */
export interface SessionRevocations {
  /** Whether the session `sessionId` was signed out (a strongly consistent read: sign-out counts at once). */
  revoked(sessionId: string): Promise<boolean>;
  /** Records the sign-out, kept until `until` (Unix seconds, the session's absolute end). */
  revoke(sessionId: string, until: number): Promise<void>;
}
