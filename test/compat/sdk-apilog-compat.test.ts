/**
 * The SaaSus SDKs' ApiLog API definition (saasus-apilog-api.yml; README.md beside it says where it comes from)
 * against the service: each of its 3 operations called at the method and path the definition gives (the SDKs'
 * own), answering the status it names with a body that fits the SDK model field by field.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { SignedClient } from '../../client/signed-fetch.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { modelName, readSdkDefinition } from './sdk-definition.js';

const sdk = readSdkDefinition('saasus-apilog-api.yml');

let world: Harness;
let apilog: SignedClient;

beforeAll(async () => {
  world = await startHarness();
  const { client } = await world.newSaas();
  apilog = new SignedClient(client.baseUrl.replace(/\/v1\/auth$/, '/v1/apilog'), client.credentials);
  // A call of another base to be listed, and one more, so a page of one has a cursor.
  assert.equal((await client.get('/roles')).status, 200);
  assert.equal((await client.get('/basic-info')).status, 200);
  await world.flush();
});
afterAll(() => world.close());

describe('the SaaSus SDKs’ ApiLog API definition', () => {
  it('every one of its operations answers the SDK’s status and models', async () => {
    assert.deepEqual(sdk.sdkOperations.map((op) => op.operationId).sort(), ['GetLog', 'GetLogs', 'ReturnInternalServerError']);
    const today = new Date().toISOString().slice(0, 10);
    let logId = '';
    const calls: Record<string, () => string> = {
      GetLogs: () => `/logs?created_date=${today}&limit=1`,
      GetLog: () => `/logs/${logId}`,
      ReturnInternalServerError: () => '/errors/internal-server-error',
    };
    const failures: string[] = [];
    for (const operationId of ['GetLogs', 'GetLog', 'ReturnInternalServerError']) {
      const op = sdk.sdkOperations.find((o) => o.operationId === operationId);
      assert.ok(op);
      const res = await apilog.request(op.method, (calls[operationId] as () => string)());
      const problems =
        res.status === op.status
          ? op.response
            ? sdk.modelProblems(op.response, res.body)
            : []
          : [`status ${res.status}, the SDK expects ${op.status}: ${res.text}`];
      if (operationId === 'GetLogs') {
        const body = res.body as { api_logs: { api_log_id: string }[]; cursor?: string };
        logId = body.api_logs[0]?.api_log_id ?? '';
        assert.ok(body.cursor, 'a next page');
      }
      if (problems.length > 0)
        failures.push(
          `${op.method} ${op.path} (${operationId}, model ${op.response ? modelName(op.response) : 'none'}):\n    ${problems.join('\n    ')}`,
        );
    }
    assert.deepEqual(failures, [], `operations the SDKs cannot use:\n${failures.join('\n')}`);
  });
});
