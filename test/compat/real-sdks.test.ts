/**
 * The unmodified SaaSus SDKs, JavaScript and Python, drive every method of their Integration and Communication
 * clients against the service (real-sdks/drive-*.mjs|py), and the answers are what their models take.
 *
 * Neither SDK can be installed by this project's own files: the npm package `saasus-sdk` is not on the registry
 * these machines reach, nor is the Python SDK, and their code stays out of the repository. So this test runs where
 * someone has laid them out and says where (docs/sdk-compatibility.md, "The real SDKs' test"):
 * SAASUS_SDK_JAVASCRIPT, the JavaScript SDK's package folder with its dependencies installed, and
 * SAASUS_SDK_PYTHON, a folder holding the Python SDK's `saasus_sdk_python` and its `aenum`. Without them it is
 * skipped, loudly.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { API_BASE_PATHS } from '../../shared/routes.js';

const here = fileURLToPath(new URL('./real-sdks/', import.meta.url));
const javascriptSdk = process.env.SAASUS_SDK_JAVASCRIPT;
const pythonSdk = process.env.SAASUS_SDK_PYTHON;
const run = promisify(execFile);

for (const [name, folder] of [
  ['SAASUS_SDK_JAVASCRIPT', javascriptSdk],
  ['SAASUS_SDK_PYTHON', pythonSdk],
] as const) {
  if (!folder) process.stderr.write(`\nreal-sdks.test.ts: ${name} is not set, so that SDK's run is skipped (docs/sdk-compatibility.md)\n\n`);
}

let world: Harness;
/** The variables the SDKs read, for a new SaaS of this file's harness with one user. */
let sdkEnv: Record<string, string>;
let origin: string;
let userId: string;

beforeAll(async () => {
  if (!javascriptSdk && !pythonSdk) return;
  world = await startHarness();
  const saas = await world.newSaas();
  const user = await saas.client.post<{ id: string }>('/users', { email: 'sdk-voter@example.com', password: 'Passw0rd!x', attributes: {} });
  assert.equal(user.status, 201, user.text);
  userId = user.body.id;
  origin = new URL(world.api.baseUrl).origin;
  sdkEnv = {
    PATH: process.env.PATH ?? '',
    SAASUS_SAAS_ID: saas.saasId,
    SAASUS_API_KEY: saas.apiKey,
    SAASUS_SECRET_KEY: saas.secret,
    USER_ID: userId,
  };
});
afterAll(async () => {
  if (world) await world.close();
});

interface Call {
  name: string;
  status: number | null;
  model?: string | null;
  data: unknown;
}

const byName = (calls: Call[]) => new Map(calls.map((c) => [c.name, c]));

/** What a feedback answered after the scenario's changes holds (both SDKs make the same ones). */
function assertChangedFeedback(data: unknown) {
  const feedback = data as { feedback_title: string; feedback_description: string; status: number; user_id: string; users: unknown[] };
  assert.equal(feedback.feedback_title, '保存ボタン');
  assert.equal(feedback.feedback_description, '右上へ');
  assert.equal(feedback.status, 2);
  assert.equal(feedback.user_id, userId);
  assert.equal(feedback.users.length, 1);
}

describe('the unmodified SaaSus SDKs’ Integration and Communication clients', () => {
  (javascriptSdk ? it : it.skip)('the JavaScript SDK: every method answers as its client expects', async () => {
    const { stdout } = await run(process.execPath, [`${here}drive-javascript.mjs`, javascriptSdk ?? ''], {
      env: { ...sdkEnv, SAASUS_API_URL_BASE: origin },
    });
    const calls = JSON.parse(stdout) as Call[];
    const status = Object.fromEntries(calls.map((c) => [c.name, c.status]));
    assert.deepEqual(status, {
      saveEventBridgeSettings: 200,
      getEventBridgeSettings: 200,
      createEventBridgeTestEvent: 201,
      createEventBridgeEvent: 201,
      deleteEventBridgeSettings: 200,
      'getEventBridgeSettings after delete': 404,
      createFeedback: 201,
      getFeedbacks: 200,
      getFeedback: 200,
      updateFeedback: 200,
      updateFeedbackStatus: 200,
      createVoteUser: 201,
      createFeedbackComment: 201,
      getFeedbackComment: 200,
      updateFeedbackComment: 200,
      'getFeedback after changes': 200,
      deleteFeedbackComment: 200,
      deleteVoteForFeedback: 200,
      deleteFeedback: 200,
      'getFeedback after delete': 404,
    });
    const got = byName(calls);
    assert.deepEqual(got.get('getEventBridgeSettings')?.data, { aws_account_id: '267185063265', aws_region: 'ap-northeast-1' });
    const feedbacks = got.get('getFeedbacks')?.data as { feedbacks: { id: string }[] };
    assert.deepEqual(
      feedbacks.feedbacks.map((f) => f.id),
      [(got.get('createFeedback')?.data as { id: string }).id],
    );
    assertChangedFeedback(got.get('getFeedback after changes')?.data);
    const comment = got.get('getFeedbackComment')?.data as { body: string };
    assert.equal(comment.body, 'ご意見ありがとうございます。');
    assert.equal((got.get('getFeedback after delete')?.data as { type: string }).type, 'feedback_not_found');
    // The SDK's error shape: what SaaSus answers for settings never saved or deleted.
    assert.equal((got.get('getEventBridgeSettings after delete')?.data as { type: string }).type, 'eventbridge_settings_not_found');
  });

  (pythonSdk ? it : it.skip)('the Python SDK: every method parses into its model', async () => {
    const { stdout } = await run('python3', [`${here}drive-python.py`], {
      env: { ...sdkEnv, PYTHONPATH: pythonSdk ?? '', PYTHONIOENCODING: 'utf-8', SAASUS_BASE_URL: `${origin}/v1` },
    });
    const calls = JSON.parse(stdout) as Call[];
    // The model each method parsed its answer into, or the status of the exception it raised.
    const outcome = Object.fromEntries(calls.map((c) => [c.name, c.model ?? c.status]));
    assert.deepEqual(outcome, {
      save_event_bridge_settings: 'NoneType',
      get_event_bridge_settings: 'EventBridgeSettings',
      create_event_bridge_test_event: 'NoneType',
      create_event_bridge_event: 'NoneType',
      delete_event_bridge_settings: 'NoneType',
      'get_event_bridge_settings after delete': 404,
      'integration return_internal_server_error': 500,
      create_feedback: 'Feedback',
      get_feedbacks: 'Feedbacks',
      get_feedback: 'Feedback',
      update_feedback: 'NoneType',
      update_feedback_status: 'NoneType',
      create_vote_user: 'Votes',
      create_feedback_comment: 'Comment',
      get_feedback_comment: 'Comment',
      update_feedback_comment: 'NoneType',
      'get_feedback after changes': 'Feedback',
      delete_feedback_comment: 'NoneType',
      delete_vote_for_feedback: 'NoneType',
      delete_feedback: 'NoneType',
      'get_feedback after delete': 404,
      'communication return_internal_server_error': 500,
    });
    const got = byName(calls);
    assert.deepEqual(got.get('get_event_bridge_settings')?.data, { aws_account_id: '267185063265', aws_region: 'ap-northeast-1' });
    assertChangedFeedback(got.get('get_feedback after changes')?.data);
    assert.equal((got.get('create_vote_user')?.data as { count: number }).count, 1);
  });
});

// The paths the SDKs build their clients on, so a renamed base path fails here rather than in the SDKs' runs.
it('the SDKs’ base paths are the service’s', () => {
  assert.equal(API_BASE_PATHS.integration, '/v1/integration');
  assert.equal(API_BASE_PATHS.communication, '/v1/communication');
});
