import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { OperationSchema } from './operation.js';
import { Count, Email, EnvId, PathParam } from './common.js';
import { WEB_URL_FORMAT } from './web-url.js';

export const DnsRecord = Type.Object({ type: Type.Literal('CNAME'), name: Type.String(), value: Type.String() }, { $id: 'DnsRecord' });
export type DnsRecord = Static<typeof DnsRecord>;

/** A DNS name: labels of letters, digits and hyphens, at least one dot, no scheme or path. */
export const DomainName = Type.String({
  maxLength: 253,
  pattern: '^(?=.{1,253}$)(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*\\.[A-Za-z]{2,63}$',
  description: 'a domain name such as auth.example.com (no scheme, no path)',
});

export const BasicInfo = Type.Object(
  {
    domain_name: Type.String(),
    is_dns_validated: Type.Boolean(),
    certificate_dns_record: DnsRecord,
    cdn_dns_record: DnsRecord,
    /** The SDKs' name of cdn_dns_record: the same record. */
    cloud_front_dns_record: DnsRecord,
    dkim_dns_records: Type.Array(DnsRecord),
    default_domain_name: Type.String(),
    from_email_address: Type.String(),
    reply_email_address: Type.String(),
    is_mail_sandbox_granted: Type.Boolean(),
    /** The SDKs' name of is_mail_sandbox_granted: the same value. */
    is_ses_sandbox_granted: Type.Boolean(),
  },
  {
    $id: 'BasicInfo',
    description:
      'cloud_front_dns_record and is_ses_sandbox_granted are the SDK names of cdn_dns_record and is_mail_sandbox_granted; both are answered',
  },
);
export type BasicInfo = Static<typeof BasicInfo>;

export const MessageTemplate = Type.Object(
  {
    subject: Type.String({ minLength: 1, maxLength: 300, pattern: '\\S', description: 'not blank' }),
    message: Type.String({ minLength: 1, maxLength: 20000 }),
  },
  { $id: 'MessageTemplate' },
);
export type MessageTemplate = Static<typeof MessageTemplate>;

export const TEMPLATE_NAMES = [
  'sign_up',
  'create_user',
  'resend_code',
  'forgot_password',
  'update_user_attribute',
  'verify_user_attribute',
  'authentication_mfa',
  'invite_tenant_user',
  'verify_external_user',
] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

const templateMembers = (optional: boolean) =>
  Object.fromEntries(TEMPLATE_NAMES.map((name) => [name, optional ? Type.Optional(MessageTemplate) : MessageTemplate])) as Record<
    TemplateName,
    typeof MessageTemplate
  >;

export const TemplateSet = Type.Object(templateMembers(false), { $id: 'MessageTemplates' });
export type TemplateSet = Static<typeof TemplateSet>;
export const TemplateUpdate = Type.Partial(Type.Object(templateMembers(true)));
export type TemplateUpdate = Partial<TemplateSet>;

export const CustomizePageProps = Type.Object(
  {
    html_contents: Type.String({ maxLength: 100_000 }),
    is_terms_of_service: Type.Boolean(),
    is_privacy_policy: Type.Boolean(),
  },
  { $id: 'CustomizePageProps' },
);
export const CustomizePages = Type.Object(
  { sign_up_page: CustomizePageProps, sign_in_page: CustomizePageProps, password_reset_page: CustomizePageProps },
  { $id: 'CustomizePages' },
);
export type CustomizePages = Static<typeof CustomizePages>;

const HttpUrlOrEmpty = Type.String({
  maxLength: 2048,
  pattern: '^(|https?://[^\\s/?#]+[^\\s]*)$',
  format: WEB_URL_FORMAT,
  description: "an absolute http(s) URL, or '' for none",
});

/** data:image/...;base64,... at most about 75 KB of image, so two fit in one request. */
const ImageDataUrl = Type.String({
  maxLength: 100_000,
  pattern: '^(|data:image/(png|jpeg|gif|webp|svg\\+xml|x-icon|vnd\\.microsoft\\.icon);base64,[A-Za-z0-9+/]+={0,2})$',
  description: "a base64 data URL of a png, jpeg, gif, webp, svg or ico image of at most 100000 characters, or ''",
});

const TagManagerId = Type.String({ maxLength: 50, pattern: '^(|GTM-[A-Z0-9]+)$', description: "a GTM-XXXX id, or ''" });

export const CustomizePageSettings = Type.Object(
  {
    icon: ImageDataUrl,
    favicon: ImageDataUrl,
    title: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'not blank' }),
    terms_of_service_url: HttpUrlOrEmpty,
    privacy_policy_url: HttpUrlOrEmpty,
    tag_manager_container_id: TagManagerId,
    is_sign_in_id_enabled: Type.Optional(Type.Boolean()),
  },
  { $id: 'CustomizePageSettings' },
);
export type CustomizePageSettings = Static<typeof CustomizePageSettings>;

/**
 * What Update takes: the tag manager id under the spec's name or the SDKs' (`google_tag_manager_container_id`);
 * when both are given and differ, the SDKs' name wins (it is what an SDK user set).
 */
export const CustomizePageSettingsUpdate = Type.Composite(
  [
    Type.Omit(CustomizePageSettings, ['tag_manager_container_id']),
    Type.Object({ tag_manager_container_id: Type.Optional(TagManagerId), google_tag_manager_container_id: Type.Optional(TagManagerId) }),
  ],
  {
    $id: 'CustomizePageSettingsUpdate',
    description: 'tag_manager_container_id or its SDK name google_tag_manager_container_id (which wins when both differ) is required',
  },
);
export type CustomizePageSettingsUpdate = Static<typeof CustomizePageSettingsUpdate>;

/** What Get answers: before the first update every member is empty, which an update would not accept. */
export const StoredCustomizePageSettings = Type.Object(
  {
    icon: Type.String(),
    favicon: Type.String(),
    title: Type.String(),
    terms_of_service_url: Type.String(),
    privacy_policy_url: Type.String(),
    tag_manager_container_id: Type.String(),
    /** The SDKs' name of tag_manager_container_id: the same value. */
    google_tag_manager_container_id: Type.String(),
    is_sign_in_id_enabled: Type.Optional(Type.Boolean()),
  },
  {
    $id: 'StoredCustomizePageSettings',
    description: 'google_tag_manager_container_id is the SDK name of tag_manager_container_id; both are answered',
  },
);

export const HttpUrl = Type.String({
  maxLength: 2048,
  pattern: '^https?://[^\\s/?#]+[^\\s]*$',
  format: WEB_URL_FORMAT,
  description: 'an absolute http(s) URL',
});

/** Google client ids are strings; the spec types the field as an integer: both are taken and kept as given. */
export const IdentityProviderProps = Type.Object(
  {
    application_id: Type.Union([Type.String({ minLength: 1, maxLength: 256 }), Count], {
      description: 'the OAuth client id (string or integer)',
    }),
    application_secret: Type.String({ minLength: 1, maxLength: 512 }),
    approval_scope: Type.String({ maxLength: 1024, pattern: '^[\\x21-\\x7e]*( [\\x21-\\x7e]+)*$', description: 'space-separated scopes' }),
    is_button_hidden: Type.Optional(Type.Boolean()),
  },
  { $id: 'IdentityProviderProps' },
);
export type IdentityProviderProps = Static<typeof IdentityProviderProps>;

/** What Get answers: a provider never set has empty values (the SDKs' model requires the member). */
export const StoredIdentityProviderProps = Type.Object(
  {
    application_id: Type.Union([Type.String({ maxLength: 256 }), Count]),
    application_secret: Type.String({ description: 'masked: ******** and the last four characters' }),
    approval_scope: Type.String(),
    is_button_hidden: Type.Optional(Type.Boolean()),
  },
  { $id: 'StoredIdentityProviderProps' },
);
export type StoredIdentityProviderProps = Static<typeof StoredIdentityProviderProps>;

export const PasswordPolicy = Type.Object(
  {
    minimum_length: Type.Integer({ minimum: 6, maximum: 99 }),
    is_require_lowercase: Type.Boolean(),
    is_require_numbers: Type.Boolean(),
    is_require_symbols: Type.Boolean(),
    is_require_uppercase: Type.Boolean(),
    temporary_password_validity_days: Type.Integer({ minimum: 1, maximum: 365 }),
  },
  { $id: 'PasswordPolicy' },
);
export type PasswordPolicy = Static<typeof PasswordPolicy>;

const DeviceRemembering = Type.Union([Type.Literal('always'), Type.Literal('userOptIn'), Type.Literal('no')]);

/**
 * Our extension (SaaSus has no passkeys): the hosted screen offers passkeys (docs/login-screen.md). Off by default.
 * `required` (issue 43, needs `enable`): every sign-in ends with a passkey; a password only enrols a person's
 * first one (docs/security.md, "Passkeys required"), and length first then asks 8 characters, not 15.
 */
const Passkeys = Type.Object(
  {
    enable: Type.Boolean({ description: 'the hosted login screen offers passkeys (extension; default false)' }),
    required: Type.Optional(
      Type.Boolean({ description: 'sign-in ends with a passkey; a password only enrols the first (extension; default false)' }),
    ),
  },
  { additionalProperties: false },
);
/**
 * Our extension: how the hosted screen's sign-up sets the password. `temporary` (SaaSus's behaviour, the
 * default) mails a temporary password; `chosen` lets the person choose it, confirmed by a mailed code
 * (shared/domain/sign-in/sign-up.ts). The API's Sign Up keeps SaaSus's contract either way.
 */
const SignUp = Type.Object(
  {
    password: Type.Union([Type.Literal('temporary'), Type.Literal('chosen')], {
      description: "the hosted screen's sign-up: a mailed temporary password (default) or one chosen and confirmed by a mailed code (extension)",
    }),
  },
  { additionalProperties: false },
);
/**
 * Our extension (NIST SP 800-63B-4, issue 43): length before composition. On, a password needs at least 15
 * characters, 8 when passkeys are required (or password_policy.minimum_length if more) after NFKC, spaces and any Unicode allowed, and the
 * composition flags of password_policy, which stay as SaaSus defines them, are not applied. Off by default.
 */
const PasswordLengthFirst = Type.Object(
  { enable: Type.Boolean({ description: 'length first: at least 15 characters, no composition rules (extension; default false)' }) },
  { additionalProperties: false },
);
const PasswordBreachRange = Type.Object(
  {
    enable: Type.Boolean({
      description:
        'also check new passwords against a breached-password range service (k-anonymity: only 5 hex characters of the SHA-1 leave); unreachable, the bundled list decides (extension; default false)',
    }),
  },
  { additionalProperties: false },
);
/**
 * Where a lazily migrated user belongs here (issue 39, docs/migration.md): a user of the old pool in `group` (the
 * `cognito:groups` claim of the ID token the old pool returns) becomes a member of the tenant with these roles in
 * the env. Checked when saved (every tenant, env and role must be this SaaS's).
 */
const GroupMapping = Type.Object(
  {
    group: Type.String({ minLength: 1, maxLength: 128, description: "a group of the old pool (the ID token's cognito:groups)" }),
    tenant_id: PathParam,
    env_id: EnvId,
    role_names: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 10 }),
  },
  { additionalProperties: false },
);
export type GroupMapping = Static<typeof GroupMapping>;

/**
 * Our extension (issue 39, docs/migration.md): sign-in with the password itself (Cognito's USER_PASSWORD_AUTH)
 * through the API, and on the hosted screen for users still on an imported hash. Off by default; an import
 * turns it on unless it was set. `cognito_pool` names a live Cognito user pool to migrate users from lazily.
 */
const PasswordSignIn = Type.Object(
  {
    user_password_auth: Type.Boolean({ description: 'USER_PASSWORD_AUTH and the first sign-in of imported users (extension; default false)' }),
    cognito_pool: Type.Optional(
      Type.Object(
        {
          region: Type.String({ pattern: '^[a-z]{2}(-[a-z]+)+-\\d$', maxLength: 32 }),
          user_pool_id: Type.String({ pattern: '^[\\w-]+_[0-9a-zA-Z]+$', maxLength: 55 }),
          client_id: Type.String({ pattern: '^[\\w+]+$', maxLength: 128 }),
          groups: Type.Optional(
            Type.Array(GroupMapping, {
              maxItems: 50,
              description: "the old pool's groups as memberships here, given to a user the lazy migration makes (extension)",
            }),
          ),
        },
        { additionalProperties: false, description: 'the old user pool of a lazy migration (USER_PASSWORD_AUTH must be allowed for its client)' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type PasswordSignIn = Static<typeof PasswordSignIn>;

/**
 * Our extension: how long a session of the hosted screen lives (docs/login-screen.md, "Signed in once"): ended
 * after `idle_minutes` unused, and `absolute_minutes` after the sign-in that made it, whatever its use. 5 minutes
 * to 30 days each (checked in the domain); defaults 60 and 720.
 */
const ScreenSession = Type.Object(
  {
    idle_minutes: Type.Integer({ minimum: 5, maximum: 43_200, description: 'a screen session unused this long ends (extension; default 60)' }),
    absolute_minutes: Type.Integer({
      minimum: 5,
      maximum: 43_200,
      description: 'a screen session ends this long after its sign-in (extension; default 720)',
    }),
  },
  { additionalProperties: false },
);
/** How long the refresh tokens issued from now on live: 60 minutes to 10 years (checked in the domain). */
export const RefreshTokenValidity = Type.Object(
  {
    value: Type.Integer({ minimum: 1, maximum: 315_360_000, description: 'with unit, between 60 minutes and 10 years' }),
    unit: Type.Union([Type.Literal('seconds'), Type.Literal('minutes'), Type.Literal('hours'), Type.Literal('days')]),
  },
  { $id: 'RefreshTokenValidity' },
);
export type RefreshTokenValidity = Static<typeof RefreshTokenValidity>;

/** Read with every member; the ones the spec fixes are accepted on write only with their fixed values. */
export const SignInSettings = Type.Object(
  {
    password_policy: PasswordPolicy,
    device_configuration: Type.Object({ device_remembering: DeviceRemembering }),
    mfa_configuration: Type.Object({ mfa_configuration: Type.String() }),
    recaptcha_props: Type.Object({ site_key: Type.String(), secret_key: Type.String() }),
    account_verification: Type.Object({ verification_method: Type.String(), sending_to: Type.String() }),
    self_regist: Type.Object({ enable: Type.Boolean() }),
    identity_provider_configuration: Type.Object({
      domain: Type.String(),
      redirect_url: Type.String(),
      entity_id: Type.String(),
      reply_url: Type.String(),
    }),
    passkeys: Passkeys,
    sign_up: SignUp,
    password_length_first: PasswordLengthFirst,
    password_breach_range: PasswordBreachRange,
    refresh_token_validity: RefreshTokenValidity,
    password_sign_in: PasswordSignIn,
    screen_session: ScreenSession,
  },
  { $id: 'SignInSettings' },
);
export type SignInSettings = Static<typeof SignInSettings>;

export const SignInSettingsUpdate = Type.Object({
  password_policy: Type.Optional(PasswordPolicy),
  device_configuration: Type.Optional(Type.Object({ device_remembering: DeviceRemembering })),
  mfa_configuration: Type.Optional(Type.Object({ mfa_configuration: Type.String() })),
  recaptcha_props: Type.Optional(Type.Object({ site_key: Type.String(), secret_key: Type.String() })),
  account_verification: Type.Optional(Type.Object({ verification_method: Type.String(), sending_to: Type.String() })),
  self_regist: Type.Optional(Type.Object({ enable: Type.Boolean() })),
  identity_provider_configuration: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  passkeys: Type.Optional(Passkeys),
  sign_up: Type.Optional(SignUp),
  password_length_first: Type.Optional(PasswordLengthFirst),
  password_breach_range: Type.Optional(PasswordBreachRange),
  refresh_token_validity: Type.Optional(RefreshTokenValidity),
  password_sign_in: Type.Optional(PasswordSignIn),
  screen_session: Type.Optional(ScreenSession),
});
export type SignInSettingsUpdate = Static<typeof SignInSettingsUpdate>;

export const configurationSchemas = {
  getBasicInfo: { response: BasicInfo },
  updateBasicInfo: {
    body: Type.Object({
      domain_name: DomainName,
      from_email_address: Email,
      reply_email_address: Type.Optional(Type.Union([Email, Type.Literal('')], { description: "an e-mail address, or ''" })),
    }),
  },
  findNotificationMessages: { response: TemplateSet },
  updateNotificationMessages: { body: TemplateUpdate },
  getCustomizePages: { response: CustomizePages },
  updateCustomizePages: { body: Type.Partial(CustomizePages) },
  getCustomizePageSettings: { response: StoredCustomizePageSettings },
  returnInternalServerError: {},
  createTenantAndPricing: {},
  deleteStripeTenantAndPricing: {},
  getPaymentProvider: {
    response: Type.Object({ provider: Type.Union([Type.Literal('stripe'), Type.Literal('')]), secret_key: Type.String({ description: 'masked' }) }),
  },
  updatePaymentProvider: {
    body: Type.Object({
      provider: Type.Literal('stripe'),
      secret_key: Type.String({ maxLength: 256, description: "a Stripe secret key (sk_test_..., sk_live_..., rk_...), or '' to remove it" }),
    }),
  },
  updateCustomizePageSettings: { body: CustomizePageSettingsUpdate },
  getAuthInfo: { response: Type.Object({ callback_url: Type.String() }) },
  updateAuthInfo: { body: Type.Object({ callback_url: HttpUrl }) },
  getIdentityProviders: { response: Type.Object({ google: StoredIdentityProviderProps }) },
  updateIdentityProvider: {
    body: Type.Object({
      provider: Type.Literal('Google'),
      identity_provider_props: Type.Optional(Type.Union([IdentityProviderProps, Type.Null()], { description: 'null, or the provider properties' })),
    }),
  },
  getSignInSettings: { response: SignInSettings },
  updateSignInSettings: { body: SignInSettingsUpdate },
} satisfies Record<string, OperationSchema>;
