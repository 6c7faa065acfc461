/**
 * What the SAML function (functions/saml) hands the login screen, sealed: the browser's flow (in a cookie the
 * screen reads) and the checked assertion (a ticket in the URL). The screen needs neither node-saml nor any XML
 * to finish the sign-in, so its bundle carries none.
 */
import { nowSeconds } from '../../../shared/clock.js';
import { invalid } from '../../../shared/errors.js';
import { SAML2_PATH } from '../../../shared/routes.js';
import type { ExternalAccount } from '../../../shared/domain/sign-in/federation.js';
import type { SecretBox } from '../../../shared/crypto/secret-box.js';
import { openJson, sealJson } from '../../kit/sealed.js';
import type { ScreenContext } from '../screen-context.js';

export const SAML_FLOW_COOKIE = 'login_saml';
/** How long a person may take at the identity provider. */
export const SAML_FLOW_SECONDS = 10 * 60;

/** The service provider's assertion consumer service, under the API's public URL (`https://host/v1/auth`). */
export const samlAcsUrl = (publicBaseUrl: string) => `${publicBaseUrl}${SAML2_PATH}/idpresponse`;
/** The service provider's entity id of a SaaS: the URL of its metadata. */
export const samlEntityId = (publicBaseUrl: string, saasId: string) => `${publicBaseUrl}${SAML2_PATH}/metadata/${encodeURIComponent(saasId)}`;

/** The provider name a tenant's SAML accounts are linked under. */
export const samlProvider = (tenantId: string) => `SAML:${tenantId}`;

/** What the browser's cookie holds between the AuthnRequest and the return: the request's ID, what the screen was opened for. */
export interface SamlBrowserFlow {
  request_id: string;
  context: ScreenContext;
}

/** A checked assertion, from the assertion consumer service to the screen's `saml/continue`. */
export interface SamlTicket {
  request_id: string;
  saas_id: string;
  /** The assertion it carries: the ticket is used once (the screen claims it), as the assertion is. */
  assertion: { issuer: string; id: string };
  account: ExternalAccount;
  exp: number;
}

const FLOW_CONTEXT = { purpose: 'saml browser flow' };
const TICKET_CONTEXT = { purpose: 'saml ticket' };

export const sealSamlFlow = (box: SecretBox, flow: SamlBrowserFlow) => sealJson(box, flow, FLOW_CONTEXT);
export const sealSamlTicket = (box: SecretBox, ticket: SamlTicket) => sealJson(box, ticket, TICKET_CONTEXT);

/** The ticket and the browser's flow, when this browser made the request the assertion answers. */
export async function openSamlTicket(
  box: SecretBox,
  sealedTicket: string,
  sealedFlow: string | undefined,
): Promise<{ ticket: SamlTicket; flow: SamlBrowserFlow }> {
  const ticket = await openJson<SamlTicket>(box, sealedTicket, TICKET_CONTEXT);
  if (!ticket?.assertion) throw invalid('invalid_parameter', 'ticket: is not a SAML ticket of this service');
  if (ticket.exp <= nowSeconds()) throw invalid('ticket_expired', 'ticket: too old; sign in again');
  const flow = sealedFlow ? await openJson<SamlBrowserFlow>(box, sealedFlow, FLOW_CONTEXT) : undefined;
  if (!flow || flow.request_id !== ticket.request_id) {
    throw invalid('saml_refused', 'this browser did not start this sign-in; start again from the login screen');
  }
  return { ticket, flow };
}
