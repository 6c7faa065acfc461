/**
 * The configuration of a SaaS: basic configuration (domain and sender addresses), notification templates,
 * authentication pages and their settings, the callback URL, the external provider, and the sign-in
 * settings with the password policy. Each is one settings document; reads fill in defaults.
 */
import { isDeepStrictEqual } from 'node:util';
import * as Type from '@sinclair/typebox';
import type { SecretBox } from '../../crypto/secret-box.js';
import { DomainError, invalid } from '../../errors.js';
import { DEFAULT_TEMPLATES, PLACEHOLDER } from '../mail/default-templates.js';
import {
  CustomizePages,
  CustomizePageSettings,
  DnsRecord,
  DomainName,
  HttpUrl,
  IdentityProviderProps,
  PasswordPolicy,
  RefreshTokenValidity,
  SignInSettings,
  TEMPLATE_NAMES,
  type BasicInfo,
  type CustomizePageSettingsUpdate,
  type StoredIdentityProviderProps,
  type SignInSettingsUpdate,
  type PasswordSignIn,
  type TemplateSet,
  type TemplateUpdate,
} from '../../schemas/configuration.js';
import { DEFAULT_PASSWORD_POLICY, type BreachedRangeService, type SaasPasswordPolicy } from './password-policy.js';
import type { SettingsRepository } from './settings.js';
import { usableSettings } from './stored.js';

/** The e-mail sending identity of a domain: SES on AWS, a stand-in locally. */
export interface EmailIdentityPort {
  /** Creates the identity if needed; answers its DKIM tokens and whether DNS has been verified. */
  ensure(domain: string): Promise<{ dkimTokens: string[]; verified: boolean }>;
  status(domain: string): Promise<{ dkimTokens: string[]; verified: boolean } | undefined>;
  /** True once the account may send to any address (SES production access). */
  productionAccess(): Promise<boolean>;
}

type BasicChange = { domain_name: string; from_email_address: string; reply_email_address?: string };
const mailDomainOf = (change: BasicChange) => (change.from_email_address.split('@')[1] as string).toLowerCase();

interface BasicDocument {
  domain_name: string;
  from_email_address: string;
  reply_email_address: string;
  mail_domain: string;
  dkim_tokens: string[];
  is_dns_validated: boolean;
  /** The domain's certificate, its validation record once the issuer made it. */
  certificate_id?: string;
  certificate_record?: DnsRecord;
  /** The name the domain's CNAME targets, once the certificate is issued and the API served on the domain. */
  domain_target?: string;
  /** The CNAME was seen pointing at the target: links use the domain from then on. */
  domain_live?: boolean;
  /** This SaaS holds the domain (its claim was written with this document); absent in documents saved before claims. */
  domain_held?: boolean;
}

/**
 * A SaaS's own domain for its login screen (shared/adapters/site-domains.ts): a certificate validated by a record the
 * SaaS adds, then the API served on the domain, which the SaaS's CNAME targets.
 */
export interface SiteDomainPort {
  /** Asks for a certificate for the domain; answers its id. */
  requestCertificate(domain: string): Promise<string>;
  /** The record that validates it, once the issuer has made it, and whether it is issued. */
  certificate(certificateId: string): Promise<{ record?: DnsRecord; issued: boolean }>;
  /** Serves the API on the domain with the issued certificate (asked again: the same); answers the CNAME's target. */
  serve(domain: string, certificateId: string): Promise<string>;
  /** Whether the domain's CNAME points at the target now. */
  pointsAt(domain: string, target: string): Promise<boolean>;
}

interface StoredProvider extends Omit<IdentityProviderProps, 'application_secret'> {
  sealed_secret: string;
  secret_hint: string;
}

interface SignInDocument {
  password_policy: PasswordPolicy;
  device_remembering: SignInSettings['device_configuration']['device_remembering'];
  self_regist: boolean;
  /** Our extension; absent in documents written before it (off). */
  passkeys?: boolean;
  /** Our extension (issue 43); absent in documents written before it (off). Only with `passkeys`. */
  passkeys_required?: boolean;
  /** Our extension; absent in documents written before it (temporary, SaaSus's behaviour). */
  sign_up_password?: SignInSettings['sign_up']['password'];
  /** Our extension; absent in documents written before it (off: SaaSus's composition rules). */
  password_length_first?: boolean;
  /** Our extension; absent in documents written before it (off: the bundled list alone). */
  password_breach_range?: boolean;
  /** Absent until set: the deployment's default (REFRESH_TOKEN_LIFETIME_SECONDS). */
  refresh_token_validity?: RefreshTokenValidity;
  /** Our extension (issue 39); absent until set or until an import (off). */
  password_sign_in?: PasswordSignIn;
  /** Our extension; absent until set: SCREEN_SESSION_DEFAULTS. */
  screen_session?: SignInSettings['screen_session'];
}

const SECONDS_PER: Record<RefreshTokenValidity['unit'], number> = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 };
/** The bounds of refresh_token_validity, as the SaaSus definition gives them: 60 minutes to 10 years. */
export const REFRESH_TOKEN_VALIDITY_SECONDS = { min: 3600, max: 3650 * 86_400 };

export const validitySeconds = (validity: RefreshTokenValidity) => validity.value * SECONDS_PER[validity.unit];

/** A number of seconds in the largest unit that says it exactly. */
function validityOf(seconds: number): RefreshTokenValidity {
  const unit = (['days', 'hours', 'minutes'] as const).find((u) => seconds % SECONDS_PER[u] === 0) ?? 'seconds';
  return { value: seconds / SECONDS_PER[unit], unit };
}

const DOC = {
  basic: 'basic-info',
  templates: 'notification-messages',
  pages: 'customize-pages',
  pageSettings: 'customize-page-settings',
  authInfo: 'auth-info',
  providers: 'identity-providers',
  signIn: 'sign-in-settings',
} as const;

/** The spec (docs/decisions.md): these cannot be changed; they are shown with these values. */
export const FIXED_SIGN_IN_MEMBERS = {
  mfa_configuration: { mfa_configuration: 'on' },
  recaptcha_props: { site_key: '', secret_key: '' },
  account_verification: { verification_method: 'code', sending_to: 'email' },
} as const;

/**
 * What each document may hold, member by member: a read leaves out what does not fit (configuration/stored.ts),
 * so that no stored value, whatever wrote it, reaches a page or an answer it would break.
 */
const SHAPES = {
  [DOC.basic]: Type.Object({
    domain_name: Type.Union([DomainName, Type.Literal('')]),
    from_email_address: Type.String(),
    reply_email_address: Type.String(),
    mail_domain: Type.String(),
    dkim_tokens: Type.Array(Type.String()),
    is_dns_validated: Type.Boolean(),
    certificate_id: Type.String(),
    certificate_record: DnsRecord,
    domain_target: Type.String(),
    domain_live: Type.Boolean(),
    domain_held: Type.Boolean(),
  }),
  [DOC.pages]: CustomizePages,
  // Before the first update the title is '', which an update would not take.
  [DOC.pageSettings]: Type.Object({ ...CustomizePageSettings.properties, title: Type.String({ maxLength: 100 }) }),
  [DOC.authInfo]: Type.Object({ callback_url: Type.Union([HttpUrl, Type.Literal('')]) }),
  [DOC.providers]: Type.Object({
    google: Type.Object({
      application_id: IdentityProviderProps.properties.application_id,
      approval_scope: IdentityProviderProps.properties.approval_scope,
      is_button_hidden: Type.Optional(Type.Boolean()),
      sealed_secret: Type.String(),
      secret_hint: Type.String(),
    }),
  }),
  [DOC.signIn]: Type.Object({
    password_policy: PasswordPolicy,
    device_remembering: SignInSettings.properties.device_configuration.properties.device_remembering,
    self_regist: Type.Boolean(),
    passkeys: Type.Boolean(),
    passkeys_required: Type.Boolean(),
    sign_up_password: SignInSettings.properties.sign_up.properties.password,
    password_length_first: Type.Boolean(),
    password_breach_range: Type.Boolean(),
    refresh_token_validity: RefreshTokenValidity,
    password_sign_in: SignInSettings.properties.password_sign_in,
    screen_session: SignInSettings.properties.screen_session,
  }),
} as const;

/** The hosted screen's session lifetimes until a SaaS sets its own (sign-in settings' `screen_session`), in minutes. */
export const SCREEN_SESSION_DEFAULTS = { idle_minutes: 60, absolute_minutes: 720 };

const EMPTY_BASIC = { domain_name: '', from_email_address: '', reply_email_address: '', mail_domain: '', dkim_tokens: [], is_dns_validated: false };

const EMPTY_PAGE_SETTINGS: CustomizePageSettings = {
  icon: '',
  favicon: '',
  title: '',
  terms_of_service_url: '',
  privacy_policy_url: '',
  tag_manager_container_id: '',
  is_sign_in_id_enabled: false,
};

const EMPTY_PAGE = { html_contents: '', is_terms_of_service: false, is_privacy_policy: false };

const DEFAULT_SIGN_IN: SignInDocument = {
  password_policy: DEFAULT_PASSWORD_POLICY,
  device_remembering: 'userOptIn',
  self_regist: false,
};

/** The members of `from` named in `names` that it has. */
function pick<T extends object, K extends keyof T>(from: T, names: readonly K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(names.filter((name) => from[name] !== undefined).map((name) => [name, from[name]])) as Partial<Pick<T, K>>;
}

/** A custom domain serves one SaaS's login screen: another SaaS cannot take it, nor learn its records. */
const domainTaken = () =>
  new DomainError(
    'conflict',
    'domain_taken',
    'domain_name: another SaaS of this service uses this domain; choose another (or have it released there first)',
    {
      field: 'domain_name',
    },
  );

export const MASK = '********';

export function maskSecret(secret: string): string {
  return secret.length > 8 ? `${MASK}${secret.slice(-4)}` : MASK;
}

export class ConfigurationService {
  constructor(
    private readonly settings: SettingsRepository,
    private readonly box: SecretBox,
    private readonly identities: EmailIdentityPort,
    /** The deployment's own domain: the default sender's, and what the DNS records point at. */
    private readonly defaultDomainName: string,
    /** The hosted login screen of a SaaS (functions/login), ending in `/`: on the service's URL, or on `origin`. */
    private readonly hostedLoginScreen: (saasId: string, origin?: string) => string,
    private readonly domains: SiteDomainPort,
    /** The service's public URL (`https://host/v1/auth`): where external providers send people back. */
    private readonly publicBaseUrl: string,
    /** How long refresh tokens live when a SaaS has not said (REFRESH_TOKEN_LIFETIME_SECONDS). */
    private readonly defaultRefreshTokenSeconds = 30 * 86_400,
    /** A name the deployment serves itself (shared/screen-hosts.ts, isServiceDomain): never a SaaS's own domain. */
    private readonly serviceDomain: (domain: string) => boolean = () => false,
    /** What password_sign_in names beyond its own shape (the lazy migration's group mapping: the SaaS's tenants, envs, roles). */
    private readonly checkPasswordSignIn: (saasId: string, value: PasswordSignIn) => Promise<void> = async () => {},
  ) {}

  /** What can be used of a stored document (configuration/stored.ts); undefined when it was never saved. */
  private async read<T extends object>(saasId: string, document: keyof typeof SHAPES): Promise<Partial<T> | undefined> {
    return usableSettings<T>(SHAPES[document], await this.settings.get<unknown>(saasId, document), { saasId, document });
  }

  /** The basic document with what an unusable member left out falls back to; undefined when never saved. */
  private async basicDocument(saasId: string): Promise<BasicDocument | undefined> {
    const stored = await this.read<BasicDocument>(saasId, DOC.basic);
    return stored && { ...EMPTY_BASIC, ...stored };
  }

  // Basic configuration

  /** Basic configuration, with each member the SDKs name differently answered under both names. */
  async basicInfo(saasId: string): Promise<BasicInfo> {
    const info = await this.neutralBasicInfo(saasId);
    return { ...info, cloud_front_dns_record: info.cdn_dns_record, is_ses_sandbox_granted: info.is_mail_sandbox_granted };
  }

  private async neutralBasicInfo(saasId: string): Promise<Omit<BasicInfo, 'cloud_front_dns_record' | 'is_ses_sandbox_granted'>> {
    const doc = await this.basicDocument(saasId);
    const base = {
      default_domain_name: this.defaultDomainName,
      is_mail_sandbox_granted: await this.identities.productionAccess(),
    };
    if (!doc) {
      return {
        domain_name: '',
        is_dns_validated: false,
        certificate_dns_record: { type: 'CNAME', name: '', value: '' },
        cdn_dns_record: { type: 'CNAME', name: '', value: '' },
        dkim_dns_records: [],
        from_email_address: '',
        reply_email_address: '',
        ...base,
      };
    }
    let next = { ...doc };
    if (!next.is_dns_validated && doc.mail_domain) {
      const status = await this.identities.status(doc.mail_domain);
      if (status?.verified) next = { ...next, is_dns_validated: true, dkim_tokens: status.dkimTokens };
    }
    next = await this.progressDomain(saasId, next);
    if (!isDeepStrictEqual(next, doc)) await this.settings.put<BasicDocument>(saasId, DOC.basic, next);
    const { is_dns_validated, dkim_tokens } = next;
    return {
      domain_name: doc.domain_name,
      is_dns_validated,
      certificate_dns_record: next.certificate_record ?? { type: 'CNAME', name: '', value: '' },
      cdn_dns_record: { type: 'CNAME', name: `${doc.domain_name}.`, value: next.domain_target ? `${next.domain_target}.` : '' },
      dkim_dns_records: dkim_tokens.map((token): DnsRecord => ({
        type: 'CNAME',
        name: `${token}._domainkey.${doc.mail_domain}.`,
        value: `${token}.dkim.amazonses.com.`,
      })),
      from_email_address: doc.from_email_address,
      reply_email_address: doc.reply_email_address,
      ...base,
    };
  }

  /**
   * One step further for the SaaS's domain, as far as it can go now: the certificate's record once the issuer
   * made it, the API served on the domain once the certificate is issued (the SaaS added the record), and live
   * once the domain's CNAME points at the target. Read on every Get Basic Information until live.
   */
  private async progressDomain(saasId: string, doc: BasicDocument): Promise<BasicDocument> {
    if (!doc.domain_name) return doc;
    const next = { ...doc };
    if (!next.domain_held) {
      // Saved before domains were held (live or not): held now, or, when another SaaS holds it, nothing of it
      // shown, made or used here.
      if (!(await this.settings.putHoldingDomain(saasId, DOC.basic, { ...next, domain_held: true }, { hold: doc.domain_name }))) {
        const { certificate_id: _id, certificate_record: _record, domain_target: _target, domain_live: _live, ...without } = next;
        return without;
      }
      next.domain_held = true;
    }
    if (next.domain_live) return next;
    next.certificate_id ??= await this.domains.requestCertificate(doc.domain_name);
    if (!next.domain_target) {
      const certificate = await this.domains.certificate(next.certificate_id);
      if (certificate.record) next.certificate_record = certificate.record;
      if (certificate.issued) next.domain_target = await this.domains.serve(doc.domain_name, next.certificate_id);
    }
    if (next.domain_target && (await this.domains.pointsAt(doc.domain_name, next.domain_target))) next.domain_live = true;
    return next;
  }

  async updateBasicInfo(saasId: string, change: BasicChange): Promise<void> {
    this.refuseServiceDomain(change.domain_name.toLowerCase());
    const identity = await this.identities.ensure(mailDomainOf(change));
    await this.saveBasic(saasId, change, identity, async (domain) => ({ certificate_id: await this.domains.requestCertificate(domain) }));
  }

  /**
   * An export's basic settings (migration/setting-rows.ts), saved as PUT saves them but without the sender's
   * identity or the domain's certificate: the import's worker may not make them (only the configuration function
   * reaches SES and ACM). The SaaS PUTs the same body on the target to make the identity and answer its DKIM
   * records; the domain's certificate is requested at its next Get Basic Information. Until the identity is
   * made there, mail goes from the service's own address (senderAddresses).
   */
  async importBasicInfo(saasId: string, change: BasicChange): Promise<void> {
    this.refuseServiceDomain(change.domain_name.toLowerCase());
    await this.saveBasic(saasId, change, { dkimTokens: [], verified: false }, async () => ({}));
  }

  private refuseServiceDomain(domain: string): void {
    if (domain && this.serviceDomain(domain)) {
      throw invalid(
        'domain_reserved',
        "domain_name: is this service's own (its login domain, a name under it, or the API's host); choose a domain of your own",
        { field: 'domain_name' },
      );
    }
  }

  private async saveBasic(
    saasId: string,
    change: BasicChange,
    identity: { dkimTokens: string[]; verified: boolean },
    certify: (domain: string) => Promise<Pick<BasicDocument, 'certificate_id'>>,
  ): Promise<void> {
    const domain = change.domain_name.toLowerCase();
    const mailDomain = mailDomainOf(change);
    const current = await this.basicDocument(saasId);
    const same = current !== undefined && current.domain_name === domain;
    // Asked before the certificate, so no certificate is requested for a domain another SaaS holds; the
    // transaction below is what holds it (two SaaS asking at once: one wins).
    if (domain && !same) {
      const holder = await this.settings.domainHolder(domain);
      if (holder !== undefined && holder !== saasId) throw domainTaken();
    }
    // The same domain keeps its certificate and its progress; another starts afresh.
    const domainState = same
      ? pick(current, ['certificate_id', 'certificate_record', 'domain_target', 'domain_live'])
      : domain
        ? await certify(domain)
        : {};
    const held = await this.settings.putHoldingDomain<BasicDocument>(
      saasId,
      DOC.basic,
      {
        ...domainState,
        domain_name: domain,
        from_email_address: change.from_email_address,
        reply_email_address: change.reply_email_address ?? '',
        mail_domain: mailDomain,
        dkim_tokens: identity.dkimTokens,
        is_dns_validated: identity.verified,
        ...(domain ? { domain_held: true } : {}),
      },
      { ...(domain ? { hold: domain } : {}), ...(current?.domain_name && !same ? { release: current.domain_name } : {}) },
    );
    if (!held) throw domainTaken();
  }

  /** Where mail of this SaaS comes from. */
  async senderAddresses(saasId: string): Promise<{ from: string; replyTo?: string }> {
    const doc = await this.basicDocument(saasId);
    // No identity made for it yet (an import's, until the SaaS PUTs it there): SES would refuse that sender.
    const unmade = doc !== undefined && !doc.is_dns_validated && doc.dkim_tokens.length === 0;
    if (!doc?.from_email_address || unmade) return { from: `no-reply@${this.defaultDomainName}` };
    return { from: doc.from_email_address, ...(doc.reply_email_address ? { replyTo: doc.reply_email_address } : {}) };
  }

  /**
   * The SaaS's sign-in page: where a 401 for a missing or bad user token sends the user (docs/decisions.md,
   * decision 1). Reads no SES state, so any function may ask.
   */
  async signInPageUrl(saasId: string): Promise<string> {
    return `${await this.loginScreenUrl(saasId)}sign-in`;
  }

  /**
   * Where the SaaS's login screen answers, ending in `/`: on its own domain once that domain is live (its CNAME
   * seen pointing at the API served there), else on the service's URL. Its pages (sign-in, invitation) are
   * relative to it. Links only point where something answers (docs/decisions.md, decision 10).
   */
  async loginScreenUrl(saasId: string): Promise<string> {
    const doc = await this.basicDocument(saasId);
    // An older row may name one of the service's own hosts: links stay on the SaaS's screen host then.
    return doc?.domain_live && !this.serviceDomain(doc.domain_name)
      ? this.hostedLoginScreen(saasId, `https://${doc.domain_name}`)
      : this.hostedLoginScreen(saasId);
  }

  /**
   * The SaaS whose screen a domain of its own serves (held by it and live), for what a browser asks of the
   * host itself (its `/favicon.ico`); undefined for any other host.
   */
  async screenOwnerOf(domain: string): Promise<string | undefined> {
    const holder = await this.settings.domainHolder(domain.toLowerCase());
    if (holder === undefined) return undefined;
    const doc = await this.basicDocument(holder);
    return doc?.domain_live && doc.domain_name === domain.toLowerCase() ? holder : undefined;
  }

  // Notification templates

  async templates(saasId: string): Promise<TemplateSet> {
    const overrides = (await this.settings.get<TemplateUpdate>(saasId, DOC.templates)) ?? {};
    return { ...DEFAULT_TEMPLATES, ...overrides };
  }

  async updateTemplates(saasId: string, update: TemplateUpdate): Promise<void> {
    for (const name of TEMPLATE_NAMES) {
      const template = update[name];
      if (template && !template.message.includes(PLACEHOLDER)) {
        throw invalid('missing_placeholder', `${name}.message: must contain ${PLACEHOLDER} where the code goes`, {
          field: `${name}.message`,
        });
      }
    }
    const current = (await this.settings.get<TemplateUpdate>(saasId, DOC.templates)) ?? {};
    const named = Object.fromEntries(TEMPLATE_NAMES.filter((n) => update[n]).map((n) => [n, update[n]]));
    await this.settings.put<TemplateUpdate>(saasId, DOC.templates, { ...current, ...named });
  }

  // Authentication pages and their settings

  async customizePages(saasId: string): Promise<CustomizePages> {
    const stored = (await this.read<CustomizePages>(saasId, DOC.pages)) ?? {};
    return { sign_up_page: EMPTY_PAGE, sign_in_page: EMPTY_PAGE, password_reset_page: EMPTY_PAGE, ...stored };
  }

  async updateCustomizePages(saasId: string, update: Partial<CustomizePages>): Promise<void> {
    const current = (await this.read<CustomizePages>(saasId, DOC.pages)) ?? {};
    await this.settings.put(saasId, DOC.pages, { ...current, ...update });
  }

  /** The page settings, the tag manager id under the spec's name and the SDKs' (google_tag_manager_container_id). */
  async customizePageSettings(saasId: string): Promise<CustomizePageSettings & { google_tag_manager_container_id: string }> {
    const stored = { ...EMPTY_PAGE_SETTINGS, ...(await this.read<CustomizePageSettings>(saasId, DOC.pageSettings)) };
    return { ...stored, google_tag_manager_container_id: stored.tag_manager_container_id };
  }

  async updateCustomizePageSettings(saasId: string, update: CustomizePageSettingsUpdate): Promise<void> {
    const { google_tag_manager_container_id: sdkName, tag_manager_container_id: specName, ...rest } = update;
    const tagManagerId = sdkName ?? specName;
    if (tagManagerId === undefined) {
      throw invalid('invalid_parameter', 'tag_manager_container_id: is required (or google_tag_manager_container_id)', {
        field: 'tag_manager_container_id',
      });
    }
    const value: CustomizePageSettings = { ...rest, tag_manager_container_id: tagManagerId };
    for (const field of ['icon', 'favicon'] as const) {
      const data = value[field].split(',')[1];
      if (data !== undefined && Buffer.from(data, 'base64').toString('base64').replace(/=+$/, '') !== data.replace(/=+$/, '')) {
        throw invalid('invalid_parameter', `${field}: is not valid base64`, { field });
      }
    }
    await this.settings.put(saasId, DOC.pageSettings, { is_sign_in_id_enabled: false, ...value });
  }

  async authInfo(saasId: string): Promise<{ callback_url: string }> {
    return { callback_url: '', ...(await this.read<{ callback_url: string }>(saasId, DOC.authInfo)) };
  }

  async updateAuthInfo(saasId: string, value: { callback_url: string }): Promise<void> {
    await this.settings.put(saasId, DOC.authInfo, value);
  }

  // External provider

  /** Google is always there (the SDKs' model requires it): an unset provider has empty values and a visible button. */
  async identityProviders(saasId: string): Promise<{ google: StoredIdentityProviderProps }> {
    const stored = (await this.read<{ google: StoredProvider }>(saasId, DOC.providers)) ?? {};
    if (!stored.google) return { google: { application_id: '', application_secret: '', approval_scope: '', is_button_hidden: false } };
    const { sealed_secret: _sealed, secret_hint, ...props } = stored.google;
    return { google: { ...props, application_secret: secret_hint } };
  }

  /** The secret is sealed and never returned; sending back the masked value keeps the stored secret. */
  async updateIdentityProvider(saasId: string, props: IdentityProviderProps | null): Promise<void> {
    if (props === null) {
      await this.settings.put(saasId, DOC.providers, {});
      return;
    }
    const current = (await this.read<{ google: StoredProvider }>(saasId, DOC.providers))?.google;
    const { application_secret, ...rest } = props;
    let sealed: { sealed_secret: string; secret_hint: string };
    if (current && application_secret === current.secret_hint) {
      sealed = { sealed_secret: current.sealed_secret, secret_hint: current.secret_hint };
    } else if (application_secret.startsWith(MASK)) {
      throw invalid('invalid_parameter', 'identity_provider_props.application_secret: send the secret itself, not a masked value', {
        field: 'identity_provider_props.application_secret',
      });
    } else {
      sealed = {
        sealed_secret: await this.box.seal(application_secret, { saasId, provider: 'google' }),
        secret_hint: maskSecret(application_secret),
      };
    }
    await this.settings.put<{ google: StoredProvider }>(saasId, DOC.providers, {
      google: { is_button_hidden: false, ...rest, ...sealed },
    });
  }

  /** For the sign-in flow: the provider's secret in plaintext. */
  async providerSecret(saasId: string): Promise<string | undefined> {
    const stored = (await this.read<{ google: StoredProvider }>(saasId, DOC.providers))?.google;
    return stored ? this.box.open(stored.sealed_secret, { saasId, provider: 'google' }) : undefined;
  }

  // Sign-in settings and the password policy

  /**
   * SaaSus's policy with our extensions, as every check of a new password takes it: length first, and the
   * deployment's breached-password range service (`range`) when the SaaS turned it on.
   */
  async passwordPolicy(saasId: string, range?: BreachedRangeService): Promise<SaasPasswordPolicy> {
    const doc = await this.signInDocument(saasId);
    return {
      ...doc.password_policy,
      ...(doc.password_length_first ? { length_first: true } : {}),
      ...(doc.passkeys && doc.passkeys_required ? { second_factor: true } : {}),
      ...(doc.password_breach_range && range ? { breached_range: range } : {}),
    };
  }

  private identityProviderConfiguration(saasId: string): SignInSettings['identity_provider_configuration'] {
    return {
      domain: new URL(this.publicBaseUrl).host,
      redirect_url: `${this.publicBaseUrl}/oauth2/idpresponse`,
      entity_id: `${this.publicBaseUrl}/saml2/metadata/${encodeURIComponent(saasId)}`,
      reply_url: `${this.publicBaseUrl}/saml2/idpresponse`,
    };
  }

  private async signInDocument(saasId: string): Promise<SignInDocument> {
    return { ...DEFAULT_SIGN_IN, ...(await this.read<SignInDocument>(saasId, DOC.signIn)) };
  }

  async signInSettings(saasId: string): Promise<SignInSettings> {
    const doc = await this.signInDocument(saasId);
    return {
      password_policy: doc.password_policy,
      device_configuration: { device_remembering: doc.device_remembering },
      ...structuredClone(FIXED_SIGN_IN_MEMBERS),
      self_regist: { enable: doc.self_regist },
      identity_provider_configuration: this.identityProviderConfiguration(saasId),
      // `required` only when set: the answer of a SaaS that never chose it stays as it was.
      passkeys: { enable: doc.passkeys ?? false, ...(doc.passkeys && doc.passkeys_required ? { required: true } : {}) },
      sign_up: { password: doc.sign_up_password ?? 'temporary' },
      password_length_first: { enable: doc.password_length_first ?? false },
      password_breach_range: { enable: doc.password_breach_range ?? false },
      refresh_token_validity: doc.refresh_token_validity ?? validityOf(this.defaultRefreshTokenSeconds),
      password_sign_in: doc.password_sign_in ?? { user_password_auth: false },
      screen_session: doc.screen_session ?? { ...SCREEN_SESSION_DEFAULTS },
    };
  }

  /** An import turns password sign-in on, so its users can sign in at once, unless the SaaS has set it either way. */
  async passwordSignInForImport(saasId: string): Promise<void> {
    const doc = await this.signInDocument(saasId);
    if (doc.password_sign_in) return;
    await this.settings.put<SignInDocument>(saasId, DOC.signIn, { ...doc, password_sign_in: { user_password_auth: true } });
  }

  /** How long a refresh token issued now for this SaaS lives, in seconds. */
  async refreshTokenSeconds(saasId: string): Promise<number> {
    return validitySeconds((await this.signInSettings(saasId)).refresh_token_validity);
  }

  async updateSignInSettings(saasId: string, update: SignInSettingsUpdate): Promise<void> {
    const fixed: Record<string, unknown> = { ...FIXED_SIGN_IN_MEMBERS, identity_provider_configuration: this.identityProviderConfiguration(saasId) };
    for (const [member, value] of Object.entries(fixed)) {
      const given = update[member as keyof SignInSettingsUpdate];
      if (given !== undefined && !isDeepStrictEqual(given, value)) {
        throw invalid('read_only_setting', `${member}: cannot be changed (it is ${JSON.stringify(value)})`, { field: member });
      }
    }
    const validity = update.refresh_token_validity;
    if (validity) {
      const seconds = validitySeconds(validity);
      if (seconds < REFRESH_TOKEN_VALIDITY_SECONDS.min || seconds > REFRESH_TOKEN_VALIDITY_SECONDS.max) {
        throw invalid('invalid_parameter', 'refresh_token_validity: must be between 60 minutes and 10 years', { field: 'refresh_token_validity' });
      }
    }
    const session = update.screen_session;
    if (session && session.idle_minutes > session.absolute_minutes) {
      throw invalid('invalid_parameter', 'screen_session: idle_minutes cannot be longer than absolute_minutes', { field: 'screen_session' });
    }
    if (update.passkeys?.required && !update.passkeys.enable) {
      throw invalid('invalid_parameter', 'passkeys: required needs enable (a passkey cannot be required where none is offered)', {
        field: 'passkeys',
      });
    }
    if (update.password_sign_in) await this.checkPasswordSignIn(saasId, update.password_sign_in);
    const doc = await this.signInDocument(saasId);
    const refreshTokenValidity = validity ?? doc.refresh_token_validity;
    const screenSession = session ?? doc.screen_session;
    await this.settings.put<SignInDocument>(saasId, DOC.signIn, {
      password_policy: update.password_policy ?? doc.password_policy,
      device_remembering: update.device_configuration?.device_remembering ?? doc.device_remembering,
      self_regist: update.self_regist?.enable ?? doc.self_regist,
      passkeys: update.passkeys?.enable ?? doc.passkeys ?? false,
      passkeys_required: update.passkeys ? (update.passkeys.required ?? false) : (doc.passkeys_required ?? false),
      sign_up_password: update.sign_up?.password ?? doc.sign_up_password ?? 'temporary',
      password_length_first: update.password_length_first?.enable ?? doc.password_length_first ?? false,
      password_breach_range: update.password_breach_range?.enable ?? doc.password_breach_range ?? false,
      ...(refreshTokenValidity ? { refresh_token_validity: refreshTokenValidity } : {}),
      ...((update.password_sign_in ?? doc.password_sign_in) ? { password_sign_in: update.password_sign_in ?? doc.password_sign_in } : {}),
      ...(screenSession ? { screen_session: screenSession } : {}),
    });
  }
}
