/**
 * Drives the unmodified SaaSus JavaScript SDK's IntegrationClient and CommunicationClient against the service, as a
 * SaaS backend would: the SDK folder is the first argument, the SaaS's keys and the API's origin come in SAASUS_*
 * (the SDK reads them itself), and USER_ID names a user of that SaaS. Prints one JSON line: every call with the
 * status the SDK got and the data it handed back. real-sdks.test.ts judges them.
 */
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import process from 'node:process';

const sdk = createRequire(import.meta.url)(resolve(process.argv[2]));
const userId = process.env.USER_ID;
const calls = [];

/** One SDK method: its answer, or the error status the SDK threw (axios carries the response). */
async function call(name, run) {
  try {
    const res = await run();
    calls.push({ name, status: res.status, data: res.data ?? null });
    return res.data;
  } catch (error) {
    if (!error.response) throw error;
    calls.push({ name, status: error.response.status, data: error.response.data ?? null });
    return undefined;
  }
}

const events = new sdk.IntegrationClient().eventbridgeApi;
await call('saveEventBridgeSettings', () => events.saveEventBridgeSettings({ aws_account_id: '267185063265', aws_region: 'ap-northeast-1' }));
await call('getEventBridgeSettings', () => events.getEventBridgeSettings());
await call('createEventBridgeTestEvent', () => events.createEventBridgeTestEvent());
await call('createEventBridgeEvent', () =>
  events.createEventBridgeEvent({ event_messages: [{ event_type: 'api_call', event_detail_type: 'create_user', message: '{"id":"1"}' }] }),
);
await call('deleteEventBridgeSettings', () => events.deleteEventBridgeSettings());
await call('getEventBridgeSettings after delete', () => events.getEventBridgeSettings());

const feedback = new sdk.CommunicationClient().feedbackApi;
const created = await call('createFeedback', () =>
  feedback.createFeedback({ user_id: userId, feedback_title: '保存ボタンの位置', feedback_description: '押しにくい' }),
);
const id = created?.id ?? 'missing';
await call('getFeedbacks', () => feedback.getFeedbacks());
await call('getFeedback', () => feedback.getFeedback(id));
await call('updateFeedback', () => feedback.updateFeedback(id, { feedback_title: '保存ボタン', feedback_description: '右上へ' }));
await call('updateFeedbackStatus', () => feedback.updateFeedbackStatus(id, { status: 2 }));
await call('createVoteUser', () => feedback.createVoteUser(id, { user_id: userId }));
const comment = await call('createFeedbackComment', () => feedback.createFeedbackComment(id, { body: 'ご意見ありがとうございます。' }));
const commentId = comment?.id ?? 'missing';
await call('getFeedbackComment', () => feedback.getFeedbackComment(id, commentId));
await call('updateFeedbackComment', () => feedback.updateFeedbackComment(id, commentId, { body: '対応予定です。' }));
await call('getFeedback after changes', () => feedback.getFeedback(id));
await call('deleteFeedbackComment', () => feedback.deleteFeedbackComment(id, commentId));
await call('deleteVoteForFeedback', () => feedback.deleteVoteForFeedback(id, userId));
await call('deleteFeedback', () => feedback.deleteFeedback(id));
await call('getFeedback after delete', () => feedback.getFeedback(id));

process.stdout.write(`${JSON.stringify(calls)}\n`);
