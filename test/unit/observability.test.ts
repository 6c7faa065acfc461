/** Redaction by field name, the per-invocation log scope, and metrics staying silent unless enabled. */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { Context } from 'aws-lambda';
import { addToLogScope, isSensitiveName, log, redact, REDACTED, setLogLevel } from '../../shared/log.js';
import { spawn } from 'node:child_process';
import { metrics } from '../../shared/metrics.js';
import { observed } from '../../shared/observability.js';
import { stdoutOf } from '../support/stdout.js';

describe('redaction', () => {
  it('hides fields named like passwords, tokens, secrets, codes and SRP values, at any depth', () => {
    const sensitive = [
      'password',
      'NEW_PASSWORD',
      'secret',
      'secretKey',
      'application_secret',
      'token',
      'access_token',
      'refreshToken',
      'id-token',
      'code',
      'mfa_code',
      'confirmationCode',
      'verifier',
      'SRP_A',
      'srpB',
      'PASSWORD_CLAIM_SIGNATURE',
      'SECRET_BLOCK',
      'session',
      'authorization',
      'sealedSecret',
      'privateKey',
      'credentials',
    ];
    for (const name of sensitive) assert.ok(isSensitiveName(name), name);
    for (const name of ['saasId', 'mailId', 'statusCode', 'errorCode', 'operation', 'attempt', 'email']) assert.ok(!isSensitiveName(name), name);
  });

  it('copies without changing the original, through arrays and nested objects', () => {
    const error = new Error('kept for the formatter');
    const input = { saasId: 's', list: [{ code: '123456', ok: 1 }], deep: { a: { b: { refresh_token: 'r' } } }, error };
    const output = redact(input) as typeof input;
    assert.deepEqual(output.list, [{ code: REDACTED, ok: 1 }]);
    assert.equal(output.deep.a.b.refresh_token, REDACTED);
    assert.equal(output.error, error);
    assert.equal(input.list[0]!.code, '123456', "the caller's object is untouched");
  });
});

describe('log scope', () => {
  it("is one per invocation: concurrent invocations never see each other's ids", async () => {
    const handler = observed(async (event: { id: string }) => {
      addToLogScope({ requestId: `request-${event.id}` });
      await new Promise((resolve) => setTimeout(resolve, event.id === 'a' ? 20 : 1));
      log.info(`done ${event.id}`);
    });
    setLogLevel('info');
    const lines = await stdoutOf(() =>
      Promise.all([handler({ id: 'a' }, { awsRequestId: 'inv-a' } as Context), handler({ id: 'b' }, { awsRequestId: 'inv-b' } as Context)]),
    );
    setLogLevel('silent');
    const parsed = lines.map((line) => JSON.parse(line) as { message: string; requestId: string; invocationId: string });
    assert.deepEqual(parsed.map((l) => [l.message, l.requestId, l.invocationId]).sort(), [
      ['done a', 'request-a', 'inv-a'],
      ['done b', 'request-b', 'inv-b'],
    ]);
  });
});

describe('metrics', () => {
  it('write nothing when METRICS_ENABLED is off (local mode and tests)', async () => {
    const handler = observed(async () => {
      metrics.count('MailSent');
      metrics.count('SignInSucceeded', 3);
    });
    const writes = await stdoutOf(() => handler({}, { awsRequestId: 'inv-off' } as Context));
    assert.deepEqual(writes, []);
  });

  it('go out as one EMF line per invocation through logMetrics, with the cold-start metric once', async () => {
    // In a process of its own: the cold start is the process's first invocation.
    const script = [
      "import { observed } from './shared/observability.ts';",
      "import { metrics } from './shared/metrics.ts';",
      'const handler = observed(async (event) => { if (event.sent) metrics.count("MailSent", event.sent); });',
      'const context = { awsRequestId: "inv", functionName: "probe" };',
      'await handler({ sent: 2 }, context); console.log("--"); await handler({ sent: 0 }, context); console.log("--"); await handler({ sent: 1 }, context);',
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      // Lambda says how the environment started; Powertools counts a cold start only for on-demand ones.
      env: { ...process.env, METRICS_ENABLED: 'true', LOG_LEVEL: 'silent', AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand' },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    assert.equal(await new Promise((resolve) => child.on('exit', resolve)), 0);
    const invocations = out.split('--\n').map((part) =>
      part
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => '_aws' in line),
    );
    assert.deepEqual(
      invocations.map((lines) =>
        lines.map((line) => (line.ColdStart !== undefined ? `ColdStart ${line.ColdStart}` : `MailSent ${line.MailSent}`)).sort(),
      ),
      [['ColdStart 1', 'MailSent 2'], [], ['MailSent 1']],
    );
  });
});
