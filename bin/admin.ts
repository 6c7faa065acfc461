/**
 * `npm run admin -- <command>`: SaaS accounts and API keys, on the local store or on AWS. USAGE below is what
 * `--help` prints: the commands, where they act, the permissions.
 */
import '../local/cli-errors.js';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { config, localRunnerConfig } from '../shared/config.js';
import { createSaasAccount, issueApiKey, revokeApiKey } from '../shared/domain/accounts/accounts.js';
import { DomainError } from '../shared/errors.js';
import { DynamoAccountRepository } from '../shared/store/account-repository.js';
import { DynamoKeyRepository } from '../shared/store/key-repository.js';
import { importService, keyStore, dynamo, secretBox, tableName } from '../shared/wiring.js';
import { importFile } from './import-command.js';
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
    job: { type: 'string' },
    'data-dir': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

// Every setting the service reads is checked now, as the service checks them when it starts: a bad one stops the
// command with its one line (local/cli-errors.ts) before it touches a store, whether or not the command needs it.
config();

const USAGE = `npm run admin -- <command>: SaaS accounts and API keys, on the local store or on AWS.

  saas create --name NAME            a new SaaS (prints its id)
  saas list
  key create --saas ID --permissions P[,P...] [--description TEXT]
                                     prints the API key and its secret, once
  key list --saas ID                 never shows secrets
  key revoke --saas ID --key KEY
  signing-key list                   the token signing keys: current, published (the JWKS), retired
  signing-key rotate                 a new key signs from now on; the old one verifies until its tokens
                                     expired (run with the deployment's TOKEN_LIFETIME_SECONDS if set)
  import FILE --saas ID              imports a JSON Lines file (docs/migration.md) in this process, with
                                     a progress bar; prints the job's report
  import list --saas ID              the SaaS's import jobs, newest first
  import show --saas ID --job JOB    one job's state, counts and failed rows (line and reason)

Where: local by default (the DynamoDB Local of a running \`npm start\`, or one started for the command on
\`.data/\`); \`--endpoint URL [--table NAME]\` for another DynamoDB endpoint; \`--aws --table NAME
--kms-key-id ARN [--region R]\` for a deployed stack, with AWS credentials found as the AWS CLI finds them.
Permissions: *, config:read, config:write, user:read, user:write, tenant:read, tenant:write,
definition:read, definition:write, sign-in, or AREA:* (e.g. tenant:*). migration:write (import and
export) is never part of *: name it.
`;

function usage(code: number): never {
  process.stdout.write(USAGE);
  process.exit(code);
}

function required(name: 'name' | 'saas' | 'key' | 'permissions' | 'job'): string {
  const value = values[name];
  if (!value) {
    process.stderr.write(`--${name} is required\n`);
    process.exit(2);
  }
  return value;
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

async function connect(): Promise<Engine | undefined> {
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
      case 'import list':
        print(await importService().list(required('saas')));
        break;
      case 'import show':
        print(await importService().get(required('saas'), required('job')));
        break;
      default:
        if (noun === 'import' && verb) {
          print(await importFile(required('saas'), verb));
          break;
        }
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
