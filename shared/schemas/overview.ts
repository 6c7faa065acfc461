/**
 * Two aggregate reads of a SaaS (our extensions; SaaSus has none), made for the console's overview and open to
 * any signed caller: the sign-ins, refused proofs and lockouts per UTC day (GET /sign-in-counts), and the mails
 * waiting in the outbox (GET /mail-backlog).
 */
import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';

/** How many days GET /sign-in-counts answers at most: the API log's default retention, which keeps the counts. */
export const SIGN_IN_COUNT_DAYS_MAX = 90;
export const SIGN_IN_COUNT_DAYS_DEFAULT = 14;

export const SignInCountDay = Type.Object(
  {
    day: Type.String({ description: 'the UTC day, YYYY-MM-DD' }),
    sign_in_succeeded: Type.Integer({ minimum: 0, description: 'sign-ins that succeeded (password, passkey or federated; a refresh is none)' }),
    sign_in_failed: Type.Integer({ minimum: 0, description: 'refused proofs: a wrong password or MFA code' }),
    locked_out: Type.Integer({ minimum: 0, description: 'refusals that locked an account' }),
  },
  { $id: 'SignInCountDay' },
);
export type SignInCountDay = Static<typeof SignInCountDay>;

export const SignInCountsQuery = Type.Object({
  days: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: SIGN_IN_COUNT_DAYS_MAX,
      description: `how many UTC days up to today (today included): 1 to ${SIGN_IN_COUNT_DAYS_MAX}, default ${SIGN_IN_COUNT_DAYS_DEFAULT}`,
    }),
  ),
});
export type SignInCountsQuery = Static<typeof SignInCountsQuery>;

export const SignInCounts = Type.Object(
  { days: Type.Array(SignInCountDay, { description: 'every day asked for, oldest first; a day without sign-ins counts zeros' }) },
  { $id: 'SignInCounts' },
);
export type SignInCounts = Static<typeof SignInCounts>;

export const MailBacklog = Type.Object(
  {
    waiting: Type.Integer({
      minimum: 0,
      description: 'mails not sent or given up yet: due + sending + scheduled (when complete is false, the first 10 000 that come due)',
    }),
    due: Type.Integer({ minimum: 0, description: 'waiting to be sent now (new ones, retries whose time came, attempts that stalled)' }),
    sending: Type.Integer({ minimum: 0, description: 'being sent right now' }),
    scheduled: Type.Integer({ minimum: 0, description: 'failed before and waiting for a later attempt' }),
    oldest_created_at: Type.Optional(Type.Integer({ description: 'Unix seconds: when the oldest waiting mail was made; absent with none waiting' })),
    oldest_age_seconds: Type.Optional(Type.Integer({ minimum: 0, description: 'how long the oldest waiting mail has waited' })),
    complete: Type.Boolean({
      description: 'false when more mails wait than one answer reads (10 000): the figures are of those that come due first, waiting a lower bound',
    }),
  },
  { $id: 'MailBacklog' },
);
export type MailBacklog = Static<typeof MailBacklog>;

export const overviewSchemas = {
  getSignInCounts: { query: SignInCountsQuery, response: SignInCounts },
  getMailBacklog: { response: MailBacklog },
};
