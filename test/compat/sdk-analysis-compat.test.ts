/**
 * The SaaSus SDKs' Analysis API definition (saasus-analysis-api.yml; README.md beside it says where it comes from)
 * against the service: every one of its 8 operations at the definition's method and path, with its bodies and
 * queries, answers the status the definition names and fits its models; and the figures are the ones the calls
 * made here imply (creates counted from the API log, page statistics from the histories saved).
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { nowSeconds } from '../../shared/clock.js';
import { onApi } from '../support/other-api.js';
import { readSdkDefinition } from './sdk-definition.js';

const sdk = readSdkDefinition('saasus-analysis-api.yml');

let world: Harness;
let auth: SignedClient;
let analysis: SignedClient;
let userId: string;
let tenantId: string;
const today = new Date(nowSeconds() * 1000).toISOString().slice(0, 10);
const TENANT_A = '19045586-d4b0-418a-8e51-b6346380cd63';

beforeAll(async () => {
  world = await startHarness();
  const { client } = await world.newSaas();
  auth = client;
  analysis = onApi(client, 'analysis');
  const user = await auth.post<{ id: string }>('/users', { email: 'viewer@example.com', password: 'Passw0rd!x', attributes: {} });
  assert.equal(user.status, 201, user.text);
  userId = user.body.id;
  const tenant = await auth.post<{ id: string }>('/tenants', { name: 'Counted', attributes: {}, back_office_staff_email: 'c@example.com' });
  assert.equal(tenant.status, 201, tenant.text);
  tenantId = tenant.body.id;
  await world.flush();
});
afterAll(() => world.close());

const now = nowSeconds();
const calls: [string, { path?: Record<string, string>; query?: string; body?: unknown }][] = [
  ['UpdateActiveUsers', { body: { type: 'daily', date: today, tenant_id: TENANT_A, env_id: 1, active_users: 40 } }],
  ['GetActiveUsers', { query: `type=daily&date_from=${today}` }],
  [
    'UpdateUserBehaviorHistoriesByDay',
    {
      body: {
        timestamp: now,
        user_id: '',
        histories: [
          { timestamp: now - 20, referer: 'https://app.example.com/dashboard' },
          { timestamp: now - 10, referer: 'https://app.example.com/dashboard' },
          { timestamp: now - 5, referer: 'https://app.example.com/settings' },
        ],
      },
    },
  ],
  ['GetUserBehaviorHistories', { path: { user_id: '' } }],
  ['GetAggregatedMetrics', { query: `metrics_type=create_tenant&start_date=${today}&end_date=${today}` }],
  ['GetPageStatistics', { query: `start_timestamp=${now - 3600}&end_timestamp=${now + 60}` }],
  ['GetAggregatedUserInfo', { query: `start_date=${today}&end_date=${today}` }],
  ['ReturnInternalServerError', {}],
];

describe('the SaaSus SDKs’ Analysis API definition', () => {
  const answers = new Map<string, unknown>();

  it('has a call here for every one of its operations', () => {
    const driven = new Set(calls.map(([id]) => id));
    assert.deepEqual(
      sdk.sdkOperations.filter((op) => !driven.has(op.operationId)).map((op) => op.operationId),
      [],
    );
    assert.equal(sdk.sdkOperations.length, 8);
  });

  it('every operation answers the SDK’s status and models', async () => {
    const send = (method: string, path: string, body: unknown) => analysis.request(method, path, body === undefined ? {} : { body });
    const failures: string[] = [];
    for (const [operationId, call] of calls) {
      const body = operationId === 'UpdateUserBehaviorHistoriesByDay' ? { ...(call.body as object), user_id: userId } : call.body;
      const params = operationId === 'GetUserBehaviorHistories' ? { user_id: userId } : (call.path ?? {});
      const { body: answer, failure } = await sdk.callAsSdk(send, operationId, { params, query: call.query, body });
      answers.set(operationId, answer);
      if (failure) failures.push(failure);
    }
    assert.deepEqual(failures, [], `operations the SDKs cannot use:\n${failures.join('\n')}`);
  });

  it('answers the figures the calls imply', () => {
    assert.deepEqual(answers.get('GetActiveUsers'), { data: [{ date: today, tenant_id: TENANT_A, env_id: 1, active_users: 40 }] });
    const histories = answers.get('GetUserBehaviorHistories') as { histories: { behaved_at: number; histories: unknown[] }[] };
    assert.equal(histories.histories.length, 1);
    assert.equal(histories.histories[0]?.histories.length, 3);
    assert.deepEqual(answers.get('GetAggregatedMetrics'), { metrics: [{ date: today, count: 1 }] });
    const pages = answers.get('GetPageStatistics') as { total_page_views: number; total_unique_users: number; page_statistics: unknown[] };
    assert.equal(pages.total_page_views, 3);
    assert.equal(pages.total_unique_users, 1);
    assert.deepEqual(pages.page_statistics, [
      { page_url: 'https://app.example.com/dashboard', total_views: 2, unique_users: 1 },
      { page_url: 'https://app.example.com/settings', total_views: 1, unique_users: 1 },
    ]);
    assert.ok(tenantId);
  });

  it('counts tenant users by tenant, and refuses a malformed or reversed range with a 400', async () => {
    const member = await auth.post(`/tenants/${tenantId}/users`, { email: 'viewer@example.com', attributes: {} });
    assert.equal(member.status, 201, member.text);
    await world.flush();
    const metrics = await analysis.get<{ metrics: { count: number; details?: Record<string, number> }[] }>(
      `/metrics/aggregated?metrics_type=create_tenant_user&start_date=${today}&end_date=${today}`,
    );
    assert.equal(metrics.status, 200, metrics.text);
    assert.deepEqual(metrics.body.metrics[0]?.details, { [tenantId]: 1 });
    for (const query of [
      `metrics_type=create_tenant&start_date=2025-13-01&end_date=${today}`,
      `metrics_type=create_tenant&start_date=${today}&end_date=2000-01-01`,
      `metrics_type=create_everything&start_date=${today}&end_date=${today}`,
    ]) {
      const res = await analysis.get(`/metrics/aggregated?${query}`);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
    }
    assert.equal((await analysis.get(`/active-users?type=monthly&date_from=${today}`)).status, 400, 'a day where a month is meant');
  });
});
