/**
 * The API log writer through DynamoDB Local: the sign-in outcomes of the API and of the hosted screen reach the
 * SaaS's daily counts once their writes committed (a wrong password, the lockout, a success; a refusal while
 * locked and a name nobody has count nothing); the writer function's handler takes a CloudWatch Logs delivery
 * with other lines in it, writes each record once however often the delivery comes, and adds its counts again
 * (the accepted cost, docs/deployment-shape.md).
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { CloudWatchLogsEvent, Context } from 'aws-lambda';
import { SignedClient } from '../../client/signed-fetch.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { FREE_ATTEMPTS } from '../../shared/domain/sign-in/sign-in-lockout.js';
import { utcDay } from '../../shared/domain/users/sign-in-counts.js';
import { SHIPPED_KINDS } from '../../shared/schemas/apilog.js';
import { ScanCommand } from '../../shared/store/dynamo-client.js';
import { dynamo, sendShippedLinesTo, signInCountsRepository, tableName } from '../../shared/wiring.js';
import { handler as apiLogWriter } from '../../functions/apilog-writer/handler.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { answerChallenge, srpSignIn } from '../../dev-support/sign-in.js';
import { deliveredMail } from '../support/mail.js';
import { expectError } from '../support/expect.js';
import { openScreen, signInOnScreen } from '../support/screen-client.js';
import { saasWithScreen } from '../support/passkey-screen.js';

const PASSWORD = 'Writer-pass-1';
let h: Harness;
let api: SignedClient;
let saasId: string;

beforeAll(async () => {
  h = await startHarness();
  ({ saasId, api } = await saasWithScreen(h));
});
afterAll(() => h.close());

async function newUser(): Promise<string> {
  const email = `writer-${randomUUID().slice(0, 8)}@example.test`;
  assert.equal((await api.post('/users', { email, password: PASSWORD })).status, 201);
  return email;
}

const today = () => utcDay(Math.floor(Date.now() / 1000));
async function countsToday() {
  await h.flush();
  const [day] = await signInCountsRepository().days(saasId, today(), today());
  return { sign_in_succeeded: day?.sign_in_succeeded ?? 0, sign_in_failed: day?.sign_in_failed ?? 0, locked_out: day?.locked_out ?? 0 };
}

/** The lines `work` tells, kept from the writer (nothing of them is written). */
async function linesOf(work: () => Promise<unknown>): Promise<string[]> {
  await h.flush();
  const lines: string[] = [];
  const before = sendShippedLinesTo((line) => void lines.push(line));
  try {
    await work();
  } finally {
    sendShippedLinesTo(before);
  }
  return lines;
}

const delivery = (messages: string[]): CloudWatchLogsEvent => {
  const payload = {
    messageType: 'DATA_MESSAGE',
    owner: '123456789012',
    logGroup: '/aws/lambda/sign-in',
    logStream: 'test',
    subscriptionFilters: ['ToApiLogWriter'],
    logEvents: messages.map((message, i) => ({ id: String(i), timestamp: Date.now(), message })),
  };
  return { awslogs: { data: gzipSync(Buffer.from(JSON.stringify(payload))).toString('base64') } };
};
const context = { awsRequestId: randomUUID(), functionName: 'apilog-writer' } as Context;

async function storedRecordsOf(requestId: string): Promise<number> {
  const out = await dynamo().send(
    new ScanCommand({
      TableName: tableName(),
      FilterExpression: 'entity = :entity AND request_id = :id',
      ExpressionAttributeValues: { ':entity': 'ApiLog', ':id': requestId },
    }),
  );
  return out.Items?.length ?? 0;
}

describe('sign-in counts', () => {
  it('count the API sign-ins whose writes committed: successes, refused passwords, the lockout; nothing while locked', async () => {
    const before = await countsToday();
    const email = await newUser();
    assert.equal((await srpSignIn(api, email, PASSWORD)).status, 200);
    // The clock stands still, so the first lock (one second) cannot run out on a slow machine before the last try.
    setClockForTests(Date.now());
    try {
      for (let i = 0; i < FREE_ATTEMPTS; i++) assert.equal((await srpSignIn(api, email, 'Wrong-pass-1')).status, 401);
      assert.equal((await srpSignIn(api, email, PASSWORD)).status, 401, 'locked');
    } finally {
      resetClockForTests();
    }
    assert.equal((await srpSignIn(api, `nobody-${randomUUID()}@example.test`, PASSWORD)).status, 401);
    const after = await countsToday();
    assert.deepEqual(
      { sign_in_succeeded: after.sign_in_succeeded - before.sign_in_succeeded, sign_in_failed: after.sign_in_failed - before.sign_in_failed },
      { sign_in_succeeded: 1, sign_in_failed: FREE_ATTEMPTS - 1 },
    );
    assert.equal(after.locked_out - before.locked_out, 1, 'the failure that locked the user out');
  });

  it('count a wrong e-mail code as a refusal once its charge committed, and the right one after it as the sign-in', async () => {
    const before = await countsToday();
    const email = await newUser();
    const users = await api.get<{ users: { id: string; email: string }[] }>('/users');
    const id = users.body.users.find((user) => user.email === email)?.id as string;
    assert.equal((await api.patch(`/users/${id}/mfa/preference`, { enabled: true, method: 'email' })).status, 200);
    const asked = await srpSignIn(api, email, PASSWORD);
    assert.equal(asked.body.challenge_name, 'EMAIL_OTP');
    const code = /\b(\d{6})\b/.exec((await deliveredMail(h.sesUrl, saasId, email)).at(-1)?.body.text ?? '')?.[1] as string;
    assert.ok(code);
    const answer = (EMAIL_OTP_CODE: string) => answerChallenge(api, 'EMAIL_OTP', { EMAIL_OTP_CODE }, asked.body.session);
    await expectError(answer(code === '000000' ? '111111' : '000000'), 400, 'code_mismatch', 'EMAIL_OTP_CODE');
    assert.equal((await answer(code)).status, 200);
    const after = await countsToday();
    assert.deepEqual([after.sign_in_failed - before.sign_in_failed, after.sign_in_succeeded - before.sign_in_succeeded], [1, 1]);
  });

  it('count a sign-in on the hosted screen', async () => {
    const before = await countsToday();
    const email = await newUser();
    const screen = `${h.api.baseUrl}/login/${saasId}/`;
    assert.ok((await signInOnScreen(screen, await openScreen(screen), email, PASSWORD)).redirect);
    assert.equal((await countsToday()).sign_in_succeeded - before.sign_in_succeeded, 1);
  });
});

describe('the writer function', () => {
  it('writes the records and counts of a delivery, leaves its other lines alone, and writes a record once however often it comes', async () => {
    const email = await newUser();
    let requestIds: (string | null)[] = [];
    const shipped = await linesOf(async () => {
      const first = await api.post('/sign-in', { sign_in_flow: 'USER_SRP_AUTH', sign_in_parameters: { USERNAME: email, SRP_A: 'zz' } });
      const signedIn = await srpSignIn(api, email, PASSWORD);
      assert.equal(signedIn.status, 200);
      requestIds = [first.headers.get('x-request-id')];
    });
    // Each of the three POSTs is also an event (docs/events.md), numbered by the writer; this test delivers the rest.
    const isEvent = (line: string) => (JSON.parse(line) as { shipped?: string }).shipped === SHIPPED_KINDS.event;
    assert.equal(shipped.filter(isEvent).length, 3, 'an event of each call that changes something');
    const lines = shipped.filter((line) => !isEvent(line));
    assert.equal(lines.length, 4, 'a refused call, the two calls of a sign-in, and its counted success');
    const before = await countsToday();
    const noise = ['START RequestId: 1 Version: $LATEST', '{"level":"INFO","message":"sign-in completed"}', '{"shipped":"api-log","record":{}}'];
    const event = delivery([noise[0] as string, ...lines.slice(0, 2), `${noise[1]}\n${lines[2]}`, noise[2] as string, lines[3] as string]);
    assert.deepEqual(await apiLogWriter(event, context), { records: 3, countWrites: 1, events: 0 });
    assert.equal(await storedRecordsOf(requestIds[0] as string), 1);
    assert.equal((await countsToday()).sign_in_succeeded - before.sign_in_succeeded, 1);
    // Delivered again (Lambda's retry, or CloudWatch's at-least-once delivery): the records stay one item each.
    await apiLogWriter(event, context);
    assert.equal(await storedRecordsOf(requestIds[0] as string), 1);
    assert.equal((await countsToday()).sign_in_succeeded - before.sign_in_succeeded, 2, 'the count is added again: the accepted cost');
    // What the writer wrote is what the ApiLog API answers.
    const logs = new SignedClient(api.baseUrl.replace(/\/v1\/auth$/, '/v1/apilog'), api.credentials);
    const listed = await logs.get<{ api_logs: { trace_id: string; request_uri: string; response_status: string }[] }>('/logs?limit=100');
    const found = listed.body.api_logs.find((log) => log.trace_id === requestIds[0]);
    assert.deepEqual(found && [found.request_uri, found.response_status], ['/v1/auth/sign-in', '400']);
  });

  it('answers a control message with nothing written, and fails on a payload that is not a subscription (Lambda retries it)', async () => {
    const control = {
      awslogs: { data: gzipSync(Buffer.from(JSON.stringify({ messageType: 'CONTROL_MESSAGE', logEvents: [] }))).toString('base64') },
    };
    assert.deepEqual(await apiLogWriter(control, context), { records: 0, countWrites: 0, events: 0 });
    await assert.rejects(apiLogWriter({ awslogs: { data: 'not gzip' } }, context));
  });
});
