/** `npm run admin`: SaaS accounts and API keys made by the command work against the API at once. */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SignedClient } from '../../client/signed-fetch.js';
import { LOCAL_REGION, masterKey } from '../../local/runtime.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { config } from '../../shared/config.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import type { ImportJob } from '../../shared/schemas/migration.js';

const exec = promisify(execFile);
let h: Harness;
const dataDir = mkdtempSync(join(tmpdir(), 'admin-test-'));
const table = `admin-${process.pid}`;

// The command opens DynamoDB Local with the local access key; this file's table name keeps it apart.
beforeAll(async () => {
  h = await startHarness({ accessKeyId: 'local', tableName: table, masterKey: masterKey(dataDir) });
});
afterAll(async () => {
  await h.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function admin(...args: string[]): Promise<unknown> {
  const { stdout } = await exec(
    process.execPath,
    ['scripts/cli.mjs', 'admin', ...args, '--endpoint', h.dynamoUrl, '--table', table, '--data-dir', dataDir],
    { env: { ...process.env, LOG_LEVEL: 'silent' } },
  );
  return JSON.parse(stdout);
}

/** This process's environment without what the harness set for itself: as an operator's shell has it. */
function shellEnvironment(): NodeJS.ProcessEnv {
  const { TABLE_NAME: _table, KMS_KEY_ID: _kms, LOCAL_MASTER_KEY: _master, AWS_REGION: _region, ...env } = process.env;
  return env;
}

async function adminFails(...args: string[]): Promise<string> {
  try {
    await admin(...args);
  } catch (error) {
    return (error as { stderr: string }).stderr;
  }
  assert.fail(`admin ${args.join(' ')} should have failed`);
}

describe('admin command', () => {
  it('with --aws, applies --table, --kms-key-id and --region before anything reads the settings', async () => {
    const saas = await h.newSaas();
    // The deployed store, played by this file's table in DynamoDB Local (the SDK's endpoint and credentials
    // come from the environment, as they would from an AWS profile; DynamoDB Local keeps a database per region).
    const { stdout } = await exec(
      process.execPath,
      [
        'scripts/cli.mjs',
        'admin',
        'saas',
        'list',
        '--aws',
        '--table',
        table,
        '--kms-key-id',
        'arn:aws:kms:us-east-1:123456789012:key/test',
        '--region',
        LOCAL_REGION,
      ],
      {
        env: {
          ...shellEnvironment(),
          LOG_LEVEL: 'silent',
          DYNAMODB_ENDPOINT: h.dynamoUrl,
          AWS_ACCESS_KEY_ID: 'local',
          AWS_SECRET_ACCESS_KEY: 'local',
        },
      },
    );
    const listed = JSON.parse(stdout) as { id: string }[];
    assert.ok(
      listed.some((account) => account.id === saas.saasId),
      stdout,
    );
  });

  it('creates a SaaS and a key that signs requests, lists keys without secrets, and revokes them', async () => {
    const saas = (await admin('saas', 'create', '--name', 'Acme')) as { id: string; name: string; poolName: string };
    assert.equal(saas.name, 'Acme');
    assert.match(saas.poolName, /^[0-9A-Za-z]+$/);
    const listed = (await admin('saas', 'list')) as { id: string }[];
    assert.ok(listed.some((s) => s.id === saas.id));

    const key = (await admin('key', 'create', '--saas', saas.id, '--permissions', 'definition:read,tenant:*')) as {
      apiKey: string;
      secret: string;
      permissions: string[];
    };
    assert.deepEqual(key.permissions, ['definition:read', 'tenant:*']);
    const client = new SignedClient(h.api.baseUrl, { saasId: saas.id, apiKey: key.apiKey, secret: key.secret });
    assert.equal((await client.get('/roles')).status, 200);
    assert.equal((await client.post('/roles', { role_name: 'x', display_name: 'x' })).status, 403);

    const keys = (await admin('key', 'list', '--saas', saas.id)) as Record<string, unknown>[];
    assert.equal(keys.length, 1);
    assert.equal(keys[0]!.status, 'active');
    assert.ok(!JSON.stringify(keys).includes(key.secret), 'no secret in the listing');
    assert.ok(!('sealedSecret' in keys[0]!));

    await admin('key', 'revoke', '--saas', saas.id, '--key', key.apiKey);
    // Revoked by another process: every instance refuses it once its kept copy is API_KEY_CACHE_SECONDS old.
    setClockForTests(Date.now() + (config().apiKeyCacheSeconds + 1) * 1000);
    try {
      assert.equal((await client.get('/roles')).status, 401);
    } finally {
      resetClockForTests();
    }
    assert.equal(((await admin('key', 'list', '--saas', saas.id)) as { status: string }[])[0]!.status, 'revoked');
  });

  it('refuses unknown permissions, unknown SaaS ids and unknown keys', async () => {
    const saas = (await admin('saas', 'create', '--name', 'Beta')) as { id: string };
    assert.match(await adminFails('key', 'create', '--saas', saas.id, '--permissions', 'root'), /unknown permission 'root'/);
    assert.match(await adminFails('key', 'create', '--saas', 'no-such-saas', '--permissions', '*'), /no SaaS/);
    assert.match(await adminFails('key', 'revoke', '--saas', saas.id, '--key', 'nokey'), /no API key/);
    assert.match(await adminFails('saas', 'create', '--name', '  '), /name/);
  });

  it('imports a file in its own process, with a progress bar, and shows the job and its failed rows', async () => {
    const { saasId } = await h.newSaas();
    const file = join(dataDir, 'users.jsonl');
    const rows = [
      { type: 'user', external_id: 'a', email: 'a@cli.example.test' },
      { type: 'user', external_id: 'b', email: 'not an address' },
    ];
    writeFileSync(file, rows.map((row) => JSON.stringify(row)).join('\n'));
    const { stdout, stderr } = await exec(
      process.execPath,
      ['scripts/cli.mjs', 'admin', 'import', file, '--saas', saasId, '--endpoint', h.dynamoUrl, '--table', table, '--data-dir', dataDir],
      { env: { ...process.env, LOG_LEVEL: 'silent' } },
    );
    const job = JSON.parse(stdout) as ImportJob;
    assert.deepEqual([job.state, job.imported, job.failed, job.errors?.[0]?.line], ['done', 1, 1, 2]);
    assert.match(stderr, /\[#+\] 2\/2 lines/);
    assert.deepEqual(await admin('import', 'show', '--saas', saasId, '--job', job.job_id), job);
    assert.deepEqual(
      ((await admin('import', 'list', '--saas', saasId)) as ImportJob[]).map((listed) => listed.job_id),
      [job.job_id],
    );
  });

  it('exports a SaaS as an import file, on stdout or into a file', async () => {
    const { saasId } = await h.newSaas();
    const file = join(dataDir, 'one.jsonl');
    writeFileSync(file, JSON.stringify({ type: 'user', external_id: 'x', email: 'x@cli.example.test' }));
    await admin('import', file, '--saas', saasId);
    const run = (...extra: string[]) =>
      exec(
        process.execPath,
        ['scripts/cli.mjs', 'admin', 'export', '--saas', saasId, ...extra, '--endpoint', h.dynamoUrl, '--table', table, '--data-dir', dataDir],
        { env: { ...process.env, LOG_LEVEL: 'silent' } },
      );
    const { stdout, stderr } = await run();
    const users = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; email?: string })
      .filter((row) => row.type === 'user');
    assert.deepEqual(
      users.map((row) => row.email),
      ['x@cli.example.test'],
    );
    assert.match(stderr, /^\d+ rows exported \(.*\b1 user\b.*\)$/m);
    const out = join(dataDir, 'export.jsonl');
    await run('--out', out);
    assert.equal(readFileSync(out, 'utf8'), stdout);
  });

  it('rotates the token signing key: a new one is current, the old one stays published', async () => {
    const first = (await admin('signing-key', 'rotate')) as { current: string };
    const second = (await admin('signing-key', 'rotate')) as { current: string };
    assert.notEqual(second.current, first.current);
    const listed = (await admin('signing-key', 'list')) as { kid: string; status: string; publishedUntil?: number }[];
    assert.equal(listed.find((k) => k.kid === second.current)?.status, 'current');
    const previous = listed.find((k) => k.kid === first.current);
    assert.equal(previous?.status, 'retired, still published');
    assert.ok((previous?.publishedUntil ?? 0) > Date.now() / 1000 + 3600);
    const jwks = (await (await fetch(`${h.api.baseUrl}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
    const published = jwks.keys.map((k) => k.kid);
    assert.ok(published.includes(first.current) && published.includes(second.current));
    assert.equal(published.length, listed.length, 'the first key, made by the first rotation, is retired and published too');
  });
});
