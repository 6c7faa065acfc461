/** The DynamoDB document client and the secret box, built once per cold start. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { config } from '../config.js';
import { KmsSecretBox, LocalSecretBox, type SecretBox } from '../crypto/secret-box.js';
import { traced } from '../observability.js';

let documentClient: DynamoDBDocumentClient | undefined;
let secretBox: SecretBox | undefined;

export function dynamo(): DynamoDBDocumentClient {
  if (!documentClient) {
    const { region, dynamoEndpoint } = config();
    const client = traced(
      new DynamoDBClient({
        region,
        ...(dynamoEndpoint ? { endpoint: dynamoEndpoint } : {}),
        // Fail fast enough for an API answer; the SDK's standard retry still covers throttling.
        maxAttempts: 3,
      }),
    );
    documentClient = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true },
    });
  }
  return documentClient;
}

export function secrets(): SecretBox {
  if (!secretBox) {
    const { kmsKeyId, localMasterKey, region } = config();
    if (kmsKeyId) secretBox = new KmsSecretBox(traced(new KMSClient({ region })), kmsKeyId);
    else if (localMasterKey) secretBox = new LocalSecretBox(localMasterKey);
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
  documentClient = undefined;
  secretBox = undefined;
}
