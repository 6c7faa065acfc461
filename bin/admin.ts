/**
 * `npm run admin -- <command>`: SaaS accounts and API keys, on the local store or on AWS.
 *
 *   saas create --name NAME            a new SaaS (prints its id)
 *   saas list
 *   key create --saas ID --permissions P[,P...] [--description TEXT]
 *                                      prints the API key and its secret, once
 *   key list --saas ID                 never shows secrets
 *   key revoke --saas ID --key KEY
 *   signing-key list                   the token signing keys: current, published (the JWKS), retired
 *   signing-key rotate                 a new key signs from now on; the old one verifies until its tokens
 *                                      expired (run with the deployment's TOKEN_LIFETIME_SECONDS if set)
 *
 * Where: local by default (the DynamoDB Local of a running `npm start`, or one started for the command on
 * `.data/`); `--endpoint URL [--table NAME]` for another DynamoDB endpoint; `--aws --table NAME
 * --kms-key-id ARN [--region R]` for a deployed stack, with the usual AWS credentials.
 * Permissions: *, config:read, config:write, user:read, user:write, tenant:read, tenant:write,
 * definition:read, definition:write, sign-in, or AREA:* (e.g. tenant:*).
 */
import '../local/cli-errors.js';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { localRunnerConfig } from '../shared/config.js';
import { createSaasAccount, issueApiKey, revokeApiKey } from '../shared/domain/accounts/accounts.js';
import { DomainError } from '../shared/errors.js';
import { DynamoAccountRepository } from '../shared/store/account-repository.js';
import { DynamoKeyRepository } from '../shared/store/key-repository.js';
import { keyStore, dynamo, secretBox, tableName } from '../shared/wiring.js';
import { startDynamoLocal, type Engine } from '../local/engines.js';
import { LOCAL_TABLE, createLocalTable, masterKey, runtimeFile, useAwsStore, useLocalEngines } from '../local/runtime.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    saas: { type: 'string' },
    key: { type: 'string' },
    permissions: { type: 'string' },
    description: { type: 'string', default: '' },
    endpoint: { type: 'string' },
    table: { type: 'string' },
    aws: { type: 'boolean', default: false },
    'kms-key-id': { type: 'string' },
    region: { type: 'string' },
    'data-dir': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

function usage(code: number): never {
  const doc = readFileSync(new URL(import.meta.url), 'utf8').split('*/')[0] ?? '';
  process.stdout.write(`${doc.replace(/^\/\*\*\n?/, '').replace(/^ \* ?/gm, '')}\n`);
  process.exit(code);
}

function required(name: 'name' | 'saas' | 'key' | 'permissions'): string {
  const value = values[name];
  if (!value) {
    process.stderr.write(`--${name} is required\n`);
    process.exit(2);
  }
  return value;
}

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

async function connect(): Promise<Engine | undefined> {
  if (values.aws) {
    if (!values.table || !values['kms-key-id']) {
      process.stderr.write('--aws needs --table (the stack output TableName) and --kms-key-id (the stack output KmsKeyArn)\n');
      process.exit(2);
    }
    useAwsStore({ tableName: values.table, kmsKeyId: values['kms-key-id'], ...(values.region ? { region: values.region } : {}) });
    return undefined;
  }
  const dataDir = resolve(values['data-dir'] ?? localRunnerConfig().dataDir);
  const key = masterKey(dataDir);
  const table = values.table ?? LOCAL_TABLE;
  let endpoint = values.endpoint;
  let engine: Engine | undefined;
  if (!endpoint && existsSync(runtimeFile(dataDir))) {
    const running = JSON.parse(readFileSync(runtimeFile(dataDir), 'utf8')) as { dynamoUrl: string };
    const alive = await fetch(running.dynamoUrl).then(
      () => true,
      () => false,
    );
    if (alive) endpoint = running.dynamoUrl;
  }
  if (!endpoint) {
    // No `npm start` running: open the same data folder for this one command.
    engine = await startDynamoLocal({ port: localRunnerConfig().dynamoPort, dbPath: join(dataDir, 'dynamodb'), sharedDb: true });
    endpoint = engine.url;
  }
  useLocalEngines({ dynamoUrl: endpoint, masterKey: key, tableName: table });
  await createLocalTable(endpoint, table);
  return engine;
}

async function run(): Promise<void> {
  const [noun, verb] = positionals;
  if (values.help || !noun) usage(values.help ? 0 : 2);
  const engine = await connect();
  try {
    const repo = new DynamoAccountRepository(dynamo(), tableName());
    const command = `${noun} ${verb ?? ''}`.trim();
    switch (command) {
      case 'saas create':
        print(await createSaasAccount(repo, required('name')));
        break;
      case 'saas list':
        print(await repo.listSaas());
        break;
      case 'key create': {
        const permissions = required('permissions')
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean);
        const issued = await issueApiKey(repo, secretBox(), required('saas'), permissions, values.description);
        print({ ...issued, note: 'The secret is shown once; store it now.' });
        break;
      }
      case 'key list':
        print(
          (await repo.listApiKeys(required('saas'))).map(({ sealedSecret: _sealed, ...key }) => ({
            ...key,
            status: key.revokedAt === undefined ? 'active' : 'revoked',
          })),
        );
        break;
      case 'key revoke':
        await revokeApiKey(repo, required('saas'), required('key'));
        print({ revoked: values.key });
        break;
      case 'signing-key list': {
        const { currentKid, keys } = await new DynamoKeyRepository(dynamo(), tableName()).signingKeys();
        const published = new Set((await keyStore().publishedKeys({ refresh: true })).map((k) => k.kid));
        print(
          keys.map(({ kid, createdAt, retiredAt, expiresAt }) => ({
            kid,
            createdAt,
            ...(retiredAt !== undefined ? { retiredAt, publishedUntil: expiresAt } : {}),
            status: kid === currentKid ? 'current' : published.has(kid) ? 'retired, still published' : 'retired',
          })),
        );
        break;
      }
      case 'signing-key rotate':
        print({ current: await keyStore().rotate() });
        break;
      default:
        process.stderr.write(`unknown command: ${command}\n`);
        usage(2);
    }
  } finally {
    dynamo().destroy();
    await engine?.stop();
  }
}

run().catch((error: unknown) => {
  process.stderr.write(`${error instanceof DomainError ? error.message : error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
