/**
 * Business metrics as CloudWatch embedded metrics (Powertools Metrics): counted during an invocation and
 * written as one EMF line when it ends (Powertools' logMetrics, in shared/observability.ts). Off locally and in tests, where
 * nobody reads them, so stdout stays quiet. `metrics.count('SignInSucceeded')` is the whole API.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { metricsEnabled } from './config.js';
import { logger, SERVICE_NAME } from './log.js';

export const METRICS_NAMESPACE = 'TenantIdentity';
/** The one dimension every business metric carries (Powertools adds it from the service name). */
export const METRICS_DIMENSIONS = { service: SERVICE_NAME } as const;

/** Every business metric, with the line that explains it on the dashboard. */
export const BUSINESS_METRICS = {
  SignInSucceeded: 'sign-ins that ended with tokens',
  SignInFailed: 'sign-ins refused: wrong password, bad proof, unknown user',
  SignInLockedOut: 'sign-ins refused because the user is locked out',
  MfaChallengeIssued: 'MFA challenges sent (software token or e-mail code)',
  MailSent: 'mails SES accepted',
  MailFailed: 'mails given up: rejected, suppressed or out of attempts',
  MailRetried: 'mails deferred for a later attempt (throttling, SES 5xx)',
  MailSuppressed: 'mails not sent because the address bounced or complained before',
  MailBounced: 'permanent bounces reported by SES (the address is suppressed)',
  MailComplained: 'complaints reported by SES (the address is suppressed)',
  MailBacklog: 'mails not yet final when the scheduled worker ran (pending, deferred or being sent)',
  PlanReservationsApplied: 'reserved plan changes applied when due',
  StoredSettingUnusable:
    'stored setting values left out of a page or answer because they cannot be used (an old row, imported data): the log names each',
  EventDeliveryRetried: 'event deliveries that failed and wait for another attempt (docs/events.md)',
  EventDeliveryFailed: 'event deliveries given up after every retry (three days and more of failing)',
  ApiLogWriteFailed: 'API log batches the writer could not write (delivered again; a call whose record could not be told counts here too)',
  BreachedRangeUnreachable:
    'new passwords the breached-password range service could not check (timeout, error, not 200): the bundled list alone decided',
} as const;
export type MetricName = keyof typeof BUSINESS_METRICS;

let sink: Metrics | undefined;
let enabled: boolean | undefined;

/** Powertools' own warning when an invocation counted nothing: most do, so it is a debug line here. */
const quietEmpty = {
  debug: (...args: unknown[]) => logger.debug(String(args[0])),
  info: (...args: unknown[]) => logger.info(String(args[0])),
  warn: (...args: unknown[]) => (String(args[0]).startsWith('No application metrics') ? logger.debug(String(args[0])) : logger.warn(String(args[0]))),
  error: (...args: unknown[]) => logger.error(String(args[0])),
};

/**
 * The EMF sink when metrics are on (METRICS_ENABLED, set by the stack); observability.ts publishes it per
 * invocation. The domain counts from deep inside its services, where no constructor passes a setting, so this
 * module reads its one switch itself (docs/decisions.md, "Settings and secrets").
 */
export function metricsSink(): Metrics | undefined {
  enabled ??= metricsEnabled();
  if (!sink && enabled) sink = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME, logger: quietEmpty });
  return sink;
}

export const metrics = {
  count(name: MetricName, value = 1): void {
    metricsSink()?.addMetric(name, MetricUnit.Count, value);
  },
};

/** Tests that read the EMF output start a fresh sink after turning METRICS_ENABLED on. */
export function resetMetricsForTests(): void {
  sink = undefined;
  enabled = undefined;
}
