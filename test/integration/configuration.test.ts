/** The configuration API: every operation's happy path, each validation rule, secret masking, isolation. */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { GetCommand } from '../../shared/store/dynamo-client.js';
import type { SignedClient } from '../../client/signed-fetch.js';
import { DEFAULT_TEMPLATES } from '../../shared/domain/mail/default-templates.js';
import { TEMPLATE_NAMES } from '../../shared/schemas/configuration.js';
import { keys } from '../../shared/store/keys.js';
import { configurationService, dynamo, tableName } from '../../shared/wiring.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

let h: Harness;
let api: SignedClient;
let saasId: string;

beforeAll(async () => {
  h = await startHarness();
  const saas = await h.newSaas();
  api = saas.client;
  saasId = saas.saasId;
});
afterAll(() => h.close());

const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('basic configuration', () => {
  it('starts empty with the deployment default domain', async () => {
    const res = await api.get<Record<string, unknown>>('/basic-info');
    assert.equal(res.status, 200);
    assert.equal(res.body.domain_name, '');
    assert.equal(res.body.default_domain_name, 'auth.localhost');
    assert.equal(res.body.is_dns_validated, false);
    assert.deepEqual(res.body.dkim_dns_records, []);
  });

  it('stores the domain and addresses and computes the same DNS records on every read', async () => {
    const put = await api.put('/basic-info', {
      domain_name: 'Auth.Example.com',
      from_email_address: 'no-reply@mail.example.com',
      reply_email_address: 'support@example.com',
    });
    assert.equal(put.status, 200);
    assert.equal(put.text, '');
    type Info = {
      domain_name: string;
      from_email_address: string;
      reply_email_address: string;
      is_dns_validated: boolean;
      certificate_dns_record: { type: string; name: string; value: string };
      cdn_dns_record: { type: string; name: string; value: string };
      dkim_dns_records: { type: string; name: string; value: string }[];
    };
    const first = (await api.get<Info>('/basic-info')).body;
    assert.equal(first.domain_name, 'auth.example.com');
    assert.equal(first.from_email_address, 'no-reply@mail.example.com');
    assert.equal(first.reply_email_address, 'support@example.com');
    assert.equal(first.is_dns_validated, false);
    assert.equal(first.certificate_dns_record.type, 'CNAME');
    // The local stand-in of ACM and API Gateway (shared/adapters/site-domains.ts): records of their shape.
    assert.match(first.certificate_dns_record.name, /^_[0-9a-f]{32}\.auth\.example\.com\.$/);
    assert.match(first.certificate_dns_record.value, /\.acm-validations\.aws\.$/);
    assert.match(first.cdn_dns_record.value, /^d-[0-9a-f]{10}\.execute-api\.[a-z0-9-]+\.amazonaws\.com\.$/);
    assert.equal(first.cdn_dns_record.name, 'auth.example.com.');
    assert.equal(first.dkim_dns_records.length, 3);
    for (const record of first.dkim_dns_records) {
      assert.match(record.name, /^[0-9a-f]{32}\._domainkey\.mail\.example\.com\.$/);
      assert.match(record.value, /^[0-9a-f]{32}\.dkim\.amazonses\.com\.$/);
    }
    assert.deepEqual((await api.get('/basic-info')).body, first);
  });

  it('refuses invalid domains and addresses, and keeps what was stored', async () => {
    const good = { domain_name: 'auth.example.org', from_email_address: 'a@example.org' };
    for (const domain_name of [
      'https://auth.example.org',
      'auth.example.org/path',
      'localhost',
      '-bad.example.org',
      'a..b.org',
      'exa mple.org',
      '',
    ]) {
      await expectError(api.put('/basic-info', { ...good, domain_name }), 400, 'invalid_parameter', 'domain_name');
    }
    for (const from_email_address of ['nobody', 'a@b', '@example.org', 'a b@example.org']) {
      await expectError(api.put('/basic-info', { ...good, from_email_address }), 400, 'invalid_parameter', 'from_email_address');
    }
    await expectError(api.put('/basic-info', { ...good, reply_email_address: 'nope' }), 400, 'invalid_parameter', 'reply_email_address');
    await expectError(api.put('/basic-info', { from_email_address: 'a@example.org' }), 400, 'invalid_parameter', 'domain_name');
    assert.equal((await api.get<{ domain_name: string }>('/basic-info')).body.domain_name, 'auth.example.com');
  });
});

describe('notification templates', () => {
  it('returns the nine defaults, each with {####}', async () => {
    const res = await api.get<Record<string, { subject: string; message: string }>>('/notification-messages');
    assert.deepEqual(Object.keys(res.body).sort(), [...TEMPLATE_NAMES].sort());
    for (const name of TEMPLATE_NAMES) {
      assert.ok(res.body[name]!.subject.length > 0);
      assert.ok(res.body[name]!.message.includes('{####}'), name);
    }
    assert.deepEqual(res.body, DEFAULT_TEMPLATES);
  });

  it('changes only the members an update names', async () => {
    const forgot = { subject: 'Reset', message: '<p>Code: {####}</p>' };
    assert.equal((await api.put('/notification-messages', { forgot_password: forgot })).status, 200);
    const mfa = { subject: 'MFA', message: 'MFA code {####}' };
    assert.equal((await api.put('/notification-messages', { authentication_mfa: mfa })).status, 200);
    const res = (await api.get<Record<string, unknown>>('/notification-messages')).body;
    assert.deepEqual(res.forgot_password, forgot);
    assert.deepEqual(res.authentication_mfa, mfa);
    assert.deepEqual(res.sign_up, DEFAULT_TEMPLATES.sign_up);
  });

  it('refuses a message without {####}, a blank subject and unknown shapes', async () => {
    await expectError(
      api.put('/notification-messages', { sign_up: { subject: 'Hi', message: 'no code here' } }),
      400,
      'missing_placeholder',
      'sign_up.message',
    );
    await expectError(
      api.put('/notification-messages', { sign_up: { subject: ' ', message: '{####}' } }),
      400,
      'invalid_parameter',
      'sign_up.subject',
    );
    await expectError(api.put('/notification-messages', { sign_up: { subject: 'x' } }), 400, 'invalid_parameter', 'sign_up.message');
    await expectError(api.put('/notification-messages', { sign_up: 'text' }), 400, 'invalid_parameter', 'sign_up');
    await expectError(
      api.put('/notification-messages', { forgot_password: { subject: 'ok', message: 'ok {####}' }, sign_up: { subject: 'x', message: 'none' } }),
      400,
      'missing_placeholder',
    );
    const res = (await api.get<Record<string, { subject: string }>>('/notification-messages')).body;
    assert.equal(res.sign_up!.subject, DEFAULT_TEMPLATES.sign_up.subject);
    assert.equal(res.forgot_password!.subject, 'Reset', 'a refused update changes nothing');
  });
});

describe('authentication pages and settings', () => {
  it('customize pages: defaults, partial update, validation', async () => {
    const initial = (await api.get<Record<string, unknown>>('/customize-pages')).body;
    assert.deepEqual(initial.sign_in_page, { html_contents: '', is_terms_of_service: false, is_privacy_policy: false });
    const page = { html_contents: '<h1>Welcome</h1>', is_terms_of_service: true, is_privacy_policy: false };
    assert.equal((await api.patch('/customize-pages', { sign_up_page: page })).status, 200);
    const after = (await api.get<Record<string, unknown>>('/customize-pages')).body;
    assert.deepEqual(after.sign_up_page, page);
    assert.deepEqual(after.sign_in_page, initial.sign_in_page);
    await expectError(
      api.patch('/customize-pages', { sign_in_page: { html_contents: 'x' } }),
      400,
      'invalid_parameter',
      'sign_in_page.is_terms_of_service',
    );
    await expectError(
      api.patch('/customize-pages', { sign_in_page: { ...page, html_contents: 'x'.repeat(100_001) } }),
      400,
      'invalid_parameter',
      'sign_in_page.html_contents',
    );
  });

  it('customize page settings: icons as data URLs, absolute URLs, required title', async () => {
    const settings = {
      icon: PNG,
      favicon: PNG,
      title: 'Acme',
      terms_of_service_url: 'https://acme.test/terms',
      privacy_policy_url: 'http://acme.test/privacy',
      tag_manager_container_id: 'GTM-ABC123',
      is_sign_in_id_enabled: true,
    };
    assert.equal((await api.patch('/customize-page-settings', settings)).status, 200);
    assert.deepEqual((await api.get('/customize-page-settings')).body, {
      ...settings,
      google_tag_manager_container_id: settings.tag_manager_container_id,
    });
    const bad: [Record<string, unknown>, string][] = [
      [{ icon: 'https://acme.test/icon.png' }, 'icon'],
      [{ icon: 'data:text/html;base64,PGgxPg==' }, 'icon'],
      [{ favicon: 'data:image/png;base64,***' }, 'favicon'],
      [{ icon: `data:image/png;base64,${'A'.repeat(100_000)}` }, 'icon'],
      [{ title: '' }, 'title'],
      [{ terms_of_service_url: 'acme.test/terms' }, 'terms_of_service_url'],
      [{ privacy_policy_url: 'javascript:alert(1)' }, 'privacy_policy_url'],
      [{ tag_manager_container_id: 'UA-1' }, 'tag_manager_container_id'],
    ];
    for (const [over, field] of bad)
      await expectError(api.patch('/customize-page-settings', { ...settings, ...over }), 400, 'invalid_parameter', field);
    const { title: _title, ...withoutTitle } = settings;
    await expectError(api.patch('/customize-page-settings', withoutTitle), 400, 'invalid_parameter', 'title');
    assert.deepEqual((await api.get('/customize-page-settings')).body, {
      ...settings,
      google_tag_manager_container_id: settings.tag_manager_container_id,
    });
  });

  it('callback URL', async () => {
    assert.deepEqual((await api.get('/auth-info')).body, { callback_url: '' });
    assert.equal((await api.put('/auth-info', { callback_url: 'https://app.acme.test/callback' })).status, 200);
    assert.deepEqual((await api.get('/auth-info')).body, { callback_url: 'https://app.acme.test/callback' });
    for (const callback_url of ['/callback', 'ftp://acme.test/x', 'https://', '']) {
      await expectError(api.put('/auth-info', { callback_url }), 400, 'invalid_parameter', 'callback_url');
    }
    await expectError(api.put('/auth-info', {}), 400, 'invalid_parameter', 'callback_url');
    assert.deepEqual((await api.get('/auth-info')).body, { callback_url: 'https://app.acme.test/callback' });
  });
});

describe('external provider', () => {
  const props = {
    application_id: '1234-abc.apps.googleusercontent.com',
    application_secret: 'GOCSPX-very-secret-value',
    approval_scope: 'openid email profile',
    is_button_hidden: false,
  };

  it('stores the secret sealed and returns it only masked', async () => {
    // Unset: the member the SDKs' model requires, with empty values.
    assert.deepEqual((await api.get('/identity-providers')).body, {
      google: { application_id: '', application_secret: '', approval_scope: '', is_button_hidden: false },
    });
    assert.equal((await api.put('/identity-providers', { provider: 'Google', identity_provider_props: props })).status, 200);
    const read = (await api.get<{ google: typeof props }>('/identity-providers')).body;
    assert.equal(read.google.application_id, props.application_id);
    assert.equal(read.google.approval_scope, props.approval_scope);
    assert.equal(read.google.application_secret, '********alue');
    const stored = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.setting(saasId, 'identity-providers') }));
    assert.ok(!JSON.stringify(stored.Item).includes(props.application_secret), 'no plaintext secret in the table');
    assert.equal(await configurationService().providerSecret(saasId), props.application_secret);
  });

  it('keeps the secret when the masked value comes back, replaces it when a new one comes', async () => {
    const masked = (await api.get<{ google: typeof props }>('/identity-providers')).body.google;
    assert.equal(
      (await api.put('/identity-providers', { provider: 'Google', identity_provider_props: { ...masked, approval_scope: 'openid' } })).status,
      200,
    );
    assert.equal(await configurationService().providerSecret(saasId), props.application_secret);
    await expectError(
      api.put('/identity-providers', { provider: 'Google', identity_provider_props: { ...masked, application_secret: '********xxxx' } }),
      400,
      'invalid_parameter',
      'identity_provider_props.application_secret',
    );
    assert.equal(
      (await api.put('/identity-providers', { provider: 'Google', identity_provider_props: { ...props, application_secret: 'new-secret-123456' } }))
        .status,
      200,
    );
    assert.equal(await configurationService().providerSecret(saasId), 'new-secret-123456');
    assert.equal((await api.get<{ google: typeof props }>('/identity-providers')).body.google.application_secret, '********3456');
  });

  it('takes an integer application id, refuses other providers, and turns off with null', async () => {
    assert.equal(
      (await api.put('/identity-providers', { provider: 'Google', identity_provider_props: { ...props, application_id: 42 } })).status,
      200,
    );
    assert.equal((await api.get<{ google: { application_id: unknown } }>('/identity-providers')).body.google.application_id, 42);
    await expectError(api.put('/identity-providers', { provider: 'Facebook', identity_provider_props: props }), 400, 'invalid_parameter', 'provider');
    await expectError(api.put('/identity-providers', { identity_provider_props: props }), 400, 'invalid_parameter', 'provider');
    await expectError(
      api.put('/identity-providers', { provider: 'Google', identity_provider_props: { ...props, application_secret: '' } }),
      400,
      'invalid_parameter',
      'identity_provider_props',
    );
    assert.equal((await api.put('/identity-providers', { provider: 'Google', identity_provider_props: null })).status, 200);
    // Unset: the member the SDKs' model requires, with empty values.
    assert.deepEqual((await api.get('/identity-providers')).body, {
      google: { application_id: '', application_secret: '', approval_scope: '', is_button_hidden: false },
    });
  });
});

describe('sign-in settings', () => {
  type Settings = Record<string, Record<string, unknown>>;

  it('returns defaults with the fixed members and the computed provider configuration', async () => {
    const s = (await api.get<Settings>('/sign-in-settings')).body;
    assert.equal(s.password_policy!.minimum_length, 8);
    assert.deepEqual(s.mfa_configuration, { mfa_configuration: 'on' });
    assert.deepEqual(s.account_verification, { verification_method: 'code', sending_to: 'email' });
    assert.deepEqual(s.recaptcha_props, { site_key: '', secret_key: '' });
    assert.deepEqual(s.self_regist, { enable: false });
    assert.ok(String(s.identity_provider_configuration!.entity_id).includes(saasId));
  });

  it('updates the password policy, device remembering and self sign-up; a round trip of the whole read is accepted', async () => {
    const s = (await api.get<Settings>('/sign-in-settings')).body;
    const policy = {
      minimum_length: 12,
      is_require_lowercase: true,
      is_require_numbers: false,
      is_require_symbols: false,
      is_require_uppercase: true,
      temporary_password_validity_days: 3,
    };
    const update = { ...s, password_policy: policy, device_configuration: { device_remembering: 'always' }, self_regist: { enable: true } };
    assert.equal((await api.put('/sign-in-settings', update)).status, 200);
    const after = (await api.get<Settings>('/sign-in-settings')).body;
    assert.deepEqual(after.password_policy, policy);
    assert.deepEqual(after.device_configuration, { device_remembering: 'always' });
    assert.deepEqual(after.self_regist, { enable: true });
    assert.deepEqual(await configurationService().passwordPolicy(saasId), policy);
    // Reordered keys are the same value.
    assert.equal((await api.put('/sign-in-settings', { account_verification: { sending_to: 'email', verification_method: 'code' } })).status, 200);
  });

  it('refuses out-of-range values and changes to fixed members, naming the field', async () => {
    // Each case spoils one field of the policy as stored, so the refusal can only come from that field.
    const before = (await api.get<Settings>('/sign-in-settings')).body;
    const policy = before.password_policy;
    const cases: [Record<string, unknown>, string, string][] = [
      [{ password_policy: { ...policy, minimum_length: 5 } }, 'invalid_parameter', 'password_policy.minimum_length'],
      [{ password_policy: { ...policy, minimum_length: 100 } }, 'invalid_parameter', 'password_policy.minimum_length'],
      [
        { password_policy: { ...policy, temporary_password_validity_days: 0 } },
        'invalid_parameter',
        'password_policy.temporary_password_validity_days',
      ],
      [
        { password_policy: { ...policy, temporary_password_validity_days: 366 } },
        'invalid_parameter',
        'password_policy.temporary_password_validity_days',
      ],
      [{ password_policy: { ...policy, is_require_numbers: 'yes' } }, 'invalid_parameter', 'password_policy.is_require_numbers'],
      [{ device_configuration: { device_remembering: 'sometimes' } }, 'invalid_parameter', 'device_configuration.device_remembering'],
      [{ self_regist: {} }, 'invalid_parameter', 'self_regist.enable'],
      [{ mfa_configuration: { mfa_configuration: 'optional' } }, 'read_only_setting', 'mfa_configuration'],
      [{ recaptcha_props: { site_key: 'k', secret_key: 's' } }, 'read_only_setting', 'recaptcha_props'],
      [{ account_verification: { verification_method: 'link', sending_to: 'email' } }, 'read_only_setting', 'account_verification'],
      [{ identity_provider_configuration: { domain: 'evil.test' } }, 'read_only_setting', 'identity_provider_configuration'],
    ];
    for (const [body, type, field] of cases) await expectError(api.put('/sign-in-settings', body), 400, type, field);
    assert.deepEqual((await api.get('/sign-in-settings')).body, before);
  });
});

describe('isolation', () => {
  it('another SaaS sees its own defaults, not this one', async () => {
    const other = (await h.newSaas()).client;
    assert.equal((await other.get<{ domain_name: string }>('/basic-info')).body.domain_name, '');
    assert.deepEqual((await other.get('/notification-messages')).body, DEFAULT_TEMPLATES);
    assert.deepEqual((await other.get<{ google: { application_id: string } }>('/identity-providers')).body.google.application_id, '');
    assert.deepEqual((await other.get('/auth-info')).body, { callback_url: '' });
    const defRead = await h.newKey(saasId, ['config:read']);
    assert.equal((await defRead.get('/basic-info')).status, 200);
    assert.equal((await defRead.put('/auth-info', { callback_url: 'https://x.test' })).status, 403);
  });
});
