/**
 * What a CloudWatch Logs subscription filter hands a Lambda function: `awslogs.data`, base64 of gzip of a JSON
 * document whose `logEvents[].message` are the matching lines of one log stream. A CONTROL_MESSAGE (sent when the
 * subscription is made, to check that the function can be reached) carries no lines.
 */
import type { CloudWatchLogsDecodedData, CloudWatchLogsEvent } from 'aws-lambda';
import { gunzipSync } from 'node:zlib';

/** The delivered lines, in order. A payload that is not a subscription's throws: it is not ours to drop unseen. */
export function subscribedMessages(event: CloudWatchLogsEvent): string[] {
  const data = event?.awslogs?.data;
  if (typeof data !== 'string') throw new Error('not a CloudWatch Logs subscription event: awslogs.data is missing');
  const decoded = JSON.parse(gunzipSync(Buffer.from(data, 'base64')).toString('utf8')) as Partial<CloudWatchLogsDecodedData>;
  if (decoded.messageType === 'CONTROL_MESSAGE') return [];
  if (decoded.messageType !== 'DATA_MESSAGE' || !Array.isArray(decoded.logEvents)) {
    throw new Error(`not a CloudWatch Logs subscription payload (messageType ${String(decoded.messageType)})`);
  }
  return decoded.logEvents.flatMap((logEvent) => (typeof logEvent?.message === 'string' ? [logEvent.message] : []));
}
