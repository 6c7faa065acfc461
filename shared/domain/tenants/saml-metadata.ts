/**
 * What the service needs from a tenant's SAML identity provider metadata: its entity id, where to send the
 * AuthnRequest (the HTTP-Redirect SingleSignOnService), and the certificates it signs with.
 */
import { DOMParser } from '@xmldom/xmldom';
import { invalid } from '../../errors.js';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

export interface IdpMetadata {
  entityId: string;
  ssoUrl: string;
  /** PEM. */
  certificates: string[];
}

const pem = (base64: string) =>
  `-----BEGIN CERTIFICATE-----\n${base64.replace(/\s+/g, '').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`;

/** Refused with a 400 naming `field` when the XML is not the metadata of an identity provider this service can use. */
export function parseIdpMetadata(xml: string, field = 'metadata'): IdpMetadata {
  const refused = (why: string) => invalid('invalid_parameter', `${field}: ${why}`, { field });
  let root: Element | null;
  try {
    const doc = new DOMParser({
      errorHandler: {
        error: () => {
          throw new Error('malformed');
        },
        fatalError: () => {
          throw new Error('malformed');
        },
      },
    }).parseFromString(xml, 'text/xml');
    root = doc.documentElement;
  } catch {
    throw refused('is not well-formed XML');
  }
  if (!root) throw refused('is not well-formed XML');
  const entity = root.localName === 'EntityDescriptor' ? root : root.getElementsByTagNameNS(MD, 'EntityDescriptor')[0];
  const idp = entity?.getElementsByTagNameNS(MD, 'IDPSSODescriptor')[0];
  if (!entity || !idp) throw refused('has no IDPSSODescriptor (SAML 2.0 identity provider metadata)');
  const sso = [...Array.from(idp.getElementsByTagNameNS(MD, 'SingleSignOnService'))].find((s) => s.getAttribute('Binding') === REDIRECT);
  const ssoUrl = sso?.getAttribute('Location') ?? '';
  if (!/^https?:\/\//.test(ssoUrl)) throw refused('has no SingleSignOnService with the HTTP-Redirect binding');
  const certificates = Array.from(idp.getElementsByTagNameNS(MD, 'KeyDescriptor'))
    .filter((key) => (key.getAttribute('use') ?? 'signing') === 'signing')
    .flatMap((key) => Array.from(key.getElementsByTagNameNS(DS, 'X509Certificate')))
    .map((cert) => pem(cert.textContent ?? ''));
  if (!certificates.length) throw refused('names no signing certificate (KeyDescriptor with an X509Certificate)');
  return { entityId: entity.getAttribute('entityID') ?? '', ssoUrl, certificates };
}
