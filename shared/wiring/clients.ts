/**
 * The wiring's clients: the one document client, the secret box and where SES is, each made once per cold start.
 * What belongs here: a client of an outside service that many nouns share, and its reset for the tests. The
 * wiring owns the settings and the secrets (docs/decisions.md, "Settings and secrets"): the store, the domain and
 * the adapters get what they need passed in and read no setting themselves.
 */
import { DynamoClient } from '../store/dynamo-client.js';
import { config } from '../config.js';
import { KmsDataKeys } from '../adapters/aws/kms.js';
import { KmsSecretBox, LocalSecretBox, type SecretBox } from '../crypto/secret-box.js';
import { traceAwsCall } from '../observability.js';
import { hostResolver, PublicFetcher } from '../http/public-fetch.js';
import { watchThrottling } from '../store/directory-shards.js';

let client: DynamoClient | undefined;
let box: SecretBox | undefined;

/**
 * How long one request to DynamoDB Local (an endpoint set: npm start, the tests) is waited for before it is sent
 * again. On AWS the client's 5 s fails fast enough for an API answer; DynamoDB Local on a busy machine answers
 * later now and then, and a conditional write that went through but was given up on is refused by its own
 * condition when sent again: a new SaaS's put failed ConditionalCheckFailed in the tests' set-up under load.
 */
export const LOCAL_ATTEMPT_TIMEOUT_MS = 60_000;

/** The document client every repository is built over, made once per cold start. */
export function dynamo(): DynamoClient {
  if (!client) {
    const { region, dynamoEndpoint } = config();
    client = new DynamoClient({
      region,
      ...(dynamoEndpoint ? { endpoint: dynamoEndpoint, attemptTimeoutMs: LOCAL_ATTEMPT_TIMEOUT_MS } : {}),
      // Fail fast enough for an API answer; the standard retry still covers throttling.
      maxAttempts: 3,
      trace: (operation, table, call) => traceAwsCall('DynamoDB', region, operation, table, call),
    });
    watchThrottling(client);
  }
  return client;
}

/** The one table; required by the store only, so table-less code paths run without TABLE_NAME. */
export function tableName(): string {
  const name = config().tableName;
  if (!name) throw new Error('environment variable TABLE_NAME is required');
  return name;
}

/** The envelope encryption of stored secrets (KMS on AWS, the local master key under npm start), made once per cold start. */
export function secretBox(): SecretBox {
  if (!box) {
    const { kmsKeyId, localMasterKey, region } = config();
    if (kmsKeyId) {
      box = new KmsSecretBox(
        new KmsDataKeys(kmsKeyId, { region, trace: (operation, call) => traceAwsCall('KMS', region, operation, undefined, call) }),
      );
    } else if (localMasterKey) box = new LocalSecretBox(localMasterKey);
    else throw new Error('set KMS_KEY_ID (AWS) or LOCAL_MASTER_KEY (local mode) to store secrets');
  }
  return box;
}

/** The local runner and tests point the same process at another table or engine. */
export function resetClientsForTests(): void {
  client?.destroy();
  client = undefined;
  box = undefined;
}

/** Where SES is (locally, the stand-in). */
export const sesSettings = () => ({ region: config().region, endpoint: config().sesEndpoint });

/**
 * A fetcher of URLs someone else chose (a webhook, a tenant's identity provider): https to public addresses only
 * on AWS; in local mode (DynamoDB Local: `npm start`, the tests) plain http to this machine too, so a receiver or a
 * provider on the laptop can be named. The one place that decides it, for every such fetcher.
 */
export const publicFetcher = (timeoutMs: number, maxBytes: number) =>
  new PublicFetcher({ resolve: hostResolver(), timeoutMs, maxBytes, loopback: config().dynamoEndpoint !== undefined });
