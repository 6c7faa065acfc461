/** What `npm start`, the admin command and the tests share about local mode: files in `.data/` and the environment. */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { resetClientsForTests } from '../shared/wiring.js';
import { resetSesClientsForTests } from '../shared/adapters/mail/clients.js';
import { resetConfigForTests } from '../shared/config.js';
import { ensureTable } from '../shared/store/table.js';
import type { SecretBox } from '../shared/crypto/secret-box.js';
import { sdkBaseUrls, type LocalCredentials } from './credentials-file.js';
import { createSaasAccount, findActiveApiKey, issueApiKey, type AccountRepository } from '../shared/domain/accounts/accounts.js';

export const LOCAL_TABLE = 'tenant-identity-local';
export const LOCAL_REGION = 'us-east-1';

/** The secret box's local master key: made once, kept in `.data/`, never committed. */
export function masterKey(dataDir: string): string {
  const file = join(dataDir, 'master.key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600 });
  }
  return readFileSync(file, 'utf8').trim();
}

export interface LocalEndpoints {
  dynamoUrl: string;
  sesUrl?: string;
  tableName?: string;
  accessKeyId?: string;
  masterKey: string;
}

/** Points this process's service code at the local engines: the same settings the functions read on AWS. */
export function useLocalEngines(endpoints: LocalEndpoints): void {
  Object.assign(process.env, {
    TABLE_NAME: endpoints.tableName ?? LOCAL_TABLE,
    AWS_REGION: LOCAL_REGION,
    DYNAMODB_ENDPOINT: endpoints.dynamoUrl,
    AWS_ACCESS_KEY_ID: endpoints.accessKeyId ?? 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    LOCAL_MASTER_KEY: endpoints.masterKey,
    // Local mode runs on the developer's Node; the SDK's notice about Node 20 support says nothing about us.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...(endpoints.sesUrl ? { SES_ENDPOINT: endpoints.sesUrl } : {}),
  });
  delete process.env.KMS_KEY_ID;
  resetConfigForTests();
  resetClientsForTests();
  resetSesClientsForTests();
}

/**
 * Points this process at a deployed stack's table and KMS key (`npm run admin -- --aws`). Settings are read
 * once, often while modules load: they are read again here, after the command line has set them.
 */
export function useAwsStore(store: { tableName: string; kmsKeyId: string; region?: string }): void {
  Object.assign(process.env, { TABLE_NAME: store.tableName, KMS_KEY_ID: store.kmsKeyId, ...(store.region ? { AWS_REGION: store.region } : {}) });
  delete process.env.LOCAL_MASTER_KEY;
  resetConfigForTests();
  resetClientsForTests();
}

export async function createLocalTable(dynamoUrl: string, tableName = LOCAL_TABLE, accessKeyId = 'local') {
  const client = new DynamoDBClient({
    region: LOCAL_REGION,
    endpoint: dynamoUrl,
    credentials: { accessKeyId, secretAccessKey: 'local' },
  });
  try {
    return await ensureTable(client, tableName);
  } finally {
    client.destroy();
  }
}

/** Where a running `npm start` is: the admin command talks to its DynamoDB Local instead of starting one. */
export const runtimeFile = (dataDir: string) => join(dataDir, 'runtime.json');

/** What runtime.json says of the `npm start` that holds a data folder. */
export interface RunningInstance {
  pid: number;
  dynamoUrl: string;
  apiPort: number;
  appPort: number;
  sesPort: number;
}

/** The `npm start` that holds `dataDir`, if its process is still alive (a crashed one leaves a stale file). */
export function runningInstance(dataDir: string): RunningInstance | undefined {
  const file = runtimeFile(dataDir);
  if (!existsSync(file)) return undefined;
  const running = JSON.parse(readFileSync(file, 'utf8')) as RunningInstance;
  try {
    process.kill(running.pid, 0);
    return running;
  } catch {
    return undefined;
  }
}

/**
 * The keys `npm start` hands out: the stored ones while their key is active; a new key for the same SaaS when
 * that one was revoked (the SaaS and its data stay); a new SaaS when there is none.
 */
export async function localCredentials(
  accounts: AccountRepository,
  box: SecretBox,
  stored: LocalCredentials | undefined,
  origin: string,
): Promise<{ credentials: LocalCredentials; made: 'nothing' | 'key' | 'saas' }> {
  if (stored && (await findActiveApiKey(accounts, box, stored.SAASUS_SAAS_ID, stored.SAASUS_API_KEY))) {
    return { credentials: { ...stored, ...sdkBaseUrls(origin) }, made: 'nothing' };
  }
  const existing = stored && (await accounts.getSaas(stored.SAASUS_SAAS_ID));
  const saasId = existing ? existing.id : (await createSaasAccount(accounts, 'My SaaS')).id;
  const key = await issueApiKey(accounts, box, saasId, ['*'], 'created by npm start');
  return {
    credentials: { SAASUS_SAAS_ID: saasId, SAASUS_API_KEY: key.apiKey, SAASUS_SECRET_KEY: key.secret, ...sdkBaseUrls(origin) },
    made: existing ? 'key' : 'saas',
  };
}
