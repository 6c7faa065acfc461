/**
 * What the SDK compatibility work added beyond the models (test/compat checks those): which name wins when
 * both are given, how the single-tenant settings take what the SDKs send, and the answers of the routes
 * that have no full implementation behind them.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

let h: Harness;
let api: SignedClient;

beforeAll(async () => {
  h = await startHarness();
  api = (await h.newSaas()).client;
});
afterAll(() => h.close());

const pageSettings = {
  title: 'Acme',
  icon: '',
  favicon: '',
  terms_of_service_url: '',
  privacy_policy_url: '',
  is_sign_in_id_enabled: false,
};

describe('the tag manager id under two names', () => {
  it('takes either name; the SDK name wins when both differ; answers both', async () => {
    assert.equal((await api.patch('/customize-page-settings', { ...pageSettings, tag_manager_container_id: 'GTM-SPEC' })).status, 200);
    let read = (await api.get<Record<string, string>>('/customize-page-settings')).body;
    assert.equal(read.tag_manager_container_id, 'GTM-SPEC');
    assert.equal(read.google_tag_manager_container_id, 'GTM-SPEC');
    const both = { ...pageSettings, tag_manager_container_id: 'GTM-SPEC', google_tag_manager_container_id: 'GTM-SDK' };
    assert.equal((await api.patch('/customize-page-settings', both)).status, 200);
    read = (await api.get<Record<string, string>>('/customize-page-settings')).body;
    assert.equal(read.tag_manager_container_id, 'GTM-SDK');
    await expectError(api.patch('/customize-page-settings', pageSettings), 400, 'invalid_parameter', 'tag_manager_container_id');
    await expectError(
      api.patch('/customize-page-settings', { ...pageSettings, google_tag_manager_container_id: 'UA-1' }),
      400,
      'invalid_parameter',
      'google_tag_manager_container_id',
    );
  });
});

describe('single-tenant settings', () => {
  it('store role_external_id, take empty templates as none, and link to a quick-create stack of the role template', async () => {
    assert.equal(
      (await api.patch('/single-tenant/settings', { role_external_id: 'my-external-id', cloudformation_template: '', ddl_template: '' })).status,
      200,
    );
    const settings = (await api.get<Record<string, string>>('/single-tenant/settings')).body;
    assert.equal(settings.role_external_id, 'my-external-id');
    assert.equal(settings.cloudformation_template_url, settings.stack_template_url);
    assert.equal(settings.ddl_template_url, '');
    // The SaaS's own templates: test/integration/newest-auth-api.test.ts.
    const link = (await api.get<{ link: string }>('/single-tenant/cloudformation-launch-stack-link')).body.link;
    const url = new URL(link);
    assert.equal(url.hostname, 'us-east-1.console.aws.amazon.com');
    const quickCreate = new URLSearchParams(url.hash.split('?')[1]);
    const template = await fetch(quickCreate.get('templateURL') as string);
    assert.equal(template.status, 200);
    const body = (await template.json()) as {
      Resources: { CrossAccountRole: { Properties: { AssumeRolePolicyDocument: { Statement: { Condition: unknown }[] } } } };
    };
    assert.deepEqual(body.Resources.CrossAccountRole.Properties.AssumeRolePolicyDocument.Statement[0]?.Condition, {
      StringEquals: { 'sts:ExternalId': 'my-external-id' },
    });
  });
});

describe('routes the SDKs call', () => {
  it('GET /userinfo/search/email finds a user by address in any case, and answers 404 for nobody', async () => {
    const created = await api.post<{ id: string }>('/users', { email: 'Finder@Example.test', password: 'Correct-horse-9' });
    assert.equal(created.status, 201);
    const found = await api.get<{ id: string; email: string }>('/userinfo/search/email?email=finder%40EXAMPLE.test');
    assert.equal(found.status, 200, found.text);
    assert.equal(found.body.id, created.body.id);
    await expectError(api.get('/userinfo/search/email?email=nobody%40example.test'), 404, 'user_not_found', 'email');
  });

  it('GET /errors/internal-server-error answers 500 in the error shape, and only with a valid signature', async () => {
    const res = await api.get<{ type: string; data: object }>('/errors/internal-server-error');
    assert.equal(res.status, 500);
    assert.equal(res.body.type, 'internal_server_error');
    assert.deepEqual(res.body.data, {});
    assert.equal((await fetch(`${h.api.baseUrl}/errors/internal-server-error`)).status, 401);
  });
});
