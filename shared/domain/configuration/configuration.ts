/**
 * The configuration of a SaaS: basic configuration (domain and sender addresses), notification templates,
 * authentication pages and their settings, the callback URL, the external provider, and the sign-in
 * settings with the password policy. Each is one settings document; reads fill in defaults.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { SecretBox } from '../../crypto/secret-box.js';
import { invalid } from '../../errors.js';
import { DEFAULT_TEMPLATES, PLACEHOLDER } from '../mail/default-templates.js';
import {
  TEMPLATE_NAMES,
  type BasicInfo,
  type CustomizePages,
  type CustomizePageSettings,
  type CustomizePageSettingsUpdate,
  type StoredIdentityProviderProps,
  type DnsRecord,
  type IdentityProviderProps,
  type PasswordPolicy,
  type SignInSettings,
  type SignInSettingsUpdate,
  type TemplateSet,
  type TemplateUpdate,
} from '../../schemas/configuration.js';
import { DEFAULT_PASSWORD_POLICY } from '../users/password-policy.js';
import type { SettingsRepository } from './settings.js';

/** The e-mail sending identity of a domain: SES on AWS, a stand-in locally. */
export interface EmailIdentityPort {
  /** Creates the identity if needed; answers its DKIM tokens and whether DNS has been verified. */
  ensure(domain: string): Promise<{ dkimTokens: string[]; verified: boolean }>;
  status(domain: string): Promise<{ dkimTokens: string[]; verified: boolean } | undefined>;
  /** True once the account may send to any address (SES production access). */
  productionAccess(): Promise<boolean>;
}

interface BasicDocument {
  domain_name: string;
  from_email_address: string;
  reply_email_address: string;
  mail_domain: string;
  dkim_tokens: string[];
  is_dns_validated: boolean;
}

interface StoredProvider extends Omit<IdentityProviderProps, 'application_secret'> {
  sealed_secret: string;
  secret_hint: string;
}

interface SignInDocument {
  password_policy: PasswordPolicy;
  device_remembering: SignInSettings['device_configuration']['device_remembering'];
  self_regist: boolean;
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

const EMPTY_PAGE = { html_contents: '', is_terms_of_service: false, is_privacy_policy: false };

const DEFAULT_SIGN_IN: SignInDocument = {
  password_policy: DEFAULT_PASSWORD_POLICY,
  device_remembering: 'userOptIn',
  self_regist: false,
};

/** A stable hex label for computed DNS names: the same SaaS and domain give the same records. */
function label(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 32);
}

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
    /** The hosted login screen of a SaaS on the service's own URL, ending in `/` (functions/login). */
    private readonly hostedLoginScreen: (saasId: string) => string,
  ) {}

  // Basic configuration

  /** Basic configuration, with each member the SDKs name differently answered under both names. */
  async basicInfo(saasId: string): Promise<BasicInfo> {
    const info = await this.neutralBasicInfo(saasId);
    return { ...info, cloud_front_dns_record: info.cdn_dns_record, is_ses_sandbox_granted: info.is_mail_sandbox_granted };
  }

  private async neutralBasicInfo(saasId: string): Promise<Omit<BasicInfo, 'cloud_front_dns_record' | 'is_ses_sandbox_granted'>> {
    const doc = await this.settings.get<BasicDocument>(saasId, DOC.basic);
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
    let { is_dns_validated, dkim_tokens } = doc;
    if (!is_dns_validated) {
      const status = await this.identities.status(doc.mail_domain);
      if (status?.verified) {
        is_dns_validated = true;
        dkim_tokens = status.dkimTokens;
        await this.settings.put<BasicDocument>(saasId, DOC.basic, { ...doc, is_dns_validated, dkim_tokens });
      }
    }
    return {
      domain_name: doc.domain_name,
      is_dns_validated,
      certificate_dns_record: {
        type: 'CNAME',
        name: `_${label(saasId, doc.domain_name, 'certificate')}.${doc.domain_name}.`,
        value: `_${label(saasId, doc.domain_name, 'validation')}.acm-validations.aws.`,
      },
      cdn_dns_record: { type: 'CNAME', name: `${doc.domain_name}.`, value: `${this.defaultDomainName}.` },
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

  async updateBasicInfo(saasId: string, change: { domain_name: string; from_email_address: string; reply_email_address?: string }): Promise<void> {
    const domain = change.domain_name.toLowerCase();
    const mailDomain = (change.from_email_address.split('@')[1] as string).toLowerCase();
    const identity = await this.identities.ensure(mailDomain);
    await this.settings.put<BasicDocument>(saasId, DOC.basic, {
      domain_name: domain,
      from_email_address: change.from_email_address,
      reply_email_address: change.reply_email_address ?? '',
      mail_domain: mailDomain,
      dkim_tokens: identity.dkimTokens,
      is_dns_validated: identity.verified,
    });
  }

  /** Where mail of this SaaS comes from. */
  async senderAddresses(saasId: string): Promise<{ from: string; replyTo?: string }> {
    const doc = await this.settings.get<BasicDocument>(saasId, DOC.basic);
    if (!doc) return { from: `no-reply@${this.defaultDomainName}` };
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
   * Where the SaaS's login screen answers, ending in `/`: on the service's own URL. Its pages (sign-in,
   * invitation) are relative to it. The SaaS's `domain_name` does not serve the screen yet (docs/decisions.md:
   * links only point where something answers), so no link is built on it.
   */
  async loginScreenUrl(saasId: string): Promise<string> {
    return this.hostedLoginScreen(saasId);
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
    const stored = (await this.settings.get<Partial<CustomizePages>>(saasId, DOC.pages)) ?? {};
    return { sign_up_page: EMPTY_PAGE, sign_in_page: EMPTY_PAGE, password_reset_page: EMPTY_PAGE, ...stored };
  }

  async updateCustomizePages(saasId: string, update: Partial<CustomizePages>): Promise<void> {
    const current = (await this.settings.get<Partial<CustomizePages>>(saasId, DOC.pages)) ?? {};
    await this.settings.put(saasId, DOC.pages, { ...current, ...update });
  }

  /** The page settings, the tag manager id under the spec's name and the SDKs' (google_tag_manager_container_id). */
  async customizePageSettings(saasId: string): Promise<CustomizePageSettings & { google_tag_manager_container_id: string }> {
    const stored = (await this.settings.get<CustomizePageSettings>(saasId, DOC.pageSettings)) ?? {
      icon: '',
      favicon: '',
      title: '',
      terms_of_service_url: '',
      privacy_policy_url: '',
      tag_manager_container_id: '',
      is_sign_in_id_enabled: false,
    };
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
    return (await this.settings.get<{ callback_url: string }>(saasId, DOC.authInfo)) ?? { callback_url: '' };
  }

  async updateAuthInfo(saasId: string, value: { callback_url: string }): Promise<void> {
    await this.settings.put(saasId, DOC.authInfo, value);
  }

  // External provider

  /** Google is always there (the SDKs' model requires it): an unset provider has empty values and a visible button. */
  async identityProviders(saasId: string): Promise<{ google: StoredIdentityProviderProps }> {
    const stored = (await this.settings.get<{ google?: StoredProvider }>(saasId, DOC.providers)) ?? {};
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
    const current = (await this.settings.get<{ google?: StoredProvider }>(saasId, DOC.providers))?.google;
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
    const stored = (await this.settings.get<{ google?: StoredProvider }>(saasId, DOC.providers))?.google;
    return stored ? this.box.open(stored.sealed_secret, { saasId, provider: 'google' }) : undefined;
  }

  // Sign-in settings and the password policy

  async passwordPolicy(saasId: string): Promise<PasswordPolicy> {
    return ((await this.settings.get<SignInDocument>(saasId, DOC.signIn)) ?? DEFAULT_SIGN_IN).password_policy;
  }

  private identityProviderConfiguration(saasId: string): SignInSettings['identity_provider_configuration'] {
    const domain = `${this.defaultDomainName}`;
    return {
      domain,
      redirect_url: `https://${domain}/oauth2/idpresponse`,
      entity_id: `urn:amazon:cognito:sp:${saasId}`,
      reply_url: `https://${domain}/saml2/idpresponse`,
    };
  }

  async signInSettings(saasId: string): Promise<SignInSettings> {
    const doc = (await this.settings.get<SignInDocument>(saasId, DOC.signIn)) ?? DEFAULT_SIGN_IN;
    return {
      password_policy: doc.password_policy,
      device_configuration: { device_remembering: doc.device_remembering },
      ...structuredClone(FIXED_SIGN_IN_MEMBERS),
      self_regist: { enable: doc.self_regist },
      identity_provider_configuration: this.identityProviderConfiguration(saasId),
    };
  }

  async updateSignInSettings(saasId: string, update: SignInSettingsUpdate): Promise<void> {
    const fixed: Record<string, unknown> = { ...FIXED_SIGN_IN_MEMBERS, identity_provider_configuration: this.identityProviderConfiguration(saasId) };
    for (const [member, value] of Object.entries(fixed)) {
      const given = update[member as keyof SignInSettingsUpdate];
      if (given !== undefined && !isDeepStrictEqual(given, value)) {
        throw invalid('read_only_setting', `${member}: cannot be changed (it is ${JSON.stringify(value)})`, { field: member });
      }
    }
    const doc = (await this.settings.get<SignInDocument>(saasId, DOC.signIn)) ?? DEFAULT_SIGN_IN;
    await this.settings.put<SignInDocument>(saasId, DOC.signIn, {
      password_policy: update.password_policy ?? doc.password_policy,
      device_remembering: update.device_configuration?.device_remembering ?? doc.device_remembering,
      self_regist: update.self_regist?.enable ?? doc.self_regist,
    });
  }
}
