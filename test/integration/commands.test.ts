/** The commands a newcomer types answer a mistake in one line, not with a stack trace. */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../local/engines.js';
import { runtimeFile, type RunningInstance } from '../../local/runtime.js';
import { startHarness } from '../../dev-support/harness.js';

describe('npm run sign', () => {
  it('turns a refused connection into one line and exit code 1', async () => {
    const port = await freePort();
    const run = spawnSync(process.execPath, ['scripts/cli.mjs', 'sign', 'GET', '/roles'], {
      encoding: 'utf8',
      env: { ...process.env, SAASUS_SAAS_ID: 's', SAASUS_API_KEY: 'k', SAASUS_SECRET_KEY: 'x', SAASUS_API_URL_BASE: `http://127.0.0.1:${port}` },
    });
    assert.equal(run.status, 1);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr, `cannot reach http://127.0.0.1:${port}: nothing answers there: is \`npm start\` running?\n`);
  });
});

describe('a bad setting', () => {
  const TOKEN_ISSUER_LINE =
    'environment variable TOKEN_ISSUER must be an absolute URL without a trailing slash, such as https://auth.example.com/v1/auth\n';
  // npm run sign is a client of the API: the service's settings are not its own, the API's address is.
  const API_URL_LINE = 'environment variable SAASUS_API_URL_BASE must be an absolute http(s) URL, such as http://127.0.0.1:8080\n';
  for (const [command, args, setting, line] of [
    ['npm start', ['--import', 'tsx', 'bin/local.ts'], { TOKEN_ISSUER: 'not-a-url' }, TOKEN_ISSUER_LINE],
    ['npm run admin', ['scripts/cli.mjs', 'admin', 'saas', 'list'], { TOKEN_ISSUER: 'not-a-url' }, TOKEN_ISSUER_LINE],
    ['npm run sign', ['scripts/cli.mjs', 'sign', 'GET', '/roles'], { SAASUS_API_URL_BASE: 'not-a-url' }, API_URL_LINE],
  ] as const) {
    it(`stops ${command} with one line naming the variable`, () => {
      const run = spawnSync(process.execPath, args, {
        encoding: 'utf8',
        env: {
          ...process.env,
          SAASUS_SAAS_ID: 's',
          SAASUS_API_KEY: 'k',
          SAASUS_SECRET_KEY: 'x',
          SAASUS_API_URL_BASE: 'http://127.0.0.1:9',
          ...setting,
        },
      });
      assert.equal(run.status, 1, run.stderr);
      assert.equal(run.stderr, line);
    });
  }
});

describe('a second npm start on the same data folder', () => {
  it('names the running one and leaves it alone', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'second-start-'));
    try {
      // This test's own process plays the running npm start.
      const running: RunningInstance = { pid: process.pid, dynamoUrl: 'http://127.0.0.1:18000', apiPort: 18080, appPort: 18081, sesPort: 18005 };
      writeFileSync(runtimeFile(dataDir), JSON.stringify(running));
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'bin/local.ts'], { encoding: 'utf8', env: { ...process.env, DATA_DIR: dataDir } });
      assert.equal(run.status, 1, run.stderr);
      assert.match(
        run.stderr,
        new RegExp(`^npm start already runs on .*: pid ${process.pid}, API port 18080, example app 18081, DynamoDB Local http://127.0.0.1:18000`),
      );
      assert.equal(run.stderr.trim().split('\n').length, 1);
      assert.ok(existsSync(runtimeFile(dataDir)), 'the running one keeps its runtime file');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('npm start on a port another DynamoDB Local holds', () => {
  it('names the port and its variable instead of using the other one', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'taken-port-'));
    // This test's own server plays the engine another checkout left running.
    const holder = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    try {
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
        encoding: 'utf8',
        env: { ...process.env, DATA_DIR: dataDir, DYNAMODB_PORT: String(port), SES_PORT: String(await freePort()) },
      });
      assert.equal(run.status, 1, run.stderr);
      assert.equal(
        run.stderr,
        `npm start failed: port ${port} is in use, so DynamoDB Local cannot start there: stop what holds it, or set DYNAMODB_PORT to a free port\n`,
      );
    } finally {
      await new Promise((resolve) => holder.close(resolve));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('npm start on a port fetch refuses', () => {
  it('names the port and its variable at once, instead of waiting 30 s for an engine nothing can reach', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bad-port-'));
    try {
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
        encoding: 'utf8',
        env: { ...process.env, DATA_DIR: dataDir, DYNAMODB_PORT: '6000' },
      });
      assert.equal(run.status, 1, run.stderr);
      assert.equal(
        run.stderr,
        "environment variable DYNAMODB_PORT is 6000, a port that fetch refuses to connect to (Node's and browsers', the Fetch standard's bad ports), so nothing could reach DynamoDB Local there: set DYNAMODB_PORT to another port, such as 8000\n",
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('npm start without Java', () => {
  it('says what to install, and leaves no mail stand-in running', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'no-java-'));
    const [sesPort, apiPort, appPort, dynamoPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    try {
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
        encoding: 'utf8',
        // No java on the PATH; node itself is called by its full path.
        env: {
          ...process.env,
          PATH: '/nonexistent',
          DATA_DIR: dataDir,
          SES_PORT: String(sesPort),
          PORT: String(apiPort),
          APP_PORT: String(appPort),
          DYNAMODB_PORT: String(dynamoPort),
        },
        timeout: 60_000,
      });
      assert.equal(run.status, 1, run.stderr);
      assert.match(run.stderr, /^npm start failed: Java is missing: DynamoDB Local needs a Java 17\+ runtime/);
      // A stand-in left behind would be listening within a few seconds (it starts in about one).
      for (let i = 0; i < 6; i++) {
        const answered = await fetch(`http://127.0.0.1:${sesPort}/store`).then(
          () => true,
          () => false,
        );
        assert.equal(answered, false, 'the mail stand-in was stopped');
        await new Promise((r) => setTimeout(r, 500));
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('npm run sign-in', () => {
  it("prints a user's tokens, which the API takes", async () => {
    const h = await startHarness();
    try {
      const saas = await h.newSaas();
      assert.equal((await saas.client.post('/users', { email: 'cli@example.test', password: 'Correct-horse-9' })).status, 201);
      const env = {
        ...process.env,
        SAASUS_SAAS_ID: saas.saasId,
        SAASUS_API_KEY: saas.apiKey,
        SAASUS_SECRET_KEY: saas.secret,
        SAASUS_API_URL_BASE: new URL(h.api.baseUrl).origin,
      };
      const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['scripts/cli.mjs', 'sign-in', 'cli@example.test', 'Correct-horse-9'], { env });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.on('exit', (status) => resolve({ status, stdout, stderr }));
      });
      assert.equal(run.status, 0, run.stderr);
      const tokens = JSON.parse(run.stdout) as { id_token: string; access_token: string; refresh_token: string };
      const info = await saas.client.get<{ email: string }>(`/userinfo?token=${encodeURIComponent(tokens.id_token)}`);
      assert.equal(info.status, 200, info.text);
      assert.equal(info.body.email, 'cli@example.test');
    } finally {
      await h.close();
    }
  });
});
