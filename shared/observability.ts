/**
 * What every function does around each invocation: a log scope for its ids, an X-Ray subsegment when
 * tracing is on, and one flush of the business metrics at the end, whatever happened.
 */
import type { Context } from 'aws-lambda';
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { config } from './config.js';
import { inLogScope, SERVICE_NAME } from './log.js';
import { metrics } from './metrics.js';

/**
 * Loaded only when tracing is on (TRACING_ENABLED, set by the stack's `tracing` prop): the X-Ray SDK adds
 * start-up time that a function without tracing should not pay.
 */
const tracer: Tracer | undefined = config().tracingEnabled
  ? new (await import('@aws-lambda-powertools/tracer')).Tracer({ serviceName: SERVICE_NAME })
  : undefined;

/** An AWS SDK v3 client whose calls appear in the trace when tracing is on; the client itself otherwise. */
export function traced<T>(client: T): T {
  return tracer ? tracer.captureAWSv3Client(client) : client;
}

/**
 * One subsegment per invocation. Unlike Powertools' handler wrappers it never records the response as
 * metadata: answers carry tokens and secrets shown once.
 */
async function inSubsegment<R>(run: () => Promise<R>): Promise<R> {
  const invocation = tracer?.getSegment();
  if (!tracer || !invocation) return run();
  const handler = invocation.addNewSubsegment('## handler');
  tracer.setSegment(handler);
  tracer.annotateColdStart();
  tracer.addServiceNameAnnotation();
  try {
    return await run();
  } catch (error) {
    tracer.addErrorAsMetadata(error as Error);
    throw error;
  } finally {
    handler.close();
    tracer.setSegment(invocation);
  }
}

/** Wraps a Lambda handler: its log lines carry the invocation's id, and its metrics are flushed once. */
export function observed<E, R>(handler: (event: E, context: Context) => Promise<R>): (event: E, context: Context) => Promise<R> {
  return (event, context) =>
    inLogScope({ invocationId: context?.awsRequestId }, async () => {
      try {
        return await inSubsegment(() => handler(event, context));
      } finally {
        metrics.flush();
      }
    });
}
