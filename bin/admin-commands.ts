/**
 * The commands of `npm run admin` (bin/admin.ts reads the command line and imports this once a command is
 * whole): each opens the store it names, local or on AWS, acts, and closes it.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { localRunnerConfig } from '../shared/config.js';
import { createSaasAccount, issueApiKey, revokeApiKey } from '../shared/domain/accounts/accounts.js';
import { DomainError } from '../shared/errors.js';
import { DynamoAccountRepository } from '../shared/store/account-repository.js';
import { DynamoKeyRepository } from '../shared/store/key-repository.js';
import { importService, keyStore, dynamo, secretBox, tableName } from '../shared/wiring.js';
import { exportFile, importFile } from './import-command.js';
import { startDynamoLocal, type Engine } from '../local/engines.js';
import { LOCAL_TABLE, createLocalTable, masterKey, runtimeFile, useAwsStore, useLocalEngines } from '../local/runtime.js';

/** The options a command needs one of (bin/admin.ts checks them before importing this). */
export type Required = 'name' | 'saas' | 'key' | 'permissions' | 'job';

/** The command line's options, as bin/admin.ts reads them. */
export interface AdminOptions {
  name?: string | undefined;
  saas?: string | undefined;
  key?: string | undefined;
  permissions?: string | undefined;
  description: string;
  endpoint?: string | undefined;
  table?: string | undefined;
  aws: boolean;
  'kms-key-id'?: string | undefined;
  region?: string | undefined;
  job?: string | undefined;
  out?: string | undefined;
  'mail-set-password'?: boolean | undefined;
  'seal-key-file'?: string | undefined;
  'api-keys'?: boolean | undefined;
  'data-dir'?: string | undefined;
}

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

/**
 * Finds AWS credentials before the first call, so that none found is said once, with where they were looked for
 * (the SDK's default chain, in its order), instead of as the SDK's stack trace from deep inside a request.
 */
async function awsCredentials(): Promise<void> {
  const { defaultProvider } = await import('@aws-sdk/credential-provider-node');
  try {
    await defaultProvider()();
  } catch (error) {
    process.stderr.write(
      [
        '--aws found no AWS credentials. It looks where the AWS CLI and SDKs look, in this order:',
        '  - AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (with AWS_SESSION_TOKEN for temporary ones) in the environment;',
        '  - the profile AWS_PROFILE names (else "default") in ~/.aws/credentials and ~/.aws/config',
        '    (AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE move them): keys, a role to assume, credential_process,',
        '    or IAM Identity Center (SSO), after `aws sso login --profile NAME`;',
        '  - a web identity token (AWS_WEB_IDENTITY_TOKEN_FILE with AWS_ROLE_ARN);',
        '  - the role of the container (ECS) or of the EC2 instance it runs on.',
        `The SDK said: ${error instanceof Error ? error.message : String(error)}`,
        '',
      ].join('\n'),
    );
    process.exit(1);
  }
}

async function connect(values: AdminOptions): Promise<Engine | undefined> {
  if (values.aws) {
    if (!values.table || !values['kms-key-id']) {
      process.stderr.write('--aws needs --table (the stack output TableName) and --kms-key-id (the stack output KmsKeyArn)\n');
      process.exit(2);
    }
    useAwsStore({ tableName: values.table, kmsKeyId: values['kms-key-id'], ...(values.region ? { region: values.region } : {}) });
    await awsCredentials();
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
    // No `npm start` running: open the same data folder for this one command (DynamoDB Local quits, saying
    // nothing, when its folder does not exist: on a checkout where `npm start` never ran).
    mkdirSync(join(dataDir, 'dynamodb'), { recursive: true });
    engine = await startDynamoLocal({ port: localRunnerConfig().dynamoPort, dbPath: join(dataDir, 'dynamodb'), sharedDb: true });
    endpoint = engine.url;
  }
  useLocalEngines({ dynamoUrl: endpoint, masterKey: key, tableName: table });
  await createLocalTable(endpoint, table);
  return engine;
}

/** The seal key's text from --seal-key-file (a file, so the key is in no shell history or process list). */
const sealKeyText = (values: AdminOptions) => (values['seal-key-file'] ? readFileSync(values['seal-key-file'], 'utf8').trim() : undefined);

/** Runs a whole command (bin/admin.ts has checked its options), then closes what it opened. */
async function run(command: string, values: AdminOptions, file: string | undefined): Promise<void> {
  const required = (name: Required) => values[name] as string;
  const engine = await connect(values);
  try {
    const repo = new DynamoAccountRepository(dynamo(), tableName());
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
      case 'import list':
        print(await importService().list(required('saas')));
        break;
      case 'import show':
        print(await importService().get(required('saas'), required('job')));
        break;
      case 'import FILE':
        print(
          await importFile(required('saas'), file as string, {
            mail_set_password: values['mail-set-password'] === true,
            seal_key: sealKeyText(values),
          }),
        );
        break;
      case 'export':
        await exportFile(required('saas'), values.out, sealKeyText(values), values['api-keys'] === true);
        break;
      default:
        throw new Error(`no such command: ${command}`);
    }
  } finally {
    dynamo().destroy();
    await engine?.stop();
  }
}

/** Runs a command; `file` is the word after `import` for `import FILE`. */
export function runAdmin(command: string, values: AdminOptions, file?: string): Promise<void> {
  return run(command, values, file).catch((error: unknown) => {
    process.stderr.write(`${error instanceof DomainError ? error.message : error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
