/**
 * A user's security activity (our extension, GET /users/{user_id}/activity): sign-ins, refused proofs,
 * lockouts, password and MFA changes. Each event says when, what, and the request's source IP and user agent
 * when it had them; never a password, code, token or secret.
 *
 * The events live on the user's profile item, one attribute each (shared/store/keys.ts, activityAttribute),
 * so recording one rides on the write the action makes anyway: a sign-in stays at its three store requests
 * (test/integration/store-requests.test.ts), a refused proof at its one lockout write. The price is the
 * profile's size: at most `keep` events (oldest dropped first) and none older than the retention are kept,
 * each dropped by the next write that records one; reads leave out the expired ones meanwhile.
 */
import { randomBytes } from 'node:crypto';
import { nowMillis } from '../../clock.js';
import { requestOrigin } from '../../request-origin.js';
import type { ACTIVITY_KINDS } from '../../schemas/users.js';

export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/**
 * How a sign-in proved who it was. A refresh is not a sign-in: it continues one and is not recorded. `password`:
 * checked on the server (USER_PASSWORD_AUTH, an imported user's first sign-in), where `srp` never sees it.
 */
export type SignInMethod = 'srp' | 'password' | 'federated' | 'passkey';

export interface ActivityEvent {
  /** Unix milliseconds, then random: unique, and sorting as the events happened. */
  id: string;
  kind: ActivityKind;
  /** Unix seconds. */
  at: number;
  method?: SignInMethod;
  /** The identity provider of a federated sign-in (`Google`, or a SAML/OIDC provider's name). */
  provider?: string;
  /** The code step a refusal was at (a wrong MFA code); a refused password has none. */
  challenge?: 'SOFTWARE_TOKEN_MFA' | 'EMAIL_OTP';
  source_ip?: string;
  user_agent?: string;
  /** Unix seconds past which the event is dropped (the API log's retention). */
  expires_at: number;
}

/** What a write that records an event does to the profile: adds it, drops expired and surplus ones. */
export interface ActivityChange {
  add: ActivityEvent;
  drop: string[];
}

export interface ActivitySettings {
  /** How long an event is kept: the API log's retention (APILOG_RETENTION_DAYS). */
  retentionSeconds: number;
  /** The most events one user keeps; bounds the profile item whatever the user does. */
  keep: number;
  /**
   * Told each event whose write committed (`settled`), to count it SaaS-wide (sign-in-counts.ts): off the
   * action's path, it costs the action no store request.
   */
  settled?: (saasId: string, event: ActivityEvent, userId: string) => void;
}

/**
 * The events one user keeps. An event is 130 B with an SDK's user agent, 245 B with a browser's, 315 B at most
 * (a 160-character agent, an IPv6 address): 20 of them add 2.6–6.3 KB to the profile (1.25 KB without), and where
 * a SaaS's profiles are its directory (made before decision 18), the index holds whole profiles, so each profile
 * write costs that twice (docs/deployment-shape.md).
 */
export const ACTIVITY_KEPT = 20;

/** Enough of a user agent to tell browsers and SDKs apart, not enough to grow the profile. */
const USER_AGENT_CHARS = 160;

const eventId = (atMillis: number) => `${String(atMillis).padStart(14, '0')}${randomBytes(3).toString('hex')}`;

/** Newest first. */
export const newestFirst = (events: readonly ActivityEvent[]) => [...events].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));

export class ActivityLog {
  constructor(private readonly settings: ActivitySettings) {}

  /** The change recording `kind` now, given the events the profile held when read (undefined: not read). */
  change(
    kind: ActivityKind,
    seen: readonly ActivityEvent[] | undefined,
    details: Pick<ActivityEvent, 'method' | 'provider' | 'challenge'> = {},
    atMillis = nowMillis(),
  ): ActivityChange {
    const at = Math.floor(atMillis / 1000);
    const origin = requestOrigin();
    const add: ActivityEvent = {
      id: eventId(atMillis),
      kind,
      at,
      ...details,
      ...(origin.sourceIp ? { source_ip: origin.sourceIp } : {}),
      ...(origin.userAgent ? { user_agent: origin.userAgent.slice(0, USER_AGENT_CHARS) } : {}),
      expires_at: at + this.settings.retentionSeconds,
    };
    const live = newestFirst((seen ?? []).filter((event) => event.expires_at > at));
    const kept = new Set(live.slice(0, this.settings.keep - 1).map((event) => event.id));
    return { add, drop: (seen ?? []).filter((event) => !kept.has(event.id)).map((event) => event.id) };
  }

  /**
   * Tells a change whose write committed (never before: an outcome whose write was refused counts nowhere); a
   * sign-in's success names its user, who is then active that day (shared/domain/analysis/active-users.ts).
   */
  settled(saasId: string, userId: string, change: ActivityChange | undefined): void {
    if (change) this.settings.settled?.(saasId, change.add, userId);
  }
}

/** The events still kept at `now` (Unix seconds), newest first. */
export const liveActivity = (events: readonly ActivityEvent[] | undefined, now: number) =>
  newestFirst((events ?? []).filter((event) => event.expires_at > now));
