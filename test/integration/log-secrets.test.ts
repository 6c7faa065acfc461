/**
 * No secret in any log line. Logging is turned all the way up (debug) and everything this process writes
 * to stdout and stderr is captured while operations that handle secrets run through the same handlers as
 * on AWS: issuing an API key and signing requests with it, storing the Google application secret, a mail
 * carrying a code through the courier (sent, deferred and failed), a whole sign-in (SRP values, a new
 * password, an e-mailed MFA code, tokens, a refresh and a temporary code) and a password change.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { issueApiKey } from '../../shared/domain/accounts/accounts.js';
import { newOutboxMail } from '../../shared/domain/mail/mail.js';
import { log, REDACTED, setLogLevel } from '../../shared/log.js';
import { courier, outboxRepository, suppressionRepository, secretBox } from '../../shared/wiring.js';
import { SignedClient } from '../../client/signed-fetch.js';
import type { Credentials } from '../../shared/schemas/sign-in.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { deliveredMail } from '../support/mail.js';
import { answerChallenge, startSignIn } from '../../dev-support/sign-in.js';
import { SrpTestClient } from '../../dev-support/srp-client.js';

let h: Harness;
let saasId: string;
/** Every byte written to stdout and stderr, and apart from it the log lines. */
const captured: string[] = [];
const logChunks: string[] = [];
const restore: (() => void)[] = [];

/**
 * Every write to stdout and stderr is kept for scanning. Log lines stop here (they would be noise in the
 * test output); anything else, such as the test runner's own messages, passes on.
 */
function capture(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    captured.push(text);
    if (!text.startsWith('{"level"')) return write(chunk, ...rest);
    logChunks.push(text);
    (rest.find((r) => typeof r === 'function') as (() => void) | undefined)?.();
    return true;
  }) as typeof stream.write;
  restore.push(() => {
    stream.write = write as typeof stream.write;
  });
}

const logLines = () =>
  logChunks
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** Every secret the operations below handle; none may appear in any captured byte. */
const secretsSeen: string[] = [];

beforeAll(async () => {
  h = await startHarness();
  saasId = (await h.newSaas()).saasId;
  setLogLevel('debug');
  capture(process.stdout);
  capture(process.stderr);
});
afterAll(async () => {
  restore.forEach((undo) => undo());
  setLogLevel('silent');
  await h.close();
});

describe('logs never carry a secret', () => {
  it('issuing an API key and signing requests with it', async () => {
    const key = await issueApiKey(h.accounts, secretBox(), saasId, ['*'], 'log test');
    secretsSeen.push(key.secret);
    const client = new SignedClient(h.api.baseUrl, { saasId, apiKey: key.apiKey, secret: key.secret });
    assert.equal((await client.get('/roles')).status, 200);
    assert.equal((await client.post('/roles', { role_name: 'admin', display_name: 'Admin' })).status, 201);
    assert.equal((await client.post('/roles', { role_name: 'admin', display_name: 'Again' })).status, 400);
    // A wrong signature answers 401 and must not log what it was compared with.
    const forged = new SignedClient(h.api.baseUrl, { saasId, apiKey: key.apiKey, secret: 'not-the-secret' });
    assert.equal((await forged.get('/roles')).status, 401);
  });

  it('storing the Google application secret, and reading it back masked', async () => {
    const key = await issueApiKey(h.accounts, secretBox(), saasId, ['*']);
    secretsSeen.push(key.secret);
    const client = new SignedClient(h.api.baseUrl, { saasId, apiKey: key.apiKey, secret: key.secret });
    const applicationSecret = `GOCSPX-${randomUUID()}`;
    secretsSeen.push(applicationSecret);
    const props = {
      application_id: 'log-test.apps.googleusercontent.com',
      application_secret: applicationSecret,
      approval_scope: 'openid',
      is_button_hidden: false,
    };
    assert.equal((await client.put('/identity-providers', { provider: 'Google', identity_provider_props: props })).status, 200);
    assert.equal((await client.get('/identity-providers')).status, 200);
    // A rejected body carrying the secret: validation errors must not echo it into the logs either.
    const rejected = await client.put('/identity-providers', { provider: 'Google', identity_provider_props: { ...props, is_button_hidden: 'yes' } });
    assert.equal(rejected.status, 400);
  });

  it('a mail with a code, sent, and one that fails', async () => {
    const code = String(100000 + Math.floor(Math.random() * 899999));
    secretsSeen.push(code);
    const mail = await newOutboxMail(secretBox(), saasId, 'authentication_mfa', `log-${randomUUID()}@example.test`, code);
    await outboxRepository().enqueue(mail);
    assert.equal(await courier().deliver(saasId, mail.id), 'sent');

    const temporaryPassword = `Tmp#${randomUUID()}`;
    secretsSeen.push(temporaryPassword);
    // An address that bounced before: the courier marks the mail failed and logs why.
    const address = `bounced-${randomUUID()}@example.test`;
    await suppressionRepository().remember({ saasId, address, reason: 'bounce', detail: 'Permanent/General', mailId: 'earlier', at: 1 });
    const refused = await newOutboxMail(secretBox(), saasId, 'create_user', address, temporaryPassword);
    await outboxRepository().enqueue(refused);
    assert.equal(await courier().deliver(saasId, refused.id), 'failed');
  });

  it('a sign-in with a new password and an e-mailed code, a refresh, a temporary code, and a password change', async () => {
    const key = await issueApiKey(h.accounts, secretBox(), saasId, ['*']);
    secretsSeen.push(key.secret);
    const client = new SignedClient(h.api.baseUrl, { saasId, apiKey: key.apiKey, secret: key.secret });
    const address = `signin-${randomUUID()}@example.test`;
    const [password, temporary, chosen, changed] = ['Own-pass-1', 'Temporary-pass-2', 'Chosen-pass-3', 'Changed-pass-4'].map(
      (p) => `${p}${randomUUID()}`,
    ) as [string, string, string, string];
    secretsSeen.push(password, temporary, chosen, changed);
    const user = (await client.post<{ id: string }>('/users', { email: address, password })).body;
    assert.equal((await client.patch(`/users/${user.id}/mfa/preference`, { enabled: true, method: 'email' })).status, 200);
    assert.equal((await client.patch(`/users/${user.id}/password`, { password: temporary, temporary: true })).status, 200);

    // A wrong proof first, then the right one.
    for (const attempt of [password, temporary]) {
      const srp = new SrpTestClient();
      const started = await startSignIn(client, address, srp.srpA);
      const answer = srp.passwordAnswer(started.body.challenge_parameters, attempt);
      const { SRP_B, SECRET_BLOCK } = started.body.challenge_parameters as { SRP_B: string; SECRET_BLOCK: string };
      secretsSeen.push(srp.srpA, SRP_B, SECRET_BLOCK, started.body.session, answer.PASSWORD_CLAIM_SIGNATURE);
      const res = await answerChallenge(client, 'PASSWORD_VERIFIER', answer, started.body.session);
      if (attempt === password) {
        assert.equal(res.status, 401);
        continue;
      }
      assert.equal(res.body.challenge_name, 'NEW_PASSWORD_REQUIRED');
      secretsSeen.push(res.body.session as string);
      const otp = await answerChallenge(client, 'NEW_PASSWORD_REQUIRED', { NEW_PASSWORD: chosen }, res.body.session);
      assert.equal(otp.body.challenge_name, 'EMAIL_OTP');
      secretsSeen.push(otp.body.session as string);
      const code = /\b(\d{6})\b/.exec((await deliveredMail(h.sesUrl, saasId, address)).at(-1)?.body.text ?? '')?.[1] as string;
      secretsSeen.push(code);
      const done = await answerChallenge(client, 'EMAIL_OTP', { EMAIL_OTP_CODE: code }, otp.body.session);
      const credentials = done.body.credentials as Credentials;
      secretsSeen.push(credentials.id_token, credentials.access_token, credentials.refresh_token as string);
      const refreshed = await client.get<Credentials>(`/credentials?auth-flow=refreshTokenAuth&refresh-token=${credentials.refresh_token}`);
      secretsSeen.push(refreshed.body.id_token, refreshed.body.access_token);
      const saved = await client.post<{ code: string }>('/credentials', credentials);
      secretsSeen.push(saved.body.code);
      assert.equal((await client.get(`/credentials?code=${saved.body.code}`)).status, 200);
    }
    assert.equal((await client.patch(`/users/${user.id}/password`, { password: changed })).status, 200);
    const lines = logLines();
    assert.ok(
      lines.some((l) => l.message === 'sign-in proof refused' && l.userId === user.id),
      'the refused proof was logged',
    );
    assert.ok(
      lines.some((l) => l.message === 'sign-in completed' && l.userId === user.id),
      'the sign-in was logged',
    );
  });

  it('what a caller logs by mistake is redacted by field name', () => {
    const leaked = `leak-${randomUUID()}`;
    secretsSeen.push(leaked);
    log.warn('careless caller', {
      password: leaked,
      nested: { refresh_token: leaked, challenge: { PASSWORD_CLAIM_SIGNATURE: leaked, SRP_A: leaked } },
    });
    const line = logLines().find((l) => l.message === 'careless caller');
    assert.deepEqual(line?.nested, { refresh_token: REDACTED, challenge: { PASSWORD_CLAIM_SIGNATURE: REDACTED, SRP_A: REDACTED } });
  });

  it('the capture saw the lines, with the request id, SaaS and operation of each request', () => {
    const lines = logLines();
    assert.ok(
      lines.some((l) => l.message === 'mail sent'),
      'courier lines were captured',
    );
    const answered = lines.filter((l) => l.message === 'request answered' && l.operation === 'createRole');
    assert.equal(answered.length, 2);
    for (const line of answered) {
      assert.equal(line.saasId, saasId);
      assert.match(String(line.requestId), /^[0-9a-f-]{36}$/);
      assert.equal(line.service, 'tenant-identity');
    }
    assert.ok(
      lines.some((l) => l.message === 'request answered' && l.status === 401 && l.saasId === undefined),
      'a refused request has no SaaS',
    );
    // The forged signature's 401 says why, at debug level, for the operator (the caller's answer does not).
    const refusals = lines.filter((l) => l.message === 'request refused (401)');
    assert.ok(
      refusals.some((l) => /^the signature does not match/.test(String(l.reason)) && l.saasId === saasId),
      JSON.stringify(refusals),
    );

    const everything = captured.join('');
    assert.ok(secretsSeen.length >= 6);
    for (const secret of secretsSeen) assert.ok(!everything.includes(secret), `a secret reached the logs: ${secret.slice(0, 4)}…`);
  });
});
