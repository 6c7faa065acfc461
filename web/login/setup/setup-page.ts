/**
 * The setup page a tenant's IT admin opens from a one-time setup link (docs/enterprise.md, "Setup links"), on the
 * SaaS's hosted screen host: `{BASE_PATH}/login/{saas id}/setup…`. No account is needed: the link's key is
 * exchanged, once, for a sealed HttpOnly cookie naming that tenant alone, and a redirect drops the key from the
 * address bar and the history. From then on the page can change nothing but that tenant's identity settings,
 * since no form names a tenant: each action acts on the tenant the cookie holds.
 *
 *   GET  ./setup?key=…                     the link: consumed, the cookie set, 303 to ./setup
 *   GET  ./setup  ./setup/{step}           the overview, or a step: saml, oidc, scim, domain
 *   POST ./setup/{step}  action=…          the step's form (test, save; create; claim, verify): the step's page again
 *   GET  ./setup?tenant=…                  a tenant admin, signed in on the screen: the cookie set, 303 to ./setup
 *   GET|POST ./setup/members               that admin's members and invitations (invite, remove)
 *
 * A tenant admin (docs/enterprise.md, "Tenant admins") holds the page as long as their screen session lives and
 * they keep the role: both are read again at every request, so signing out, a session ended, or the role taken
 * away ends the page at once. The members step is theirs only: a setup link's holder never sees it.
 *
 * A form posts through the screen pipeline (web/kit/pipeline.ts): the host gate before, then the form's size and
 * type, its CSRF token against the cookie's, the grant's life and link, and the body's schema.
 */
import { randomBytes } from 'node:crypto';
import * as Type from '@sinclair/typebox';
import type { TSchema } from '@sinclair/typebox';
import { nowSeconds } from '../../../shared/clock.js';
import { DomainError, invalid } from '../../../shared/errors.js';
import { errorAnswer } from '../../../shared/http/errors.js';
import { validate } from '../../../shared/http/validation.js';
import { log } from '../../../shared/log.js';
import type { SecretBox } from '../../../shared/crypto/secret-box.js';
import { SESSION_SECONDS, type SetupGrant } from '../../../shared/domain/tenants/setup-links.js';
import { OidcProviderProps } from '../../../shared/schemas/enterprise.js';
import { SamlProps } from '../../../shared/schemas/tenants.js';
import { cookie, setCookie, type CookieScope } from '../../kit/cookies.js';
import type { WebRequest, WebResponse } from '../../kit/http.js';
import { rawStep, tokenRepeated, type StepRules } from '../../kit/pipeline.js';
import { openJson, sealJson } from '../../kit/sealed.js';
import { messagePage, messagePagePolicy } from '../pages.js';
import { BASE_HEADERS as HEADERS } from '../screen/contract.js';
import type { SetupTexts } from '../texts/en-setup.js';
import { fill, type LoginTexts } from '../texts/en.js';
import { SETUP_POLICY, SETUP_STEPS, setupPage, type AdminView, type Outcome, type SetupStep, type SetupView } from './setup-html.js';

export interface SetupDeps {
  /** `{BASE_PATH}/login/`. */
  basePath: string;
  secureCookies: boolean;
  box: SecretBox;
  texts: LoginTexts;
  words: SetupTexts;
  saasExists(saasId: string): Promise<boolean>;
  saasName(saasId: string): Promise<string>;
  links: { open(saasId: string, key: string): Promise<SetupGrant>; check(grant: SetupGrant): Promise<void> };
  /** What the page shows of the tenant, read fresh for each answer (but the CSRF token and the address, the page's own). */
  view(grant: SetupGrant): Promise<Omit<SetupView, 'csrf' | 'root'>>;
  saml: {
    /** The metadata read (from the URL or as given): its entity id, sign-in URL and signing certificates. */
    test(props: SamlProps): Promise<{ entityId: string; ssoUrl: string; certificates: string[] }>;
    save(saasId: string, tenantId: string, props: SamlProps): Promise<void>;
  };
  oidc: {
    /** The discovery document, then its JWKS: the issuer and how many keys it publishes. */
    test(discoveryUrl: string): Promise<{ issuer: string; keys: number }>;
    save(saasId: string, tenantId: string, props: OidcProviderProps): Promise<void>;
  };
  scim: { create(saasId: string, tenantId: string): Promise<{ token: string }> };
  domains: {
    claim(saasId: string, tenantId: string, input: { domain: string }): Promise<unknown>;
    verify(saasId: string, tenantId: string, domain: string): Promise<{ status: string }>;
  };
  admins: {
    /** The person this browser is signed in as on the SaaS's screen (its session cookie), live or not. */
    signedIn(request: WebRequest, saasId: string): Promise<AdminRef | undefined>;
    /** Whether that session is live and its person holds the tenant-admin role in the tenant. */
    holds(saasId: string, tenantId: string, admin: AdminRef): Promise<boolean>;
    view(saasId: string, tenantId: string): Promise<AdminView>;
    invite(saasId: string, tenantId: string, inviterId: string, input: { email: string; envId: number; role: string }): Promise<void>;
    /** The member's address, once removed from the tenant (and from it only). */
    remove(saasId: string, tenantId: string, userId: string): Promise<string>;
  };
}

/** A screen session, as its cookie names it. */
export interface AdminRef {
  userId: string;
  sessionId: string;
}

export const SETUP_COOKIE = 'setup';
/** A setup form is small, but metadata XML may be up to 100 000 characters, escaped in the form. */
const MAX_FORM_BYTES = 400_000;
const SAAS_ID = /^[A-Za-z0-9-]{1,64}$/;
const SETUP_PATH = /^([A-Za-z0-9-]{1,64})\/setup(?:\/([a-z]+))?$/;
const TENANT_ID = /^[A-Za-z0-9-]{1,64}$/;
const HTML = { ...HEADERS, 'content-type': 'text/html; charset=utf-8' };

/** What the cookie holds, sealed: the grant and the page's CSRF token; for a tenant admin, their screen session. */
interface Sealed {
  grant: SetupGrant;
  csrf: string;
  admin?: AdminRef;
}
const sealContext = (saasId: string) => ({ purpose: 'setup page', saasId });

const Optional = (max: number) => Type.Optional(Type.String({ maxLength: max }));
const FORMS = {
  saml: Type.Object({
    action: Type.Union([Type.Literal('test'), Type.Literal('save')]),
    metadata_url: Optional(2048),
    metadata_xml: Optional(100_000),
    email_attribute: Optional(256),
  }),
  oidc: Type.Object({
    action: Type.Union([Type.Literal('test'), Type.Literal('save')]),
    discovery_url: Type.String({ minLength: 1, maxLength: 2048 }),
    client_id: Optional(255),
    client_secret: Optional(1024),
    scopes: Optional(500),
    claim_email: Optional(100),
    claim_name: Optional(100),
    claim_groups: Optional(100),
  }),
  scim: Type.Object({ action: Type.Union([Type.Literal('create'), Type.Literal('test')]) }),
  domain: Type.Object({ action: Type.Union([Type.Literal('claim'), Type.Literal('verify')]), domain: Type.String({ minLength: 1, maxLength: 253 }) }),
  members: Type.Union([
    Type.Object({
      action: Type.Literal('invite'),
      email: Type.String({ minLength: 1, maxLength: 254 }),
      role: Type.String({ pattern: '^[0-9]{1,9}:.{1,100}$' }),
    }),
    Type.Object({ action: Type.Literal('remove'), user_id: Type.String({ minLength: 1, maxLength: 64 }) }),
  ]),
} satisfies Record<Exclude<SetupStep, ''>, TSchema>;

/** A form's fields, blank ones left out (an empty field means "not given"), csrf apart. */
function formFields(body: Buffer): { csrf: string; fields: Record<string, string> } {
  const params = new URLSearchParams(body.toString('utf8'));
  const fields: Record<string, string> = {};
  for (const [name, value] of params) if (name !== 'csrf' && value.trim() !== '') fields[name] = value.trim();
  return { csrf: params.get('csrf') ?? '', fields };
}

export class SetupPage {
  constructor(private readonly deps: SetupDeps) {}

  /** The page for `path` (after `{BASE_PATH}/login/`), or undefined when it is none of the setup page's. */
  async handle(request: WebRequest): Promise<WebResponse | undefined> {
    const match = SETUP_PATH.exec(request.path);
    if (!match) return undefined;
    const [, saasId = '', name = ''] = match;
    const step = (SETUP_STEPS as readonly string[]).includes(name) ? (name as SetupStep) : undefined;
    if (step === undefined || !SAAS_ID.test(saasId) || !(await this.deps.saasExists(saasId))) return undefined;
    if (request.method === 'GET') {
      const query = new URLSearchParams(request.query);
      const key = query.get('key');
      const tenant = query.get('tenant');
      if (key !== null && step === '') return this.openLink(saasId, key);
      if (tenant !== null && step === '') return this.openAsAdmin(request, saasId, tenant);
      return this.show(request, saasId, step);
    }
    if (request.method === 'POST' && step !== '') return this.post(request, saasId, step);
    return undefined;
  }

  private scope(saasId: string): CookieScope {
    // Lax: the link is opened from a mail or a chat, another site, and the redirect after it must carry the cookie.
    return { path: `${this.deps.basePath}${saasId}/setup`, sameSite: 'Lax', secure: this.deps.secureCookies };
  }

  private async openLink(saasId: string, key: string): Promise<WebResponse> {
    let grant: SetupGrant;
    try {
      grant = await this.deps.links.open(saasId, key.slice(0, 512));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const saas = await this.deps.saasName(saasId);
      return this.message(401, saasId, this.deps.words.linkInvalidTitle, fill(this.deps.words.linkInvalid, { saas }));
    }
    const sealed = await sealJson(this.deps.box, { grant, csrf: randomBytes(32).toString('base64url') } satisfies Sealed, sealContext(saasId));
    const maxAge = Math.max(1, grant.until - nowSeconds());
    return {
      status: 303,
      headers: { ...HEADERS, location: `${this.deps.basePath}${saasId}/setup` },
      body: '',
      cookies: [setCookie(SETUP_COOKIE, sealed, this.scope(saasId), maxAge)],
    };
  }

  /**
   * A tenant admin's opening: the person the screen's session names, holding the role in the tenant, gets the
   * page's cookie for that tenant (its grant names no link, and lives as long as a link's session at most).
   */
  private async openAsAdmin(request: WebRequest, saasId: string, tenantId: string): Promise<WebResponse> {
    const t = this.deps.words;
    const admin = await this.deps.admins.signedIn(request, saasId);
    if (!admin) {
      const saas = await this.deps.saasName(saasId);
      return this.message(401, saasId, t.notSignedInTitle, fill(t.notSignedIn, { saas }), {
        href: `${this.deps.basePath}${saasId}/`,
        text: t.signInLink,
      });
    }
    if (!TENANT_ID.test(tenantId) || !(await this.deps.admins.holds(saasId, tenantId, admin))) {
      return this.message(403, saasId, t.notAdminTitle, t.notAdmin);
    }
    const grant: SetupGrant = { saasId, tenantId, linkId: '', until: nowSeconds() + SESSION_SECONDS };
    const sealed = await sealJson(this.deps.box, { grant, csrf: randomBytes(32).toString('base64url'), admin } satisfies Sealed, sealContext(saasId));
    return {
      status: 303,
      headers: { ...HEADERS, location: `${this.deps.basePath}${saasId}/setup` },
      body: '',
      cookies: [setCookie(SETUP_COOKIE, sealed, this.scope(saasId), SESSION_SECONDS)],
    };
  }

  /** The cookie's grant, still good (its time, its link not revoked, its tenant there); undefined otherwise. */
  private async session(request: WebRequest, saasId: string): Promise<Sealed | undefined> {
    const raw = cookie(request.headers.cookie, SETUP_COOKIE);
    const sealed = raw ? await openJson<Sealed>(this.deps.box, raw, sealContext(saasId)) : undefined;
    if (!sealed || sealed.grant?.saasId !== saasId || typeof sealed.csrf !== 'string') return undefined;
    if (sealed.admin !== undefined) {
      const live = sealed.grant.until > nowSeconds() && (await this.deps.admins.holds(saasId, sealed.grant.tenantId, sealed.admin));
      return live ? sealed : undefined;
    }
    try {
      await this.deps.links.check(sealed.grant);
    } catch (error) {
      if (error instanceof DomainError) return undefined;
      throw error;
    }
    return sealed;
  }

  private async show(request: WebRequest, saasId: string, step: SetupStep, outcome?: Outcome, status = 200): Promise<WebResponse> {
    const sealed = await this.session(request, saasId);
    if (!sealed) return this.ended(request, saasId);
    if (step === 'members' && !sealed.admin) return this.message(403, saasId, this.deps.words.notAdminTitle, this.deps.words.notAdmin);
    return this.page(sealed, step, outcome, status);
  }

  private async page(sealed: Sealed, step: SetupStep, outcome: Outcome = {}, status = 200): Promise<WebResponse> {
    const { saasId } = sealed.grant;
    const [shown, admin] = await Promise.all([
      this.deps.view(sealed.grant),
      sealed.admin ? this.deps.admins.view(saasId, sealed.grant.tenantId) : undefined,
    ]);
    const view: SetupView = { ...shown, ...(admin ? { admin } : {}), csrf: sealed.csrf, root: `${this.deps.basePath}${saasId}/` };
    return {
      status,
      headers: { ...HTML, 'content-security-policy': SETUP_POLICY },
      body: setupPage(this.deps.texts, this.deps.words, this.assets(saasId), step, view, outcome),
      cookies: [],
    };
  }

  private assets = (saasId: string) => `${this.deps.basePath}${saasId}/assets/`;

  private async post(request: WebRequest, saasId: string, step: Exclude<SetupStep, ''>): Promise<WebResponse> {
    const rules: StepRules<{ sealed: Sealed; fields: Record<string, string> }> = {
      fromPage: async (req) => {
        if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
          throw invalid('unsupported_media_type', 'content-type: must be a form');
        }
        if (req.body.length > MAX_FORM_BYTES) throw invalid('request_too_large', `body: larger than ${MAX_FORM_BYTES} bytes`);
        const sealed = await this.session(req, saasId);
        if (!sealed) return { answer: await this.ended(req, saasId) };
        const { csrf, fields } = formFields(req.body);
        if (!tokenRepeated(sealed.csrf, csrf)) throw new DomainError('forbidden', 'csrf_mismatch', 'csrf: does not match the page; reload it');
        if (step === 'members' && !sealed.admin)
          return { answer: this.message(403, saasId, this.deps.words.notAdminTitle, this.deps.words.notAdmin) };
        return { proof: { sealed, fields } };
      },
      refuse: (error) => this.refused(saasId, error),
    };
    return rawStep(request, rules, async ({ sealed, fields }) => {
      try {
        const form = validate(FORMS[step], fields, 'body') as Record<string, string>;
        const outcome = step === 'members' ? await this.manage(sealed, form) : await this.act(sealed.grant, step, form);
        return this.page(sealed, step, outcome);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        const { status, body } = errorAnswer(error);
        return this.page(sealed, step, { error: fill(this.deps.words.failed, { detail: body.message }), form: fields }, status);
      }
    });
  }

  /** A tenant admin's form on the members step: on the cookie's tenant, whatever a form says. */
  private async manage(sealed: Sealed, form: Record<string, string>): Promise<Outcome> {
    const { saasId, tenantId } = sealed.grant;
    const t = this.deps.words;
    if (form.action === 'remove') {
      const email = await this.deps.admins.remove(saasId, tenantId, form.user_id ?? '');
      return { notice: fill(t.memberRemoved, { email }) };
    }
    const [env = '', ...role] = (form.role ?? '').split(':');
    const email = form.email ?? '';
    await this.deps.admins.invite(saasId, tenantId, sealed.admin?.userId ?? '', { email, envId: Number(env), role: role.join(':') });
    return { notice: fill(t.invited, { email }) };
  }

  /** One form's action on the grant's tenant, and what it leaves to say. */
  private async act(grant: SetupGrant, step: Exclude<SetupStep, '' | 'members'>, form: Record<string, string>): Promise<Outcome> {
    const { saasId, tenantId } = grant;
    const t = this.deps.words;
    const f = (name: string) => form[name];
    switch (step) {
      case 'saml': {
        const props = validate(
          SamlProps,
          { email_attribute: f('email_attribute') ?? 'email', metadata_url: f('metadata_url'), metadata_xml: f('metadata_xml') },
          'body',
        );
        if (!props.metadata_url && !props.metadata_xml)
          throw invalid('invalid_parameter', 'metadata_url: give the metadata URL or its XML', { field: 'metadata_url' });
        const metadata = await this.deps.saml.test(props);
        if (f('action') === 'test')
          return {
            notice: fill(t.samlTested, { entity: metadata.entityId, sso: metadata.ssoUrl, count: String(metadata.certificates.length) }),
            form,
          };
        await this.deps.saml.save(saasId, tenantId, props);
        return { notice: t.saved };
      }
      case 'oidc': {
        const discovery = f('discovery_url') as string;
        if (f('action') === 'test') {
          const { issuer, keys } = await this.deps.oidc.test(discovery);
          return { notice: fill(t.oidcTested, { issuer, count: String(keys) }), form };
        }
        if (!f('client_id')) throw invalid('invalid_parameter', 'client_id: is required', { field: 'client_id' });
        const claims = { email: f('claim_email'), name: f('claim_name'), groups: f('claim_groups') };
        const props = validate(
          OidcProviderProps,
          {
            discovery_url: discovery,
            client_id: f('client_id') as string,
            ...(f('client_secret') ? { client_secret: f('client_secret') } : {}),
            ...(f('scopes') ? { scopes: f('scopes') } : {}),
            claims: Object.fromEntries(Object.entries(claims).filter(([, value]) => value !== undefined)),
          },
          'body',
        );
        await this.deps.oidc.save(saasId, tenantId, props);
        return { notice: t.saved };
      }
      case 'scim': {
        if (f('action') === 'test') return { notice: fill(t.scimTested, { count: String((await this.deps.view(grant)).scimTokens.length) }) };
        const { token } = await this.deps.scim.create(saasId, tenantId);
        return { token };
      }
      case 'domain': {
        const domain = f('domain') as string;
        if (f('action') === 'claim') {
          await this.deps.domains.claim(saasId, tenantId, { domain });
          return { notice: t.domainClaimed };
        }
        const verified = await this.deps.domains.verify(saasId, tenantId, domain);
        return verified.status === 'verified'
          ? { notice: fill(t.domainVerified, { domain }) }
          : { error: fill(t.failed, { detail: t.statusPending }) };
      }
    }
  }

  private message(status: number, saasId: string, title: string, text: string, action?: { href: string; text: string }): WebResponse {
    return {
      status,
      headers: { ...HTML, 'content-security-policy': messagePagePolicy(true) },
      body: messagePage(this.deps.texts, title, text, this.assets(saasId), action),
      cookies: [],
    };
  }

  /** No grant, or one that ended: the page says so, and forgets its cookie. */
  private async ended(request: WebRequest, saasId: string): Promise<WebResponse> {
    const t = this.deps.words;
    // A tenant admin's page ends with their screen session or their role: signing in again is the way back.
    const raw = cookie(request.headers.cookie, SETUP_COOKIE);
    const admin = raw ? (await openJson<Sealed>(this.deps.box, raw, sealContext(saasId)))?.admin !== undefined : false;
    const answer = admin
      ? this.message(401, saasId, t.notSignedInTitle, fill(t.notSignedIn, { saas: await this.deps.saasName(saasId) }), {
          href: `${this.deps.basePath}${saasId}/`,
          text: t.signInLink,
        })
      : this.message(401, saasId, t.linkInvalidTitle, t.sessionEnded);
    return { ...answer, cookies: [setCookie(SETUP_COOKIE, '', this.scope(saasId), 0)] };
  }

  /** A form the pipeline refused before its action (its type, size or CSRF token): a page saying so, nothing changed. */
  private refused(saasId: string, error: unknown): WebResponse {
    const { status, unexpected } = errorAnswer(error);
    if (unexpected) log.error('setup page', error);
    return this.message(status, saasId, this.deps.words.linkInvalidTitle, unexpected ? '' : this.deps.words.badRequest);
  }
}
