/**
 * One AWS service that speaks the JSON protocol (DynamoDB, KMS), called without the AWS SDK's client stack:
 * requests signed with SigV4 (below) with the SDK's credential chain, sent
 * over kept-alive connections (http-connections.ts), and retried by the SDK's standard rule (three attempts; connection failures,
 * 5xx and throttling, with full-jitter exponential backoff, within a retry quota that an outage empties).
 *
 * Why: the SDK's client spent 2.4 ms of CPU on one DynamoDB GetItem in the sign-in benchmark (its middleware
 * stack, endpoint rules and schema-driven serialisation) where this spends 0.6 ms, and its code is 150 KB of
 * each function bundle (docs/decisions.md, decision 12). Services spoken rarely (SES, ACM, API Gateway) keep
 * the SDK.
 */
import { createHash, createHmac } from 'node:crypto';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { HttpConnections } from './http-connections.js';

type Json = Record<string, unknown>;

/** A service's answer other than success: `name` is its error type (ValidationException, …). */
export class AwsServiceError extends Error {
  constructor(
    name: string,
    message: string,
    readonly statusCode: number | undefined,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = name;
  }
}

/** Runs one call inside the caller's tracing, when there is any (observability.ts). */
export type CallTracer = <T>(operation: string, call: () => Promise<T>) => Promise<T>;

export interface AwsJsonServiceOptions {
  /** The signing name and endpoint prefix: 'dynamodb', 'kms'. */
  service: string;
  /** What X-Amz-Target names the operation under: 'DynamoDB_20120810', 'TrentService'. */
  targetPrefix: string;
  /** The protocol's version: DynamoDB speaks 1.0, KMS 1.1. */
  jsonVersion: '1.0' | '1.1';
  region: string;
  /** A local stand-in's URL; the region's public endpoint when absent. */
  endpoint?: string;
  credentials?: AwsCredentialIdentityProvider;
  maxAttempts?: number;
  /** How long one attempt may go without a byte from the service before it is abandoned (and retried). */
  attemptTimeoutMs?: number;
  /** The retry quota's tokens (500, the SDK's); tests make it small. */
  retryQuota?: number;
  /** Turns an error answer of this service into its error (DynamoDB's carry their items); `AwsServiceError` otherwise. */
  toError?: (statusCode: number, name: string, message: string, body: Json) => AwsServiceError | undefined;
  trace?: CallTracer;
}

const THROTTLING = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'LimitExceededException']);
// The SDK's standard retry strategy: full jitter over 100 ms × 2^attempt (500 ms for throttling), capped at 20 s.
const RETRY_BASE_MS = 100;
const THROTTLING_RETRY_BASE_MS = 500;
const MAX_RETRY_DELAY_MS = 20_000;
// Its retry quota: 500 tokens per client, 5 per retry (10 after a timeout), given back by successes.
const RETRY_QUOTA = 500;
const RETRY_COST = 5;
const TIMEOUT_RETRY_COST = 10;

const sha256Hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/**
 * AWS Signature Version 4 for one JSON-protocol POST to `/` (what every request here is), synchronous, with the
 * day's signing key kept until the date or the credentials change. Why not the SDK's @smithy/signature-v4: it
 * awaits a promise per hash and derives the signing key through its own cache on every request, about 50 µs of
 * CPU per store request of the sign-in benchmark where this takes a third of that (docs/proof.md). The same
 * canonical form: test/integration/dynamo-client.test.ts recomputes what arrived with the SDK's signer.
 */
export class JsonRequestSigner {
  private key?: { day: string; secret: string; value: Buffer };

  constructor(
    private readonly service: string,
    private readonly region: string,
  ) {}

  /** The request's headers, signed: `headers` (lower-case names) with X-Amz-Date, the session token and Authorization added. */
  sign(credentials: AwsCredentialIdentity, headers: Record<string, string>, body: string, at = new Date()): Record<string, string> {
    const amzDate = at
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    const day = amzDate.slice(0, 8);
    const signed: Record<string, string> = { ...headers, 'x-amz-date': amzDate };
    if (credentials.sessionToken) signed['x-amz-security-token'] = credentials.sessionToken;
    const names = Object.keys(signed).sort();
    const canonicalHeaders = names.map((name) => `${name}:${String(signed[name]).trim().replace(/\s+/g, ' ')}\n`).join('');
    const signedHeaders = names.join(';');
    const canonicalRequest = `POST\n/\n\n${canonicalHeaders}\n${signedHeaders}\n${sha256Hex(body)}`;
    const scope = `${day}/${this.region}/${this.service}/aws4_request`;
    const stringToSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${sha256Hex(canonicalRequest)}`;
    const signature = hmac(this.signingKey(credentials.secretAccessKey, day), stringToSign).toString('hex');
    signed.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
    return signed;
  }

  private signingKey(secret: string, day: string): Buffer {
    if (this.key?.day !== day || this.key.secret !== secret) {
      const value = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), this.region), this.service), 'aws4_request');
      this.key = { day, secret, value };
    }
    return this.key.value;
  }
}

export class AwsJsonService {
  private readonly url: URL;
  private readonly signer: JsonRequestSigner;
  private readonly credentials: AwsCredentialIdentityProvider;
  private readonly connections: HttpConnections;
  private readonly maxAttempts: number;
  private readonly attemptTimeoutMs: number;
  private readonly retryQuota: number;
  private retryTokens: number;

  constructor(private readonly options: AwsJsonServiceOptions) {
    const { service, region, endpoint } = options;
    this.url = new URL(endpoint ?? `https://${service}.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}`);
    // The SDK's defaults: connections kept alive between requests (and between warm invocations), 50 at most.
    this.connections = new HttpConnections(this.url, { maxSockets: 50 });
    this.signer = new JsonRequestSigner(service, region);
    this.credentials = options.credentials ?? defaultProvider();
    this.maxAttempts = options.maxAttempts ?? 3;
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? 5_000;
    this.retryQuota = options.retryQuota ?? RETRY_QUOTA;
    this.retryTokens = this.retryQuota;
  }

  /** The service's answer to `operation` with this input, as JSON. */
  call(operation: string, input: Json): Promise<Json> {
    const body = JSON.stringify(input);
    const call = () => this.withRetries(operation, body);
    return this.options.trace ? this.options.trace(operation, call) : call();
  }

  /** Closes the kept-alive connections (the local runner and tests, when they are done). */
  destroy(): void {
    this.connections.destroy();
  }

  private async withRetries(operation: string, body: string): Promise<Json> {
    let spent = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await this.attempt(operation, body);
        // A success refills the quota: what its retries took, or one token for a first-time success.
        this.retryTokens = Math.min(this.retryQuota, this.retryTokens + (spent > 0 ? spent : 1));
        return answer;
      } catch (error) {
        // A failure of the connection (reset, refused) has a system error code; nothing else is tried again.
        const retryable = error instanceof AwsServiceError ? error.retryable : typeof (error as { code?: unknown }).code === 'string';
        const cost = error instanceof AwsServiceError && error.name === 'TimeoutError' ? TIMEOUT_RETRY_COST : RETRY_COST;
        // An empty quota (a service down for everyone) fails at once instead of multiplying the load on it.
        if (!retryable || attempt >= this.maxAttempts || this.retryTokens < cost) throw error;
        this.retryTokens -= cost;
        spent += cost;
        const base = error instanceof AwsServiceError && THROTTLING.has(error.name) ? THROTTLING_RETRY_BASE_MS : RETRY_BASE_MS;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(MAX_RETRY_DELAY_MS, base * 2 ** attempt)));
      }
    }
  }

  private async attempt(operation: string, body: string): Promise<Json> {
    const headers = this.signer.sign(
      await this.credentials(),
      {
        host: this.url.host,
        'content-type': `application/x-amz-json-${this.options.jsonVersion}`,
        'x-amz-target': `${this.options.targetPrefix}.${operation}`,
        'content-length': String(Buffer.byteLength(body)),
      },
      body,
    );
    const { statusCode, body: text } = await this.connections.post(
      headers,
      body,
      this.attemptTimeoutMs,
      () => new AwsServiceError('TimeoutError', `${this.options.service} ${operation} sent nothing for ${this.attemptTimeoutMs} ms`, undefined, true),
    );
    let answer: Json;
    try {
      answer = JSON.parse(text) as Json;
    } catch {
      throw new AwsServiceError(
        'UnreadableAnswer',
        `${this.options.service} ${operation} answered ${statusCode} with a body that is not JSON`,
        statusCode,
        statusCode >= 500,
      );
    }
    if (statusCode === 200) return answer;
    const type = String(answer.__type ?? 'UnknownError');
    const name = type.slice(type.lastIndexOf('#') + 1);
    const message = String(answer.message ?? answer.Message ?? `${this.options.service} answered ${statusCode}`);
    throw (
      this.options.toError?.(statusCode, name, message, answer) ??
      new AwsServiceError(name, message, statusCode, statusCode >= 500 || THROTTLING.has(name))
    );
  }
}
