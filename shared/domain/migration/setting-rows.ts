/**
 * The SaaS's settings in the export and the import (issue 39, docs/migration.md "Settings"): each is a row
 * `{"type": "setting", "name": <path>, "value": <body>}`, whose value is the body of the call that sets it
 * (PUT /sign-in-settings, PATCH /login-theme…). The export writes a row only for a setting the SaaS saved, so a
 * setting left at its defaults does not override the target's own. The import checks the value against that
 * call's body schema and applies it as the call does: the members it names are set, the others stay.
 *
 * The basic settings (the SaaS's own domain and sender) go as names only: the import saves them without the SES
 * identity or certificate, which the target makes when the SaaS PUTs them there (configuration.ts importBasicInfo).
 *
 * The one secret among them, the external provider's client secret, travels sealed under the operator's seal
 * key (export-seal.ts), bound to the row's name; without a key the row goes out without it, and the import
 * refuses that row rather than set a provider with no secret.
 *
 * A re-run of the same file changes nothing: the digest of each setting row applied is kept (SETTING_MARKS), and
 * a row whose digest is the one kept is `unchanged`, even when the setting was changed on the target since.
 */
import { createHash } from 'node:crypto';
import * as Type from '@sinclair/typebox';
import type { TSchema } from '@sinclair/typebox';
import { Clean } from '@sinclair/typebox/value';
import { invalid } from '../../errors.js';
import { checker } from '../../schemas/check.js';
import { configurationSchemas, IdentityProviderProps } from '../../schemas/configuration.js';
import type { CustomizePageSettingsUpdate, SignInSettingsUpdate } from '../../schemas/configuration.js';
import { loginThemeSchemas } from '../../schemas/login-theme.js';
import type { SettingName, SettingRow } from '../../schemas/migration.js';
import { openFromExport, sealForExport } from '../../crypto/export-seal.js';
import type { ConfigurationService } from '../configuration/configuration.js';
import type { LoginThemeService } from '../configuration/login-theme.js';
import type { SettingsRepository } from '../configuration/settings.js';

export interface SettingPorts {
  configuration: Pick<
    ConfigurationService,
    | 'signInSettings'
    | 'updateSignInSettings'
    | 'identityProviders'
    | 'providerSecret'
    | 'updateIdentityProvider'
    | 'customizePageSettings'
    | 'updateCustomizePageSettings'
    | 'customizePages'
    | 'updateCustomizePages'
    | 'templates'
    | 'updateTemplates'
    | 'authInfo'
    | 'updateAuthInfo'
    | 'importBasicInfo'
  >;
  theme: Pick<LoginThemeService, 'theme' | 'update'>;
  /** The stored documents: which settings the SaaS saved, and the import's marks. */
  settings: Pick<SettingsRepository, 'get' | 'put'>;
}

/** The settings document that keeps, per setting name, the digest of the row last applied by an import. */
const SETTING_MARKS = 'imported-settings';

/** The provider's body with its secret sealed: longer than the secret itself, and absent when exported without a key. */
const SealedProviderBody = Type.Object(
  {
    provider: Type.Literal('Google'),
    identity_provider_props: Type.Union([
      Type.Null(),
      Type.Object(
        {
          ...IdentityProviderProps.properties,
          application_secret: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'sealed under the seal_key' })),
        },
        { additionalProperties: false },
      ),
    ]),
  },
  { additionalProperties: false },
);

const BODIES: Record<SettingName, TSchema> = {
  'sign-in-settings': configurationSchemas.updateSignInSettings.body,
  'identity-providers': SealedProviderBody,
  'login-theme': loginThemeSchemas.updateLoginTheme.body,
  'customize-page-settings': configurationSchemas.updateCustomizePageSettings.body,
  'customize-pages': configurationSchemas.updateCustomizePages.body,
  'notification-messages': configurationSchemas.updateNotificationMessages.body,
  'auth-info': configurationSchemas.updateAuthInfo.body,
  'basic-info': configurationSchemas.updateBasicInfo.body,
};

/** What the provider's sealed secret is bound to: it opens on this row only. */
const PROVIDER_SECRET_BINDING = 'identity-providers.google';

/**
 * The settings the SaaS saved, as rows. Sign-in settings name every member one can set, except the fixed ones
 * and `password_sign_in` while it is off: off on the old SaaS means its own move in is over, and the move out
 * needs it on at the new one for the first sign-ins (the import turns it on unless the target chose).
 */
export async function* settingRows(ports: SettingPorts, saasId: string, sealKey: Buffer | undefined): AsyncGenerator<SettingRow> {
  // Each setting is stored in the document of its path's name (configuration.ts, login-theme.ts): out only once saved.
  const saved = async (name: SettingName) => (await ports.settings.get<unknown>(saasId, name)) !== undefined;
  const { configuration } = ports;
  if (await saved('sign-in-settings')) {
    const {
      mfa_configuration: _mfa,
      recaptcha_props: _recaptcha,
      account_verification: _verification,
      identity_provider_configuration: _idp,
      password_sign_in,
      ...value
    } = await configuration.signInSettings(saasId);
    // The group mapping names this SaaS's tenant ids, which the move changes: set it again there (docs/migration.md).
    const { cognito_pool: oldPool, ...rest } = password_sign_in;
    const moving = oldPool
      ? { ...rest, cognito_pool: { region: oldPool.region, user_pool_id: oldPool.user_pool_id, client_id: oldPool.client_id } }
      : rest;
    yield {
      type: 'setting',
      name: 'sign-in-settings',
      value: { ...value, ...(password_sign_in.user_password_auth ? { password_sign_in: moving } : {}) },
    };
  }
  if (await saved('identity-providers')) {
    const { application_secret: hint, ...props } = (await configuration.identityProviders(saasId)).google;
    // Opened only to be sealed again: without a key the secret stays where it is.
    const secret = hint && sealKey ? await configuration.providerSecret(saasId) : undefined;
    const sealed = sealKey && secret !== undefined ? { application_secret: sealForExport(sealKey, secret, PROVIDER_SECRET_BINDING) } : {};
    if (hint) yield { type: 'setting', name: 'identity-providers', value: { provider: 'Google', identity_provider_props: { ...props, ...sealed } } };
  }
  if (await saved('login-theme')) yield { type: 'setting', name: 'login-theme', value: await ports.theme.theme(saasId) };
  if (await saved('customize-page-settings')) {
    const { google_tag_manager_container_id: _sdkName, ...value } = await configuration.customizePageSettings(saasId);
    yield { type: 'setting', name: 'customize-page-settings', value };
  }
  if (await saved('customize-pages')) yield { type: 'setting', name: 'customize-pages', value: await configuration.customizePages(saasId) };
  if (await saved('notification-messages')) {
    // Only the templates the SaaS changed: the others stay the target's (its defaults).
    const changed = (await ports.settings.get<Record<string, unknown>>(saasId, 'notification-messages')) ?? {};
    const templates = await configuration.templates(saasId);
    yield {
      type: 'setting',
      name: 'notification-messages',
      value: Object.fromEntries(
        Object.keys(changed).flatMap((name) => (name in templates ? [[name, templates[name as keyof typeof templates]]] : [])),
      ),
    };
  }
  const { callback_url } = await configuration.authInfo(saasId);
  if (callback_url) yield { type: 'setting', name: 'auth-info', value: { callback_url } };
  // As stored: the answer of Get Basic Information would ask SES and ACM, which the export's caller may not reach.
  const basic = await ports.settings.get<{ domain_name?: string; from_email_address?: string; reply_email_address?: string }>(saasId, 'basic-info');
  if (basic?.from_email_address) {
    const { domain_name = '', from_email_address, reply_email_address = '' } = basic;
    yield { type: 'setting', name: 'basic-info', value: { domain_name, from_email_address, reply_email_address } };
  }
}

/** The row's value as the call takes it, or why not. */
function bodyOf(row: SettingRow): Record<string, unknown> {
  const schema = BODIES[row.name];
  const error = checker(schema).Errors(row.value).First();
  if (error) throw invalid('invalid_parameter', `value${error.path.replaceAll('/', '.')}: ${error.message}`, { field: 'value' });
  return Clean(schema, structuredClone(row.value)) as Record<string, unknown>;
}

/** Applies one setting row as its call would; `unchanged` when this very row was applied before. */
export async function applySettingRow(
  ports: SettingPorts,
  saasId: string,
  row: SettingRow,
  sealKey: Buffer | undefined,
): Promise<'imported' | 'unchanged'> {
  const body = bodyOf(row);
  const digest = createHash('sha256').update(JSON.stringify(row.value)).digest('base64url');
  const marks = (await ports.settings.get<Record<string, string>>(saasId, SETTING_MARKS)) ?? {};
  if (marks[row.name] === digest) return 'unchanged';
  const { configuration } = ports;
  switch (row.name) {
    case 'sign-in-settings':
      await configuration.updateSignInSettings(saasId, body as SignInSettingsUpdate);
      break;
    case 'identity-providers': {
      const props = body.identity_provider_props as (Omit<IdentityProviderProps, 'application_secret'> & { application_secret?: string }) | null;
      if (props === null) {
        await configuration.updateIdentityProvider(saasId, null);
        break;
      }
      if (props.application_secret === undefined)
        throw invalid('seal_key_missing', 'value.identity_provider_props.application_secret: is left out; export with a seal key');
      if (!sealKey)
        throw invalid(
          'seal_key_missing',
          'value.identity_provider_props.application_secret: is sealed; start the job with the seal_key of the export',
        );
      const secret = openFromExport(sealKey, props.application_secret, PROVIDER_SECRET_BINDING);
      if (secret === undefined) throw invalid('invalid_secret', 'value.identity_provider_props.application_secret: does not open with the seal_key');
      await configuration.updateIdentityProvider(saasId, { ...props, application_secret: secret });
      break;
    }
    case 'login-theme':
      await ports.theme.update(saasId, body);
      break;
    case 'customize-page-settings':
      await configuration.updateCustomizePageSettings(saasId, body as CustomizePageSettingsUpdate);
      break;
    case 'customize-pages':
      await configuration.updateCustomizePages(saasId, body);
      break;
    case 'notification-messages':
      await configuration.updateTemplates(saasId, body);
      break;
    case 'auth-info':
      await configuration.updateAuthInfo(saasId, body as { callback_url: string });
      break;
    case 'basic-info':
      await configuration.importBasicInfo(saasId, body as { domain_name: string; from_email_address: string; reply_email_address?: string });
      break;
  }
  await ports.settings.put(saasId, SETTING_MARKS, { ...marks, [row.name]: digest });
  return 'imported';
}
