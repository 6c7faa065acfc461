/**
 * The API log: the line sink each function tells its records, events and counted sign-ins to, the writer that
 * stores them, and the reads (/v1/apilog, GET /sign-in-counts). What belongs here: anything that writes or reads the
 * shipped lines (shared/domain/apilog/shipped-lines.ts).
 */
import type { CloudWatchLogsEvent } from 'aws-lambda';
import { nowMillis, nowSeconds } from '../clock.js';
import { log } from '../log.js';
import { metrics } from '../metrics.js';
import type { CallRecorder } from '../http/pipeline.js';
import { subscribedMessages } from '../adapters/aws/log-subscription.js';
import { apiLogRecord, ApiLogService, redactedReferer } from '../domain/apilog/api-log.js';
import { apiCallEvent, type ApiEvent } from '../domain/integration/api-events.js';
import { EventRecorder } from '../domain/integration/event-delivery.js';
import { apiLogLine, eventLine, pageViewLine, readShippedLines, ShippedLineWriter, signInLine } from '../domain/apilog/shipped-lines.js';
import { requestOrigin } from '../request-origin.js';
import type { ActivityEvent } from '../domain/users/activity.js';
import { DailySignIns } from '../domain/users/daily-sign-ins.js';
import { isCountedKind } from '../domain/users/sign-in-counts.js';
import { cursors } from './keys.js';
import { ActiveUserMarker, KnownMarks } from '../domain/analysis/active-users.js';
import { PageViews } from '../domain/analysis/page-views.js';
import {
  analysisRepository,
  apiLogRepository,
  apiLogRetentionSeconds,
  eventRepository,
  signInCountsRepository,
  userRepository,
} from './repositories.js';

/** Where each line for the API log writer goes (shared/domain/apilog/shipped-lines.ts). */
export type LineSink = (line: string) => void | Promise<void>;
/**
 * On Lambda, stdout: the runtime hands it to the function's log group with no request of the function's, and the
 * log group's subscription filter delivers the lines to the writer function (lib/service-stack.ts). A write to
 * stdout (a pipe) is synchronous, so a line is out before the function answers and is frozen.
 */
const toStdout: LineSink = (line) => {
  process.stdout.write(`${line}\n`);
};
let lineSink: LineSink = toStdout;

/** Sends the lines to `sink` from now on (local/server.ts: its in-process sink; undefined: stdout); answers the one replaced. */
export function sendShippedLinesTo(sink: LineSink | undefined): LineSink {
  const replaced = lineSink;
  lineSink = sink ?? toStdout;
  return replaced;
}

/**
 * The API log's record of a signed call (shared/domain/apilog), and a changing call's event beside it
 * (shared/domain/integration, docs/events.md), told as lines: no store request on the call's path.
 */
export const recordApiCall: CallRecorder = (call) => {
  const record = apiLogRecord(call, apiLogRetentionSeconds());
  const event = apiCallEvent(call, record.id, record.expiresAt);
  const told = [lineSink(apiLogLine(record)), event && lineSink(eventLine(event))];
  return told.some((t) => t instanceof Promise) ? Promise.all(told).then(() => undefined) : undefined;
};

/**
 * The page a SaaS's user called GetUserInfo from (the request's X-SaaSus-Referer or Referer), told as a line for
 * their page histories (shared/domain/analysis/page-views.ts): no store request on the call's path.
 */
export const tellPageView = (saasId: string, userId: string) => {
  const page = redactedReferer(requestOrigin().referer);
  if (page) void lineSink(pageViewLine(saasId, userId, nowSeconds(), page));
};

/** An event told as the calls' events are (the Integration API's test and own events). */
export const tellEvent = (event: ApiEvent) => lineSink(eventLine(event));

/**
 * A sign-in outcome whose write committed, told as a line when it counts SaaS-wide (sign-in-counts.ts); a success
 * with its user, who is then active that day and whose directory entry the writer gives its time.
 */
export const countSignIn = (saasId: string, event: ActivityEvent, userId: string) => {
  if (isCountedKind(event.kind)) void lineSink(signInLine(saasId, event.kind, event.at, event.kind === 'sign_in_succeeded' ? userId : undefined));
};

/** The active users' marks this process has written or found (a warm writer function's, or `npm start`'s), across batches. */
const knownActiveMarks = new KnownMarks();

/**
 * The API log writer (shared/domain/apilog/shipped-lines.ts): log lines in, records and sign-in counts written, the
 * other lines left alone. The local sink (local/line-sink.ts) calls it as the writer function does.
 */
export async function writeShippedLines(messages: readonly string[]): Promise<{ records: number; countWrites: number; events: number }> {
  const writer = new ShippedLineWriter({
    logs: apiLogRepository(),
    counts: signInCountsRepository(),
    events: new EventRecorder({ events: eventRepository() }),
    active: new ActiveUserMarker(analysisRepository(), apiLogRetentionSeconds(), knownActiveMarks),
    lastSignIns: userRepository(),
    pages: new PageViews(analysisRepository()),
  });
  try {
    return await writer.write(readShippedLines(messages));
  } catch (error) {
    metrics.count('ApiLogWriteFailed');
    log.error('API log writer: a batch was not written (it is delivered again)', error, { lines: messages.length });
    throw error;
  }
}

/** The writer function's work (functions/apilog-writer): one delivery of the log groups' subscription. */
export const writeSubscribedLogs = (event: CloudWatchLogsEvent) => writeShippedLines(subscribedMessages(event));
/** GET /sign-in-counts: the daily sign-in counts, every day answered. */
export const dailySignIns = () => new DailySignIns(signInCountsRepository());

/** The ApiLog API's reads (/v1/apilog). */
export const apiLogService = () =>
  new ApiLogService({
    logs: apiLogRepository(),
    cursors: cursors(),
    retentionSeconds: apiLogRetentionSeconds(),
    now: nowMillis,
  });
