/**
 * The SaaSus SDKs' Communication API definition (saasus-communication-api.yml; README.md beside it says where it
 * comes from) against the service: every one of its 13 operations is called at the method and path the definition
 * gives (the SDKs' own), with the bodies its models describe, answers the status the definition names, and its
 * body fits the SDK model field by field.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { onApi } from '../support/other-api.js';
import { modelName, readSdkDefinition } from './sdk-definition.js';

const sdk = readSdkDefinition('saasus-communication-api.yml');

let world: Harness;
let communication: SignedClient;
let userId: string;

beforeAll(async () => {
  world = await startHarness();
  const { client } = await world.newSaas();
  communication = onApi(client, 'communication');
  const user = await client.post<{ id: string }>('/users', { email: 'voter@example.com', password: 'Passw0rd!x', attributes: {} });
  assert.equal(user.status, 201, user.text);
  userId = user.body.id;
});
afterAll(() => world.close());

interface Ids {
  feedbackId: string;
  commentId: string;
}

/** The operations in an order that gives later calls what they need (the ids the creates answer). */
const calls: [string, (w: Ids) => { path: Record<string, string>; body?: unknown }][] = [
  ['CreateFeedback', () => ({ path: {}, body: { user_id: userId, feedback_title: '保存ボタンの位置', feedback_description: '押しにくい' } })],
  ['GetFeedbacks', () => ({ path: {} })],
  ['GetFeedback', (w) => ({ path: { feedback_id: w.feedbackId } })],
  ['UpdateFeedback', (w) => ({ path: { feedback_id: w.feedbackId }, body: { feedback_title: '保存ボタン', feedback_description: '右上へ' } })],
  ['UpdateFeedbackStatus', (w) => ({ path: { feedback_id: w.feedbackId }, body: { status: 1 } })],
  ['CreateVoteUser', (w) => ({ path: { feedback_id: w.feedbackId }, body: { user_id: userId } })],
  ['CreateFeedbackComment', (w) => ({ path: { feedback_id: w.feedbackId }, body: { body: '貴重なご意見ありがとうございます。' } })],
  ['GetFeedbackComment', (w) => ({ path: { feedback_id: w.feedbackId, comment_id: w.commentId } })],
  ['UpdateFeedbackComment', (w) => ({ path: { feedback_id: w.feedbackId, comment_id: w.commentId }, body: { body: '対応予定です。' } })],
  ['GetFeedbacks', () => ({ path: {} })],
  ['DeleteFeedbackComment', (w) => ({ path: { feedback_id: w.feedbackId, comment_id: w.commentId } })],
  ['DeleteVoteForFeedback', (w) => ({ path: { feedback_id: w.feedbackId, user_id: userId } })],
  ['DeleteFeedback', (w) => ({ path: { feedback_id: w.feedbackId } })],
  ['ReturnInternalServerError', () => ({ path: {} })],
];

describe('the SaaSus SDKs’ Communication API definition', () => {
  it('has a call here for every one of its operations', () => {
    const driven = new Set(calls.map(([id]) => id));
    assert.deepEqual(
      sdk.sdkOperations.filter((op) => !driven.has(op.operationId)).map((op) => op.operationId),
      [],
    );
    assert.equal(sdk.sdkOperations.length, 13);
  });

  it('every operation answers the SDK’s status and models', async () => {
    const ids: Ids = { feedbackId: '', commentId: '' };
    const failures: string[] = [];
    for (const [operationId, call] of calls) {
      const op = sdk.sdkOperations.find((o) => o.operationId === operationId);
      assert.ok(op, operationId);
      const { path: params, body } = call(ids);
      const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? `missing-${name}`));
      const res = await communication.request(op.method, path, body === undefined ? {} : { body });
      const problems =
        res.status === op.status
          ? op.response
            ? sdk.modelProblems(op.response, res.body)
            : []
          : [`status ${res.status}, the SDK expects ${op.status}: ${res.text}`];
      if (operationId === 'CreateFeedback') ids.feedbackId = (res.body as { id: string }).id;
      if (operationId === 'CreateFeedbackComment') ids.commentId = (res.body as { id: string }).id;
      if (problems.length > 0)
        failures.push(
          `${op.method} ${op.path} (${operationId}, model ${op.response ? modelName(op.response) : 'none'}):\n    ${problems.join('\n    ')}`,
        );
    }
    assert.deepEqual(failures, [], `operations the SDKs cannot use:\n${failures.join('\n')}`);
  });
});
