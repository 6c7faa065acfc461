/** The DynamoDB client and the secret box, built once per cold start. */
import { config } from '../config.js';
import { KmsDataKeys } from '../adapters/aws/kms.js';
import { KmsSecretBox, LocalSecretBox, type SecretBox } from '../crypto/secret-box.js';
import type { CallTracer } from '../adapters/aws/json-service.js';
import { traceAwsCall } from '../observability.js';
import { DynamoClient } from './dynamo-client.js';

let client: DynamoClient | undefined;
let secretBox: SecretBox | undefined;

export function dynamo(): DynamoClient {
  if (!client) {
    const { region, dynamoEndpoint } = config();
    client = new DynamoClient({
      region,
      ...(dynamoEndpoint ? { endpoint: dynamoEndpoint } : {}),
      // Fail fast enough for an API answer; the standard retry still covers throttling.
      maxAttempts: 3,
      trace: (operation, table, call) => traceAwsCall('DynamoDB', operation, table, call),
    });
  }
  return client;
}

export function secrets(): SecretBox {
  if (!secretBox) {
    const { kmsKeyId, localMasterKey, region } = config();
    if (kmsKeyId) {
      const trace: CallTracer = (operation, call) => traceAwsCall('KMS', operation, undefined, call);
      secretBox = new KmsSecretBox(new KmsDataKeys(kmsKeyId, { region, trace }));
    } else if (localMasterKey) secretBox = new LocalSecretBox(localMasterKey);
    else throw new Error('set KMS_KEY_ID (AWS) or LOCAL_MASTER_KEY (local mode) to store secrets');
  }
  return secretBox;
}

export function tableName(): string {
  const name = config().tableName;
  if (!name) throw new Error('environment variable TABLE_NAME is required');
  return name;
}

/** The local runner and tests point the same process at another table or engine. */
export function resetClientsForTests(): void {
  client?.destroy();
  client = undefined;
  secretBox = undefined;
}
