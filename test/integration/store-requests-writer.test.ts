/**
 * How many store requests the API log writer makes for one batch of USER_PASSWORD_AUTH sign-ins (the lines the
 * calls told, handed over at once as CloudWatch's subscription does on AWS), counted by a wrapper around the store
 * client (no timing). For six users, each signed in once before that day (their active-user marks known to this
 * process): the events' one sequence reservation (all six are POST /v1/auth/sign-in's), ONE BatchWriteItem for the
 * six records and six events together, one ADD of the day's count, and each user's last sign-in time on their
 * directory entry. A change that adds a request per batch, or per sign-in, fails here; and what was written is
 * still right: the time, the count and the records.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import type { SignInResult } from '../../shared/schemas/sign-in.js';
import { GetCommand } from '../../shared/store/dynamo-client.js';
import { keys } from '../../shared/store/keys.js';
import { dynamo, sendShippedLinesTo, tableName, writeShippedLines } from '../../shared/wiring.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { onApi } from '../support/other-api.js';

const PASSWORD = 'Counted-pass-1';
const USERS = 6;
let h: Harness;
let api: SignedClient;
let saasId: string;
let users: { id: string; email: string }[] = [];
/** The writer's requests while `counting` (operation, and for a batch write how many items it put). */
let counting: string[] | undefined;

beforeAll(async () => {
  h = await startHarness();
  ({ client: api, saasId } = await h.newSaas());
  assert.equal((await api.put('/sign-in-settings', { password_sign_in: { user_password_auth: true } })).status, 200);
  for (let i = 0; i < USERS; i++) {
    const email = `writer-${i}-${randomUUID()}@example.com`;
    const created = await api.post<{ id: string }>('/users', { email, password: PASSWORD });
    assert.equal(created.status, 201);
    users.push({ id: created.body.id, email });
  }
  users = users.sort((a, b) => (a.id < b.id ? -1 : 1));
  dynamo().intercept((command, next) => {
    const input = command.input as { RequestItems?: Record<string, unknown[]> };
    if (command.operation === 'BatchWriteItem') counting?.push(`BatchWriteItem of ${Object.values(input.RequestItems ?? {}).flat().length}`);
    else counting?.push(command.operation);
    return next();
  });
});
afterAll(() => h.close());

async function signIn(email: string): Promise<void> {
  const body = { sign_in_flow: 'USER_PASSWORD_AUTH', sign_in_parameters: { USERNAME: email, PASSWORD } };
  const res = await api.post<SignInResult>('/sign-in', body);
  assert.ok(res.body.credentials, `signed in: ${res.status} ${res.text}`);
}

const item = async (key: { pk: string; sk: string }) => (await dynamo().send(new GetCommand({ TableName: tableName(), Key: key }))).Item;
const succeededToday = async () =>
  (await api.get<{ days: { sign_in_succeeded: number }[] }>('/sign-in-counts?days=1')).body.days[0]?.sign_in_succeeded;

describe("the API log writer's store requests", () => {
  it('a batch of six sign-ins: one sequence, one batch write of records and events, one count, one time per user', async () => {
    for (const user of users) await signIn(user.email); // each user's active-user mark, made and remembered
    await h.flush();
    const before = await succeededToday();
    await h.flush(); // that read's record: nothing is left for the sink to write while the writer is counted
    // The six sign-ins' lines held here (the sink's timer would cut them into several batches), then written as one.
    const told: string[] = [];
    const sink = sendShippedLinesTo((line) => void told.push(line));
    try {
      for (const user of users) await signIn(user.email);
    } finally {
      sendShippedLinesTo(sink);
    }
    counting = [];
    try {
      await writeShippedLines(told);
    } finally {
      assert.deepEqual(counting.sort(), ['BatchWriteItem of 12', ...Array<string>(1 + 1 + USERS).fill('UpdateItem')]);
      counting = undefined;
    }
    // Still right: each directory entry has its profile's time, the day counts all six, and the records are there.
    for (const user of users) {
      const at = (await item(keys.userProfile(saasId, user.id)))?.last_login_at;
      assert.equal(typeof at, 'number');
      assert.equal((await item(keys.userDirectoryItem(saasId, user.id)))?.last_login_at, at);
    }
    assert.equal(await succeededToday(), (before ?? 0) + USERS);
    const logs = await onApi(api, 'apilog').get<{ api_logs: { request_uri: string }[] }>('/logs?limit=100');
    assert.equal(logs.body.api_logs.filter((log) => log.request_uri === '/v1/auth/sign-in').length, 2 * USERS);
  });
});
