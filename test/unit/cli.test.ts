/**
 * The command-line tools run from bundles that scripts/cli.mjs builds once and builds again when a source they
 * include changes; `npm run admin -- --aws` without credentials says where it looked, without a stack trace; and
 * `npm run proof -- --help` answers with its help instead of running the proof.
 * Each tool runs as a child process, as npm starts it.
 */
import { afterAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['scripts/cli.mjs', ...args], { env, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** Bundles of this file's own, apart from those the other test files' calls build meanwhile. */
const BUNDLE_DIR = `dist/cli-test-${process.pid}`;
const ADMIN_BUNDLE = `${BUNDLE_DIR}/admin/main.mjs`;

describe('command-line tools', () => {
  it('builds a bundle once, and again when a source it includes changes', async () => {
    const own = { ...process.env, CLI_BUNDLE_DIR: BUNDLE_DIR };
    const first = await cli(['admin', '--help'], own);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /saas create --name NAME/);
    const built = statSync(ADMIN_BUNDLE).mtimeMs;

    await cli(['admin', '--help'], own);
    assert.equal(statSync(ADMIN_BUNDLE).mtimeMs, built, 'an unchanged tool was built again');

    // A module admin reaches only through another (bin/admin.ts → local/cli-errors.ts), saved now.
    const now = new Date();
    utimesSync('local/cli-errors.ts', now, now);
    const again = await cli(['admin', '--help'], own);
    assert.equal(again.code, 0, again.stderr);
    assert.ok(statSync(ADMIN_BUNDLE).mtimeMs > built, 'a changed source did not rebuild the tool');
  });

  afterAll(() => rmSync(BUNDLE_DIR, { recursive: true, force: true }));

  it('refuses an unknown tool with the list of tools', async () => {
    const run = await cli(['nope']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /admin, sign, sign-in/);
  });

  it('answers proof --help with its help and exit 0, and an unknown option with the help and exit 2, without running the proof', async () => {
    const help = await cli(['proof', '--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^npm run proof: /);
    // The help and nothing after it: the proof would go on with its engines and its first phase.
    assert.match(help.stdout, /PROOF_WORKERS=N npm run proof +N concurrent clients \(8\)\n$/);
    const wrong = await cli(['proof', '--nope']);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /Unknown option '--nope'[\s\S]*npm run proof: /);
    assert.equal(wrong.stdout, '');
  });

  it('says which AWS credentials admin --aws looks for when there are none, and exits 1 without a stack trace', async () => {
    const home = mkdtempSync(join(tmpdir(), 'admin-home-'));
    try {
      // No AWS_* variable and a HOME without ~/.aws: nothing for the SDK's chain to find but an instance role,
      // which a test machine does not have.
      const run = await cli(['admin', 'saas', 'list', '--aws', '--table', 'T', '--kms-key-id', 'K', '--region', 'us-east-1'], {
        PATH: process.env.PATH,
        HOME: home,
      });
      assert.equal(run.code, 1, run.stderr);
      for (const named of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_PROFILE', '~/.aws/credentials', '~/.aws/config', 'SSO', 'instance']) {
        assert.ok(run.stderr.includes(named), `${named} not named in:\n${run.stderr}`);
      }
      assert.doesNotMatch(run.stderr, /^\s+at /m, 'a stack trace');
      assert.equal(run.stdout, '');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
