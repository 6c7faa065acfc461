/**
 * Per-tenant SAML sign-in, the service as the service provider (docs/federation.md), with `@node-saml/node-saml`
 * doing every XML and signature check: the AuthnRequest is signed (HTTP-Redirect binding, RSA-SHA256, with the
 * deployment's SP key), the response must carry a signed assertion from the tenant's identity provider (its
 * metadata's certificates), for this SP's audience, within its time conditions, in response to the request this
 * browser made; each assertion is accepted once.
 *
 * No state is kept between the request and the response but what is sealed: the AuthnRequest's ID is `_` +
 * the sealed {saas, tenant, expiry}, so the response's InResponseTo names the tenant whose identity provider
 * must have signed it; the browser's cookie (SameSite=Lax, so read only after the identity provider's cross-site
 * POST has become a top-level GET) holds the same ID and what the screen was opened for, and the screen's
 * `saml/continue` signs in only when it matches the ticket (web/login/saml/ticket.ts).
 */
import { generateServiceProviderMetadata, SAML, ValidateInResponseTo, type CacheProvider, type Profile } from '@node-saml/node-saml';
import { DOMParser } from '@xmldom/xmldom';
import { nowSeconds } from '../../../shared/clock.js';
import { invalid } from '../../../shared/errors.js';
import { parseIdpMetadata, type IdpMetadata } from '../../../shared/domain/tenants/saml-metadata.js';
import type { SamlServiceProviderKey } from '../../../shared/domain/tokens/key-store.js';
import type { SamlProps } from '../../../shared/schemas/tenants.js';
import type { SecretBox } from '../../../shared/crypto/secret-box.js';
import { openJson, sealJson } from '../../kit/sealed.js';
import type { ScreenContext } from '../screen-context.js';
import {
  SAML_FLOW_SECONDS as REQUEST_SECONDS,
  samlAcsUrl,
  samlEntityId,
  samlProvider,
  sealSamlTicket,
  type SamlBrowserFlow,
  type SamlTicket,
} from './ticket.js';

const CLOCK_SKEW_MS = 60_000;
/** A metadata URL is read again after this long (per warm instance). */
const METADATA_CACHE_MS = 10 * 60_000;

interface RequestState {
  saas_id: string;
  tenant_id: string;
  exp: number;
}

export interface SamlSignInDeps {
  /** `https://host/v1/auth`: the ACS and metadata URLs hang off it. */
  publicBaseUrl: string;
  spKey(): Promise<SamlServiceProviderKey>;
  settings(saasId: string, tenantId: string): Promise<SamlProps | undefined>;
  fetchMetadata(url: string): Promise<string>;
  box: SecretBox;
  /** true the first time an assertion is presented. */
  claimAssertion(saasId: string, issuer: string, assertionId: string, expiresAt: number): Promise<boolean>;
}

const REQUEST_CONTEXT = { purpose: 'saml authn request' };

export class SamlSignIn {
  private readonly metadataCache = new Map<string, { at: number; metadata: Promise<IdpMetadata> }>();

  constructor(private readonly deps: SamlSignInDeps) {}

  get acsUrl(): string {
    return samlAcsUrl(this.deps.publicBaseUrl);
  }

  /** The SP's entity id: the URL of its metadata. */
  entityId(saasId: string): string {
    return samlEntityId(this.deps.publicBaseUrl, saasId);
  }

  async metadata(saasId: string): Promise<string> {
    const sp = await this.deps.spKey();
    return generateServiceProviderMetadata({
      issuer: this.entityId(saasId),
      callbackUrl: this.acsUrl,
      publicCerts: sp.certificate,
      privateKey: sp.privateKey,
      signatureAlgorithm: 'sha256',
      wantAssertionsSigned: true,
      identifierFormat: null,
    });
  }

  /** The identity provider's sign-in URL with a signed AuthnRequest, and the browser's flow; undefined when the tenant has no SAML. */
  async begin(saasId: string, tenantId: string, context: ScreenContext): Promise<{ location: string; flow: SamlBrowserFlow } | undefined> {
    const settings = await this.deps.settings(saasId, tenantId);
    if (!settings) return undefined;
    const idp = await this.idp(settings);
    const state: RequestState = { saas_id: saasId, tenant_id: tenantId, exp: nowSeconds() + REQUEST_SECONDS };
    const requestId = `_${await sealJson(this.deps.box, state, REQUEST_CONTEXT)}`;
    const saml = await this.saml(saasId, idp, { requestId, generate: true });
    const location = await saml.getAuthorizeUrlAsync('', undefined, {});
    return { location, flow: { request_id: requestId, context } };
  }

  /** The assertion consumer service: the response checked; the SaaS, and a sealed ticket for the screen's `saml/continue`. */
  async consume(form: URLSearchParams): Promise<{ saasId: string; ticket: string }> {
    const response = form.get('SAMLResponse') ?? '';
    const requestId = inResponseTo(response);
    const state = await this.openRequest(requestId);
    const settings = await this.deps.settings(state.saas_id, state.tenant_id);
    if (!settings) throw invalid('saml_not_configured', 'this tenant no longer signs in with SAML');
    const saml = await this.saml(state.saas_id, await this.idp(settings), { requestId, generate: false });
    let profile: Profile | null;
    try {
      ({ profile } = await saml.validatePostResponseAsync({ SAMLResponse: response }));
    } catch (error) {
      throw invalid('saml_refused', `the identity provider's answer was refused (${error instanceof Error ? error.message : 'invalid'})`);
    }
    if (!profile) throw invalid('saml_refused', 'the identity provider answered no assertion');
    const assertion = assertionFacts(profile.getAssertionXml?.() ?? '');
    // node-saml checks neither: an assertion for another service provider's ACS must not sign in here.
    if (assertion.recipient !== this.acsUrl) {
      throw invalid(
        'saml_refused',
        `the assertion is for ${assertion.recipient ? `another recipient (${assertion.recipient})` : 'no recipient'}, not this service`,
      );
    }
    const destination = responseDestination(response);
    if (destination !== undefined && destination !== this.acsUrl)
      throw invalid('saml_refused', `the response is for another destination (${destination})`);
    if (!(await this.deps.claimAssertion(state.saas_id, profile.issuer, assertion.id, assertion.expiresAt))) {
      throw invalid('saml_replayed', 'this assertion was used already; sign in again');
    }
    const raw = profile[settings.email_attribute];
    const email = Array.isArray(raw) ? raw[0] : raw;
    const ticket: SamlTicket = {
      request_id: requestId,
      saas_id: state.saas_id,
      assertion: { issuer: profile.issuer, id: assertion.id },
      account: {
        provider: samlProvider(state.tenant_id),
        subject: profile.nameID,
        ...(typeof email === 'string' ? { email } : {}),
        // The tenant's own identity provider is the authority on its people's addresses.
        emailVerified: typeof email === 'string',
        tenantId: state.tenant_id,
      },
      exp: nowSeconds() + 60,
    };
    return { saasId: state.saas_id, ticket: await sealSamlTicket(this.deps.box, ticket) };
  }

  /**
   * The SaaS a response answers for, when it is one of ours (an expired request too): whose look its refusal
   * page takes. Undefined for anything else; never a reason to trust the response.
   */
  async saasOf(form: URLSearchParams): Promise<string | undefined> {
    try {
      const requestId = inResponseTo(form.get('SAMLResponse') ?? '');
      return (await openJson<RequestState>(this.deps.box, requestId.slice(1), REQUEST_CONTEXT))?.saas_id;
    } catch {
      return undefined;
    }
  }

  private async openRequest(requestId: string): Promise<RequestState> {
    const state = await openJson<RequestState>(this.deps.box, requestId.slice(1), REQUEST_CONTEXT);
    if (!state) throw invalid('saml_refused', 'the answer is not for a request of this service');
    if (state.exp <= nowSeconds()) throw invalid('saml_refused', 'the sign-in at the identity provider took too long; start again');
    return state;
  }

  private idp(settings: SamlProps): Promise<IdpMetadata> {
    if (settings.metadata_xml) return Promise.resolve(parseIdpMetadata(settings.metadata_xml));
    const url = settings.metadata_url as string;
    const cached = this.metadataCache.get(url);
    if (cached && Date.now() - cached.at < METADATA_CACHE_MS) return cached.metadata;
    const metadata = this.deps.fetchMetadata(url).then((xml) => parseIdpMetadata(xml, 'metadata_url'));
    this.metadataCache.set(url, { at: Date.now(), metadata });
    metadata.catch(() => this.metadataCache.delete(url));
    return metadata;
  }

  /** node-saml for this SaaS and identity provider; its request-id cache knows only `requestId`. */
  private async saml(saasId: string, idp: IdpMetadata, request: { requestId: string; generate: boolean }): Promise<SAML> {
    const sp = await this.deps.spKey();
    let pending: string | null = request.generate ? null : request.requestId;
    const cacheProvider: CacheProvider = {
      saveAsync: async (key, value) => {
        pending = key;
        return { value, createdAt: Date.now() };
      },
      getAsync: async (key) => (key === pending ? new Date().toISOString() : null),
      removeAsync: async (key) => {
        if (key !== pending) return null;
        pending = null;
        return key;
      },
    };
    return new SAML({
      issuer: this.entityId(saasId),
      callbackUrl: this.acsUrl,
      entryPoint: idp.ssoUrl,
      idpIssuer: idp.entityId,
      idpCert: idp.certificates,
      audience: this.entityId(saasId),
      privateKey: sp.privateKey,
      signatureAlgorithm: 'sha256',
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: false,
      identifierFormat: null,
      acceptedClockSkewMs: CLOCK_SKEW_MS,
      validateInResponseTo: ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: REQUEST_SECONDS * 1000,
      cacheProvider,
      generateUniqueId: () => request.requestId,
    });
  }
}

const parse = (xml: string) =>
  new DOMParser({ errorHandler: { warning: () => undefined, error: () => undefined, fatalError: () => undefined } }).parseFromString(xml, 'text/xml');

const BASE64 = /^[A-Za-z0-9+/\s]+={0,2}\s*$/;
const SAML_PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const SAML_ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';

/** The descendants of `element` so named, as an array (xmldom's lists are not iterable). */
function elements(element: Element | null | undefined, namespace: string, name: string): Element[] {
  const list = element?.getElementsByTagNameNS(namespace, name);
  return list ? Array.from({ length: list.length }, (_, i) => list.item(i)).filter((e): e is Element => e !== null) : [];
}

/** The response's root element: a 400 for a form that holds no base64 XML SAML response (empty, not base64, not XML). */
function responseElement(samlResponse: string): Element {
  const notSaml = () => invalid('saml_refused', 'SAMLResponse: is not a SAML response');
  if (!BASE64.test(samlResponse)) throw notSaml();
  const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
  let root: Element | null | undefined;
  try {
    root = parse(xml).documentElement;
  } catch {
    throw notSaml();
  }
  if (!root || root.namespaceURI !== SAML_PROTOCOL || root.localName !== 'Response') throw notSaml();
  return root;
}

/** The request a (not yet checked) response answers: only to find which request, and so which tenant, it claims. */
function inResponseTo(samlResponse: string): string {
  const id = responseElement(samlResponse).getAttribute('InResponseTo') ?? '';
  if (!id.startsWith('_')) throw invalid('saml_refused', 'SAMLResponse: answers no request of this service');
  return id;
}

/** The response's Destination, when it names one. */
function responseDestination(samlResponse: string): string | undefined {
  const root = responseElement(samlResponse);
  return root.hasAttribute('Destination') ? (root.getAttribute('Destination') ?? '') : undefined;
}

/**
 * The checked assertion's ID, until when it could be accepted (its NotOnOrAfter, else ten minutes), and the
 * Recipient of its bearer SubjectConfirmationData (the ACS it was issued for; signed with the assertion).
 */
function assertionFacts(xml: string): { id: string; expiresAt: number; recipient: string } {
  const assertion = parse(xml).documentElement;
  const id = assertion?.getAttribute('ID') ?? '';
  const conditions = assertion?.getElementsByTagNameNS(SAML_ASSERTION, 'Conditions')[0];
  const until = Date.parse(conditions?.getAttribute('NotOnOrAfter') ?? '');
  if (!id) throw invalid('saml_refused', 'the assertion has no ID');
  const bearer = elements(assertion, SAML_ASSERTION, 'SubjectConfirmation').find(
    (confirmation) => confirmation.getAttribute('Method') === 'urn:oasis:names:tc:SAML:2.0:cm:bearer',
  );
  const recipient = elements(bearer, SAML_ASSERTION, 'SubjectConfirmationData')[0]?.getAttribute('Recipient') ?? '';
  return { id, expiresAt: Number.isNaN(until) ? nowSeconds() + REQUEST_SECONDS : Math.ceil(until / 1000) + CLOCK_SKEW_MS / 1000, recipient };
}
