/**
 * The SAML service provider's function (web/login/saml/service-provider.ts), apart from the login screen's so that the
 * XML signature stack (node-saml, xml-crypto, xpath, xmldom) loads only for SAML sign-ins:
 *
 *   GET  {BASE_PATH}/saml2/metadata/{saas id}                the SP metadata; its URL is the entity id
 *   GET  {BASE_PATH}/saml2/login/{saas id}/{tenant id}?state|authorization
 *                                                            a signed AuthnRequest to the tenant's identity provider
 *   POST {BASE_PATH}/saml2/idpresponse                       the assertion consumer service (reply_url), then the
 *                                                            screen's `saml/continue` with a sealed ticket
 *
 * Refusals are pages for people, as on the screen. The service provider is composed in saml-wiring.ts; this
 * file only routes (its prefix is ENTRIES', shared/routes.ts).
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { DomainError, invalid } from '../../shared/errors.js';
import { observed } from '../../shared/observability.js';
import { ENTRY_PATHS } from '../../shared/routes.js';
import { hostGate } from './host-gate.js';
import { setCookie } from '../kit/cookies.js';
import { messagePage, messagePagePolicy, screenAssets } from './pages.js';
import { SAML_FLOW_COOKIE, SAML_FLOW_SECONDS, sealSamlFlow } from './saml/ticket.js';
import { screenContext } from './screen-context.js';
import { chooseTexts } from './language.js';
import { fill, type LoginTexts } from './texts/en.js';
import { hostGateDeps, saasExists, samlSignIn, screenOf, secretBox, secureCookies } from './saml-wiring.js';

const SAML2_BASE_PATH = ENTRY_PATHS.saml2;
const ID = '[A-Za-z0-9-]{1,64}';
/** A SAML response, base64 in a form: signed XML with a certificate or two. */
const MAX_RESPONSE_BYTES = 256 * 1024;
const HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer' };

/** A page in the person's language and the screen's look (its style, served by the login function): the SaaS's once known. */
const page = (texts: LoginTexts, status: number, title: string, message: string, saasId?: string): APIGatewayProxyStructuredResultV2 => ({
  statusCode: status,
  headers: { ...HEADERS, 'content-type': 'text/html; charset=utf-8', 'content-security-policy': messagePagePolicy(saasId !== undefined) },
  body: messagePage(texts, title, message, screenAssets(saasId)),
});

/** The SaaS a path names, when there is one: its pages take its look. */
const knownSaas = async (saasId: string) => ((await saasExists(saasId)) ? saasId : undefined);

async function route(
  texts: LoginTexts,
  method: string,
  path: string,
  query: URLSearchParams,
  body: string,
): Promise<APIGatewayProxyStructuredResultV2> {
  const metadataOf = new RegExp(`^metadata/(${ID})$`).exec(path)?.[1];
  if (method === 'GET' && metadataOf && (await saasExists(metadataOf))) {
    return {
      statusCode: 200,
      headers: { ...HEADERS, 'cache-control': 'public, max-age=300', 'content-type': 'application/samlmetadata+xml; charset=utf-8' },
      body: await samlSignIn().metadata(metadataOf),
    };
  }
  const start = new RegExp(`^login/(${ID})/(${ID})$`).exec(path);
  if (method === 'GET' && start) {
    const [, saasId = '', tenantId = ''] = start;
    const started = await samlSignIn().begin(saasId, tenantId, screenContext(query));
    if (!started) return page(texts, 404, texts.page.notFoundTitle, texts.page.notFound, await knownSaas(saasId));
    const flow = await sealSamlFlow(secretBox(), started.flow);
    // Scoped to the screen's path: its `saml/continue` reads it (and forgets it there).
    const scope = { path: new URL(screenOf(saasId)).pathname, sameSite: 'Lax', secure: secureCookies() } as const;
    const cookie = setCookie(SAML_FLOW_COOKIE, flow, scope, SAML_FLOW_SECONDS);
    return { statusCode: 302, headers: { ...HEADERS, location: started.location }, cookies: [cookie], body: '' };
  }
  if (method === 'POST' && path === 'idpresponse') {
    if (Buffer.byteLength(body) > MAX_RESPONSE_BYTES) throw invalid('request_too_large', 'SAMLResponse: too large');
    const { saasId, ticket } = await samlSignIn().consume(new URLSearchParams(body));
    // The identity provider's cross-site POST carries no cookie of ours; the screen, reached by a GET, reads it.
    return { statusCode: 303, headers: { ...HEADERS, location: `${screenOf(saasId)}saml/continue?${new URLSearchParams({ ticket })}` }, body: '' };
  }
  return page(texts, 404, texts.page.notFoundTitle, texts.page.notFound);
}

export const handler = observed(async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const query = new URLSearchParams(event.rawQueryString ?? '');
  const texts = chooseTexts(query, { cookie: event.cookies?.join('; '), 'accept-language': event.headers?.['accept-language'] });
  // A SaaS's SAML endpoints on its own hosts and the API's, never on another SaaS's (shared/screen-hosts.ts).
  const gate = await hostGate(hostGateDeps(texts), {
    method: event.requestContext.http.method,
    rawPath: event.rawPath,
    rawQueryString: event.rawQueryString ?? '',
    host: event.headers?.host ?? event.requestContext.domainName,
  });
  if ('answer' in gate) return { statusCode: gate.answer.status, headers: gate.answer.headers, body: gate.answer.body };
  const path = event.rawPath.startsWith(SAML2_BASE_PATH) ? event.rawPath.slice(SAML2_BASE_PATH.length) : '';
  const body = event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8').toString('utf8') : '';
  try {
    return await route(texts, event.requestContext.http.method, path, query, body);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const start = new RegExp(`^login/(${ID})/`).exec(path)?.[1];
    const saasId = start ? await knownSaas(start) : path === 'idpresponse' ? await samlSignIn().saasOf(new URLSearchParams(body)) : undefined;
    // The SAML checks' own words (which certificate, which recipient) are what an administrator needs here.
    return page(texts, 400, texts.page.samlFailedTitle, fill(texts.messages.refused, { detail: error.message }), saasId);
  }
});
