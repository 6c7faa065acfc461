/** Single-tenant infrastructure settings and the signed template URL. */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

let h: Harness;
let api: SignedClient;

interface Settings {
  enabled: boolean;
  role_arn: string;
  role_external_id: string;
  stack_template_url: string;
}

beforeAll(async () => {
  h = await startHarness();
  api = (await h.newSaas()).client;
});
afterAll(async () => {
  resetClockForTests();
  await h.close();
});

const settings = async (client = api) => {
  const res = await client.get<Settings>('/single-tenant/settings');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
};

describe('infrastructure settings', () => {
  it('starts disabled with a stable external id and a template URL that serves the role template', async () => {
    const first = await settings();
    assert.equal(first.enabled, false);
    assert.equal(first.role_arn, '');
    assert.match(first.role_external_id, /^[0-9a-f]{32}$/);
    assert.equal((await settings()).role_external_id, first.role_external_id);
    assert.ok(first.stack_template_url.startsWith(`${new URL(h.api.baseUrl).origin}/v1/auth/single-tenant/role-template?`));

    const template = await fetch(first.stack_template_url);
    assert.equal(template.status, 200);
    const body = (await template.json()) as {
      Resources: { CrossAccountRole: { Properties: { AssumeRolePolicyDocument: { Statement: { Condition: unknown }[] } } } };
    };
    assert.deepEqual(body.Resources.CrossAccountRole.Properties.AssumeRolePolicyDocument.Statement[0]!.Condition, {
      StringEquals: { 'sts:ExternalId': first.role_external_id },
    });
  });

  it('refuses an altered or expired template URL', async () => {
    const url = new URL((await settings()).stack_template_url);
    const altered = new URL(url);
    altered.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 60));
    assert.equal((await fetch(altered)).status, 404);
    const otherSaas = (await h.newSaas()).saasId;
    const moved = new URL(url);
    moved.searchParams.set('saas_id', otherSaas);
    assert.equal((await fetch(moved)).status, 404);
    const bad = new URL(url);
    bad.searchParams.set('signature', 'zz');
    assert.equal((await fetch(bad)).status, 400);
    setClockForTests(Date.now() + 2 * 3600 * 1000);
    try {
      assert.equal((await fetch(url)).status, 404);
    } finally {
      resetClockForTests();
    }
    assert.equal((await fetch(url)).status, 200);
  });

  it('enables only with a well-formed role ARN, and disables', async () => {
    for (const body of [{ enabled: true }, { enabled: true, role_arn: '' }]) {
      const res = await api.patch('/single-tenant/settings', body);
      assert.equal(res.status, 400);
      assert.equal((res.body as { type: string }).type, 'role_arn_required');
    }
    for (const role_arn of ['arn:aws:iam::12345:role/x', 'arn:aws:s3:::bucket', 'role/x', 'arn:aws:iam::123456789012:user/bob']) {
      const res = await api.patch('/single-tenant/settings', { enabled: true, role_arn });
      assert.equal(res.status, 400, role_arn);
      assert.match((res.body as { message: string }).message, /^role_arn: must be an IAM role ARN/);
    }
    assert.equal((await settings()).enabled, false);
    const arn = 'arn:aws:iam::123456789012:role/SaaSusCrossAccount';
    assert.equal((await api.patch('/single-tenant/settings', { enabled: true, role_arn: arn })).status, 200);
    assert.deepEqual([(await settings()).enabled, (await settings()).role_arn], [true, arn]);
    assert.equal((await api.patch('/single-tenant/settings', { enabled: false })).status, 200);
    assert.deepEqual([(await settings()).enabled, (await settings()).role_arn], [false, arn]);
    assert.equal((await api.patch('/single-tenant/settings', { enabled: true })).status, 200, 'the stored ARN is enough');
  });

  it('keeps SaaS apart', async () => {
    const other = (await h.newSaas()).client;
    const mine = await settings();
    const theirs = await settings(other);
    assert.notEqual(theirs.role_external_id, mine.role_external_id);
    assert.equal(theirs.enabled, false);
  });
});
