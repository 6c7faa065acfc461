/**
 * The SaaSus SDKs' Integration API definition (saasus-integration-api.yml; README.md beside it says where it comes
 * from) against the service: every one of its 6 operations is called at the method and path the definition gives
 * (the SDKs' own), with the bodies its models describe, answers the status the definition names, and its body fits
 * the SDK model field by field.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { onApi } from '../support/other-api.js';
import { readSdkDefinition } from './sdk-definition.js';

const sdk = readSdkDefinition('saasus-integration-api.yml');

let world: Harness;
let integration: SignedClient;

beforeAll(async () => {
  world = await startHarness();
  const { client } = await world.newSaas();
  integration = onApi(client, 'integration');
});
afterAll(() => world.close());

/** The operations in an order that gives later calls what they need (settings before the events). */
const calls: [string, unknown?][] = [
  ['SaveEventBridgeSettings', { aws_account_id: '267185063265', aws_region: 'ap-northeast-1' }],
  ['GetEventBridgeSettings'],
  ['CreateEventBridgeTestEvent'],
  ['CreateEventBridgeEvent', { event_messages: [{ event_type: 'api_call', event_detail_type: 'create_user', message: '{"id":"1"}' }] }],
  ['DeleteEventBridgeSettings'],
  ['ReturnInternalServerError'],
];

describe('the SaaSus SDKs’ Integration API definition', () => {
  it('has a call here for every one of its operations', () => {
    const driven = new Set(calls.map(([id]) => id));
    assert.deepEqual(
      sdk.sdkOperations.filter((op) => !driven.has(op.operationId)).map((op) => op.operationId),
      [],
    );
    assert.equal(sdk.sdkOperations.length, 6);
  });

  it('every operation answers the SDK’s status and models', async () => {
    const send = (method: string, path: string, body: unknown) => integration.request(method, path, body === undefined ? {} : { body });
    const failures: string[] = [];
    for (const [operationId, body] of calls) {
      const { failure } = await sdk.callAsSdk(send, operationId, { body });
      if (failure) failures.push(failure);
    }
    assert.deepEqual(failures, [], `operations the SDKs cannot use:\n${failures.join('\n')}`);
  });
});
