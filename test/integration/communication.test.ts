/**
 * The Communication API (/v1/communication) over DynamoDB Local, through the handlers the Lambdas run: feedback
 * posted by a user of the SaaS, voted once per user, commented and given a status by the SaaS; deleted with all
 * it holds; user ids checked against the SaaS's own users; nothing of one SaaS seen or changed by another; bad
 * input a 4xx that changes nothing.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import type { CommentAnswer, FeedbackAnswer } from '../../shared/domain/communication/feedback.js';
import { QueryCommand } from '../../shared/store/dynamo-client.js';
import { dynamo, tableName } from '../../shared/wiring.js';
import { expectError } from '../support/expect.js';
import { onApi } from '../support/other-api.js';

let world: Harness;
let a: { saasId: string; client: SignedClient; feedback: SignedClient };
let b: { saasId: string; client: SignedClient; feedback: SignedClient };

async function userOf(client: SignedClient): Promise<string> {
  const res = await client.post<{ id: string }>('/users', {
    email: `u-${randomUUID().slice(0, 8)}@example.com`,
    password: 'Passw0rd!x',
    attributes: {},
  });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

async function post(client: SignedClient, userId: string, title = 'Move the save button'): Promise<FeedbackAnswer> {
  const res = await client.post<FeedbackAnswer>('/feedbacks', {
    user_id: userId,
    feedback_title: title,
    feedback_description: 'It is hard to reach',
  });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** Every item of a SaaS's feedback partition, as the store holds them. */
async function storedItems(saasId: string): Promise<Record<string, unknown>[]> {
  const out = await dynamo().send(
    new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `SAAS#${saasId}#FEEDBACK` } }),
  );
  return out.Items ?? [];
}

beforeAll(async () => {
  world = await startHarness();
  const [first, second] = [await world.newSaas(), await world.newSaas()];
  a = { saasId: first.saasId, client: first.client, feedback: onApi(first.client, 'communication') };
  b = { saasId: second.saasId, client: second.client, feedback: onApi(second.client, 'communication') };
});
afterAll(() => world.close());

describe('feedback', () => {
  it('is posted by a user of the SaaS, listed and read with its comments and votes, edited and given a status', async () => {
    const author = await userOf(a.client);
    const before = Math.floor(Date.now() / 1000);
    const created = await post(a.feedback, author);
    assert.deepEqual(
      { ...created, id: '', created_at: 0 },
      {
        id: '',
        user_id: author,
        created_at: 0,
        status: 0,
        feedback_title: 'Move the save button',
        feedback_description: 'It is hard to reach',
        comments: [],
        count: 0,
        users: [],
      },
    );
    assert.ok(created.created_at >= before);
    assert.deepEqual((await a.feedback.get(`/feedbacks/${created.id}`)).body, created);
    assert.ok((await a.feedback.get<{ feedbacks: FeedbackAnswer[] }>('/feedbacks')).body.feedbacks.some((f) => f.id === created.id));

    assert.equal(
      (await a.feedback.patch(`/feedbacks/${created.id}`, { feedback_title: 'Save button', feedback_description: 'Top right' })).status,
      200,
    );
    assert.equal((await a.feedback.patch(`/feedbacks/${created.id}/status`, { status: 2 })).status, 200);
    const read = (await a.feedback.get<FeedbackAnswer>(`/feedbacks/${created.id}`)).body;
    assert.deepEqual([read.feedback_title, read.feedback_description, read.status, read.user_id], ['Save button', 'Top right', 2, author]);
  });

  it('counts one vote per user, in voting order, and takes one back', async () => {
    const [author, first, second] = [await userOf(a.client), await userOf(a.client), await userOf(a.client)];
    const { id } = await post(a.feedback, author);
    const vote = (userId: string) =>
      a.feedback.post<{ count: number; users: { user_id: string }[] }>(`/feedbacks/${id}/votes/users`, { user_id: userId });
    assert.deepEqual((await vote(first)).body, { count: 1, users: [{ user_id: first }] });
    const again = await vote(first);
    assert.equal(again.status, 201);
    assert.deepEqual(again.body, { count: 1, users: [{ user_id: first }] }, 'a second vote is the first');
    assert.equal((await vote(second.toUpperCase())).body.count, 2);
    const read = (await a.feedback.get<FeedbackAnswer>(`/feedbacks/${id}`)).body;
    assert.deepEqual([read.count, read.users.map((u) => u.user_id).sort()], [2, [first, second].sort()]);

    assert.equal((await a.feedback.delete(`/feedbacks/${id}/votes/users/${first}`)).status, 200);
    await expectError(a.feedback.delete(`/feedbacks/${id}/votes/users/${first}`), 404, 'vote_not_found');
    assert.deepEqual((await a.feedback.get<FeedbackAnswer>(`/feedbacks/${id}`)).body.users, [{ user_id: second }]);
  });

  it('takes comments from the SaaS, oldest first, which are read, edited and deleted one by one', async () => {
    const { id } = await post(a.feedback, await userOf(a.client));
    const comment = async (body: string) => {
      const res = await a.feedback.post<CommentAnswer>(`/feedbacks/${id}/comments`, { body });
      assert.equal(res.status, 201, res.text);
      return res.body;
    };
    const [one, two] = [await comment('Thank you'), await comment('Planned for May')];
    assert.deepEqual((await a.feedback.get(`/feedbacks/${id}/comments/${one.id}`)).body, one);
    assert.equal((await a.feedback.patch(`/feedbacks/${id}/comments/${two.id}`, { body: 'Planned for June' })).status, 200);
    const read = (await a.feedback.get<FeedbackAnswer>(`/feedbacks/${id}`)).body;
    assert.deepEqual(
      read.comments.map((c) => c.body),
      ['Thank you', 'Planned for June'],
    );
    assert.equal((await a.feedback.delete(`/feedbacks/${id}/comments/${one.id}`)).status, 200);
    await expectError(a.feedback.get(`/feedbacks/${id}/comments/${one.id}`), 404, 'feedback_comment_not_found');
    await expectError(a.feedback.delete(`/feedbacks/${id}/comments/${one.id}`), 404, 'feedback_comment_not_found');
    await expectError(a.feedback.patch(`/feedbacks/${id}/comments/${one.id}`, { body: 'x' }), 404, 'feedback_comment_not_found');
  });

  it('goes with its comments and votes, leaving nothing in the store, and then is 404 everywhere', async () => {
    const [author, voter] = [await userOf(a.client), await userOf(a.client)];
    const { id } = await post(a.feedback, author);
    const comment = (await a.feedback.post<CommentAnswer>(`/feedbacks/${id}/comments`, { body: 'Noted' })).body;
    assert.equal((await a.feedback.post(`/feedbacks/${id}/votes/users`, { user_id: voter })).status, 201);
    assert.ok((await storedItems(a.saasId)).filter((item) => String(item.sk).startsWith(`F#${id}`)).length === 3);

    assert.equal((await a.feedback.delete(`/feedbacks/${id}`)).status, 200);
    assert.deepEqual(
      (await storedItems(a.saasId)).filter((item) => String(item.sk).startsWith(`F#${id}`)),
      [],
    );
    await expectError(a.feedback.get(`/feedbacks/${id}`), 404, 'feedback_not_found');
    await expectError(a.feedback.delete(`/feedbacks/${id}`), 404, 'feedback_not_found');
    await expectError(a.feedback.patch(`/feedbacks/${id}`, { feedback_title: 't', feedback_description: '' }), 404, 'feedback_not_found');
    await expectError(a.feedback.patch(`/feedbacks/${id}/status`, { status: 1 }), 404, 'feedback_not_found');
    await expectError(a.feedback.post(`/feedbacks/${id}/votes/users`, { user_id: voter }), 404, 'feedback_not_found');
    await expectError(a.feedback.delete(`/feedbacks/${id}/votes/users/${voter}`), 404, 'feedback_not_found');
    await expectError(a.feedback.post(`/feedbacks/${id}/comments`, { body: 'late' }), 404, 'feedback_not_found');
    await expectError(a.feedback.get(`/feedbacks/${id}/comments/${comment.id}`), 404, 'feedback_comment_not_found');
    assert.deepEqual(
      (await storedItems(a.saasId)).filter((item) => String(item.sk).startsWith(`F#${id}`)),
      [],
      'the refused writes left nothing',
    );
  });
});

describe('users and SaaS boundaries', () => {
  it("refuses a user id that is no user of this SaaS (another SaaS's, a deleted one's, nobody's), writing nothing", async () => {
    const theirs = await userOf(b.client);
    const gone = await userOf(a.client);
    assert.equal((await a.client.delete(`/users/${gone}`)).status, 200);
    const { id } = await post(a.feedback, await userOf(a.client));
    const itemsBefore = await storedItems(a.saasId);
    for (const userId of [theirs, gone, randomUUID()]) {
      await expectError(
        a.feedback.post('/feedbacks', { user_id: userId, feedback_title: 't', feedback_description: 'd' }),
        404,
        'user_not_found',
        'user_id',
      );
      await expectError(a.feedback.post(`/feedbacks/${id}/votes/users`, { user_id: userId }), 404, 'user_not_found', 'user_id');
    }
    assert.deepEqual(await storedItems(a.saasId), itemsBefore);
  });

  it("never shows or changes another SaaS's feedback, comments or votes", async () => {
    const author = await userOf(a.client);
    const mine = await post(a.feedback, author);
    const comment = (await a.feedback.post<CommentAnswer>(`/feedbacks/${mine.id}/comments`, { body: 'ours' })).body;
    assert.equal((await a.feedback.post(`/feedbacks/${mine.id}/votes/users`, { user_id: author })).status, 201);
    assert.ok(!(await b.feedback.get<{ feedbacks: FeedbackAnswer[] }>('/feedbacks')).body.feedbacks.some((f) => f.id === mine.id));
    await expectError(b.feedback.get(`/feedbacks/${mine.id}`), 404, 'feedback_not_found');
    await expectError(b.feedback.get(`/feedbacks/${mine.id}/comments/${comment.id}`), 404, 'feedback_comment_not_found');
    await expectError(b.feedback.patch(`/feedbacks/${mine.id}/status`, { status: 3 }), 404, 'feedback_not_found');
    await expectError(b.feedback.delete(`/feedbacks/${mine.id}/comments/${comment.id}`), 404, 'feedback_comment_not_found');
    await expectError(b.feedback.delete(`/feedbacks/${mine.id}/votes/users/${author}`), 404, 'feedback_not_found');
    await expectError(b.feedback.delete(`/feedbacks/${mine.id}`), 404, 'feedback_not_found');
    const still = (await a.feedback.get<FeedbackAnswer>(`/feedbacks/${mine.id}`)).body;
    assert.deepEqual([still.status, still.comments.length, still.count], [0, 1, 1]);
  });
});

describe('bad input and permissions', () => {
  it('answers malformed ids, statuses and texts with a 400 naming the field, changing nothing', async () => {
    const { id } = await post(a.feedback, await userOf(a.client));
    const before = await storedItems(a.saasId);
    await expectError(a.feedback.get('/feedbacks/not-a-uuid'), 400, 'invalid_parameter', 'feedback_id');
    await expectError(
      a.feedback.post('/feedbacks', { user_id: 'nobody', feedback_title: 't', feedback_description: 'd' }),
      400,
      'invalid_parameter',
      'user_id',
    );
    await expectError(
      a.feedback.post('/feedbacks', { user_id: randomUUID(), feedback_description: 'd' }),
      400,
      'invalid_parameter',
      'feedback_title',
    );
    await expectError(
      a.feedback.post('/feedbacks', { user_id: randomUUID(), feedback_title: 'x'.repeat(201), feedback_description: 'd' }),
      400,
      'invalid_parameter',
      'feedback_title',
    );
    for (const status of [-1, 4, 1.5, '1']) {
      await expectError(a.feedback.patch(`/feedbacks/${id}/status`, { status }), 400, 'invalid_parameter', 'status');
    }
    await expectError(a.feedback.post(`/feedbacks/${id}/comments`, { body: '' }), 400, 'invalid_parameter', 'body');
    await expectError(a.feedback.delete(`/feedbacks/${id}/votes/users/nobody`), 400, 'invalid_parameter', 'user_id');
    assert.deepEqual(await storedItems(a.saasId), before);
  });

  it('needs communication:read to read and communication:write to change', async () => {
    const reader = onApi(await world.newKey(a.saasId, ['communication:read']), 'communication');
    const other = onApi(await world.newKey(a.saasId, ['pricing:*']), 'communication');
    const { id } = await post(a.feedback, await userOf(a.client));
    assert.equal((await reader.get(`/feedbacks/${id}`)).status, 200);
    await expectError(reader.patch(`/feedbacks/${id}/status`, { status: 1 }), 403, 'permission_denied');
    await expectError(other.get('/feedbacks'), 403, 'permission_denied');
    await expectError(a.feedback.get('/errors/internal-server-error'), 500, 'internal_server_error');
  });
});
