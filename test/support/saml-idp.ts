/**
 * A tenant's SAML identity provider for the tests: `samlify` (npm) in the IdP role, with its own key and a
 * self-signed certificate. It reads the service's signed AuthnRequest (checking its signature against the SP
 * metadata's certificate) and answers a signed assertion for a person, with their e-mail address as an
 * attribute, for the browser to post to the service's assertion consumer service.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as samlify from 'samlify';
import { selfSignedCertificate } from '../../shared/crypto/self-signed-certificate.js';

// The service's requests are checked by their signature here; the stand-in does not validate XML schemas.
samlify.setSchemaValidator({ validate: () => Promise.resolve('skipped by the test identity provider') });

export const EMAIL_ATTRIBUTE = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress';
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

export interface TestIdp {
  entityId: string;
  metadata: string;
  /** The form fields to post to the ACS: a signed response to the AuthnRequest of `location` (the service's redirect). */
  respond(
    location: string,
    spMetadata: string,
    person: { nameId: string; email: string },
    /** What a response meant for another service provider would name: its Recipient, its Destination. */
    aimedAt?: { recipient?: string; destination?: string },
  ): Promise<{ acs: string; SAMLResponse: string }>;
}

const ATTRIBUTES = (email: string) =>
  `<saml:AttributeStatement><saml:Attribute Name="${EMAIL_ATTRIBUTE}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:uri"><saml:AttributeValue xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="xs:string">${email}</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>`;

/** `origin`: where a browser reaches its sign-in page (`serveTestIdp`); tests that post by themselves need none. */
export function startTestIdp(name: string, origin = `https://idp-${name}.test`): TestIdp {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const certificate = selfSignedCertificate(privateKey, `test idp ${name}`, new Date(Date.now() - 60_000), 30);
  const entityId = `https://idp-${name}.test/metadata`;
  const idp = samlify.IdentityProvider({
    entityID: entityId,
    signingCert: certificate,
    privateKey: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
    wantAuthnRequestsSigned: true,
    singleSignOnService: [{ Binding: REDIRECT, Location: `${origin}/sso` }],
    singleLogoutService: [{ Binding: REDIRECT, Location: `${origin}/slo` }],
    nameIDFormat: ['urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified'],
  });
  return {
    entityId,
    metadata: idp.getMetadata(),
    async respond(location, spMetadata, person, aimedAt = {}) {
      const sp = samlify.ServiceProvider({ metadata: spMetadata });
      const url = new URL(location);
      // The signature covers the query as sent: its parameters before Signature, in their encoding.
      const octetString = url.search
        .slice(1)
        .split('&')
        .filter((p) => !p.startsWith('Signature='))
        .join('&');
      const query = Object.fromEntries(url.searchParams);
      const request = (await idp.parseLoginRequest(sp, 'redirect', { query, octetString })) as unknown as Parameters<
        typeof idp.createLoginResponse
      >[1] & {
        extract: { request: { id: string } };
      };
      const acs = /AssertionConsumerService[^>]*Location="([^"]+)"/.exec(spMetadata)?.[1] ?? '';
      const now = new Date();
      const later = new Date(now.getTime() + 5 * 60_000);
      const response = await idp.createLoginResponse(sp, request, 'post', { email: person.email }, (template: string) => ({
        id: `_${randomUUID()}`,
        // Markup goes in as it is; replaceTagsByValue escapes the values it puts in.
        context: samlify.SamlLib.replaceTagsByValue(
          template.replace('{AttributeStatement}', ATTRIBUTES(person.email)).replace('{AuthnStatement}', ''),
          {
            ID: `_${randomUUID()}`,
            AssertionID: `_${randomUUID()}`,
            Destination: aimedAt.destination ?? acs,
            Audience: sp.entityMeta.getEntityID(),
            EntityID: sp.entityMeta.getEntityID(),
            SubjectRecipient: aimedAt.recipient ?? acs,
            Issuer: entityId,
            IssueInstant: now.toISOString(),
            AssertionConsumerServiceURL: acs,
            StatusCode: 'urn:oasis:names:tc:SAML:2.0:status:Success',
            ConditionsNotBefore: now.toISOString(),
            ConditionsNotOnOrAfter: later.toISOString(),
            SubjectConfirmationDataNotOnOrAfter: later.toISOString(),
            NameIDFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
            NameID: person.nameId,
            InResponseTo: request.extract.request.id,
          },
        ),
      }));
      return { acs, SAMLResponse: response.context };
    },
  };
}

/**
 * The identity provider as a browser meets it, on `localhost` (another site than the service's 127.0.0.1): its
 * sign-in page answers the AuthnRequest with a form that posts the signed response to the service, as
 * identity providers do (a button here, where they submit it by script).
 */
export async function serveTestIdp(name: string, spMetadataUrl: string, person: { nameId: string; email: string }) {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const idp = startTestIdp(name, `http://localhost:${(server.address() as AddressInfo).port}`);
  server.on('request', (req, res) => {
    void (async () => {
      const spMetadata = await (await fetch(spMetadataUrl)).text();
      const { acs, SAMLResponse } = await idp.respond(`http://localhost${req.url ?? '/'}`, spMetadata, person);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><title>Test IdP</title><form method="post" action="${acs}"><input type="hidden" name="SAMLResponse" value="${SAMLResponse}"><button id="continue">Continue</button></form>`,
      );
    })().catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { idp, close };
}
