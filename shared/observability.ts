/**
 * What every function does around each invocation: a log scope for its ids, an X-Ray subsegment when
 * tracing is on, and one flush of the business metrics at the end, whatever happened.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { tracingEnabled } from './config.js';
import { inLogScope, logger, refreshLogLevel, SERVICE_NAME } from './log.js';
import { inRequestOrigin, originOfEvent } from './request-origin.js';
import { metricsSink } from './metrics.js';

/**
 * Loaded only when tracing is on (TRACING_ENABLED, set by the stack's `tracing` prop): the X-Ray SDK adds
 * start-up time that a function without tracing should not pay. Decided while this module loads, before the
 * wiring has built anything, so it reads its one switch itself (docs/decisions.md, "Settings and secrets").
 */
const tracer: Tracer | undefined = tracingEnabled()
  ? new (await import('@aws-lambda-powertools/tracer')).Tracer({ serviceName: SERVICE_NAME })
  : undefined;
const tracing = tracer ? await captureLambdaHandler(tracer) : undefined;

/** Powertools' handler middleware, also loaded only with tracing on. */
async function captureLambdaHandler(on: Tracer) {
  return (await import('@aws-lambda-powertools/tracer/middleware')).captureLambdaHandler(on, { captureResponse: false });
}

/** An AWS SDK v3 client whose calls appear in the trace when tracing is on; the client itself otherwise. */
export function traced<T>(client: T): T {
  return tracer ? tracer.captureAWSv3Client(client) : client;
}

/**
 * A DynamoDB or KMS call of shared/adapters/aws/ (not an SDK client) in the trace, when tracing is on: one `aws`
 * subsegment per call, named and described as the SDK's capture names its own.
 */
export function traceAwsCall<T>(service: string, region: string, operation: string, table: string | undefined, call: () => Promise<T>): Promise<T> {
  const parent = tracer?.getSegment();
  if (!tracer || !parent) return call();
  const subsegment = parent.addNewSubsegment(service);
  subsegment.namespace = 'aws';
  subsegment.addAttribute('aws', { operation, region, ...(table ? { table_name: table } : {}) });
  tracer.setSegment(subsegment);
  return call().then(
    (result) => {
      subsegment.close();
      tracer.setSegment(parent);
      return result;
    },
    (error: unknown) => {
      subsegment.close(error as Error);
      tracer.setSegment(parent);
      throw error;
    },
  );
}

/**
 * Wraps a Lambda handler with Powertools: its log lines carry the invocation's id and the Lambda context
 * (`logger.addContext`: injectLambdaContext would also reset the log level each warm invocation, which tests
 * set), its business metrics go out as one EMF line with the cold-start metric (logMetrics), and, with tracing
 * on, one subsegment per invocation that never records the response (captureLambdaHandler with
 * captureResponse false: answers carry tokens and secrets shown once).
 */
export function observed<E, R>(handler: (event: E, context: Context) => Promise<R>): (event: E, context: Context) => Promise<R> {
  const wrapped = middy<E, R>(handler);
  const sink = metricsSink();
  if (sink) wrapped.use(logMetrics(sink, { captureColdStartMetric: true }));
  if (tracing) wrapped.use(tracing);
  return (event, context) =>
    inLogScope({ invocationId: context?.awsRequestId }, () =>
      inRequestOrigin(originOfEvent(event), () => {
        if (context?.functionName) logger.addContext(context);
        refreshLogLevel();
        return wrapped(event, context);
      }),
    );
}
