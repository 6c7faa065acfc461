/**
 * The screen's ways in through another's account: off to Google and back at `{BASE_PATH}/oauth2/idpresponse`
 * (federation.ts), off to a tenant's SAML identity provider and back with the SAML function's sealed ticket
 * (web/login/saml/ticket.ts), and the two pages such an account may need first: the consents a new account
 * waits for, and the code that links an account met by its address. Every one ends in finish.ts.
 */
import { nowSeconds } from '../../../shared/clock.js';
import type { ExternalAccount } from '../../../shared/domain/sign-in/federation.js';
import { DomainError, invalid } from '../../../shared/errors.js';
import { log } from '../../../shared/log.js';
import { cookie, setCookie } from '../../kit/cookies.js';
import type { WebRequest, WebResponse } from '../../kit/http.js';
import { openJson, sealJson } from '../../kit/sealed.js';
import { refusalText } from '../dead-ends.js';
import { openSamlTicket, SAML_FLOW_COOKIE } from '../saml/ticket.js';
import { contextQuery, screenContext, type ScreenContext } from '../screen-context.js';
import { googleFlowCookie, messageAnswer, notFound, otherWaysIn, redirect, screenCookie, screenPath } from './answers.js';
import {
  BODIES,
  consentTicket,
  LINK_TICKET_SECONDS,
  linkTicket,
  type ConsentTicket,
  type LinkTicket,
  type LoginScreenDeps,
  type ScreenCall,
  type ScreenParts,
} from './contract.js';
import { FLOW_COOKIE, FLOW_SECONDS } from './federation.js';
import { finishWith } from './finish.js';
import { providerWay } from './screen-session.js';
import { checkConsents, stepOf, type ScreenStep } from './steps.js';

/** Off to Google with the flow in a cookie only the return address reads. */
export async function beginGoogle({ parts: { deps }, saasId, query }: ScreenCall): Promise<WebResponse> {
  const context = screenContext(query);
  const { texts } = deps;
  let started: Awaited<ReturnType<LoginScreenDeps['federation']['google']['begin']>>;
  try {
    started = await deps.federation.google.begin(saasId, context);
  } catch (error) {
    // Its settings broken or the provider unreachable (a 503: nothing the person sent is wrong): the person
    // reads why and takes another way in.
    log.warn('the Google sign-in could not start', { error: error instanceof Error ? error.message : String(error) });
    return otherWaysIn(deps, saasId, texts.page.providerUnavailableTitle, texts.page.providerUnavailable, context);
  }
  // No Google for this SaaS: there is no such way in (a 404), and the page shows the others.
  if (!started) return otherWaysIn(deps, saasId, texts.page.providerUnavailableTitle, texts.page.providerUnavailable, context, 404);
  // Lax: the provider sends the browser back with a top-level GET from its own site.
  return redirect(started.location, [setCookie(FLOW_COOKIE, started.flow, googleFlowCookie(deps), FLOW_SECONDS)]);
}

/**
 * `{BASE_PATH}/oauth2/idpresponse`: back from the provider. Signed in, the browser goes where the screen would
 * have sent it; an account to link goes to the code page; a refusal is a page saying why.
 */
export async function federatedReturn(parts: ScreenParts, request: WebRequest): Promise<WebResponse> {
  const { deps } = parts;
  const forget = setCookie(FLOW_COOKIE, '', googleFlowCookie(deps), 0);
  let saasId: string | undefined;
  let context: ScreenContext = {};
  try {
    const current = new URL(deps.federation.returnUrl);
    current.search = new URLSearchParams(request.query).toString();
    const back = await deps.federation.google.complete(current, cookie(request.headers.cookie, FLOW_COOKIE) ?? '');
    saasId = back.saasId;
    context = back.context;
    return redirect(await federatedSignIn(parts, back.saasId, back.account, back.context), [forget]);
  } catch (error) {
    // Refused before the flow was read back (the provider's refusal, or it failing): still the SaaS's page.
    const flow = saasId ? undefined : await deps.federation.google.flowOf?.(cookie(request.headers.cookie, FLOW_COOKIE) ?? '');
    if (flow) ({ saasId, context } = flow);
    return federationRefused(deps, error, saasId, deps.texts.page.federationFailedTitle, forget, context);
  }
}

/** Signed in where the screen would have sent the browser, or to the page that takes the link code. */
export async function federatedSignIn(
  parts: ScreenParts,
  saasId: string,
  account: ExternalAccount,
  context: ScreenContext,
  consented = false,
): Promise<string> {
  const { deps } = parts;
  // A new account waits for the consents the sign-up page asks for; an existing one is never asked again.
  const { sign_up_page } = (await deps.look(saasId)).pages;
  const mayCreate = consented || (!sign_up_page.is_terms_of_service && !sign_up_page.is_privacy_policy);
  const outcome = await deps.federation.signIn(saasId, account, { mayCreate });
  if (outcome.kind === 'signed_in')
    return (await finishWith(parts, saasId, outcome.credentials, context, providerWay(account.tenantId), false)).redirect;
  if (outcome.kind === 'consent_needed') {
    const ticket: ConsentTicket = { account, email: outcome.email, context, exp: nowSeconds() + LINK_TICKET_SECONDS };
    const sealed = await sealJson(deps.box, ticket, consentTicket(saasId));
    return `${screenPath(deps, saasId)}consent?${new URLSearchParams({ ticket: sealed }).toString()}`;
  }
  const { provider, subject, tenantId } = account;
  const met = { provider, subject, ...(tenantId !== undefined ? { tenantId } : {}) };
  const ticket: LinkTicket = { user_id: outcome.userId, email: outcome.email, account: met, context, exp: nowSeconds() + LINK_TICKET_SECONDS };
  const sealed = await sealJson(deps.box, ticket, linkTicket(saasId));
  return `${screenPath(deps, saasId)}link?${new URLSearchParams({ ticket: sealed }).toString()}`;
}

/** A refusal on the way back from an identity provider: a page saying why, and the flow's cookie forgotten. */
export function federationRefused(
  deps: LoginScreenDeps,
  error: unknown,
  saasId: string | undefined,
  title: string,
  forget: string,
  context: ScreenContext = {},
): WebResponse {
  const { texts } = deps;
  if (!(error instanceof DomainError)) log.error('a federated sign-in failed', error);
  const [status, message] = error instanceof DomainError ? [400, refusalText(texts, error)] : [503, texts.page.providerUnavailable];
  const page = saasId ? otherWaysIn(deps, saasId, title, message, context, status) : messageAnswer(deps, status, undefined, title, message);
  return { ...page, cookies: [forget] };
}

/** Off to the SAML function, which signs the AuthnRequest for the tenant's identity provider (functions/saml). */
export function beginSaml({ parts: { deps }, saasId, query }: ScreenCall): WebResponse {
  const tenantId = query.get('tenant_id') ?? '';
  if (!/^[A-Za-z0-9-]{1,64}$/.test(tenantId)) return notFound(deps, saasId);
  const start = new URL(deps.samlStartUrl(saasId, tenantId));
  for (const [name, value] of Object.entries(contextQuery(screenContext(query)))) start.searchParams.set(name, value);
  return redirect(start.toString());
}

/** `./saml/continue?ticket=…`: the assertion the SAML function checked, signed in when this browser asked for it. */
export async function continueSaml({ parts, saasId, query, request }: ScreenCall): Promise<WebResponse> {
  const { deps } = parts;
  const forget = setCookie(SAML_FLOW_COOKIE, '', screenCookie(deps, saasId, 'Lax'), 0);
  try {
    const { ticket, flow } = await openSamlTicket(deps.box, query.get('ticket') ?? '', cookie(request.headers.cookie, SAML_FLOW_COOKIE));
    if (ticket.saas_id !== saasId) throw invalid('saml_refused', 'ticket: is for another SaaS');
    if (!(await deps.federation.claimSamlTicket(saasId, ticket.assertion, ticket.exp))) {
      throw invalid('saml_replayed', 'ticket: was used already; sign in again');
    }
    return redirect(await federatedSignIn(parts, saasId, ticket.account, flow.context), [forget]);
  } catch (error) {
    return federationRefused(deps, error, saasId, deps.texts.page.samlFailedTitle, forget);
  }
}

export async function openConsentTicket({ deps }: ScreenParts, saasId: string, sealed: string): Promise<ConsentTicket> {
  const ticket = await openJson<ConsentTicket>(deps.box, sealed, consentTicket(saasId));
  if (!ticket?.account) throw invalid('invalid_parameter', 'ticket: is not a consent ticket of this screen');
  if (ticket.exp <= nowSeconds()) throw invalid('ticket_expired', 'ticket: too old; sign in with the provider again');
  return ticket;
}

export async function openLinkTicket({ deps }: ScreenParts, saasId: string, sealed: string): Promise<LinkTicket> {
  const ticket = await openJson<LinkTicket>(deps.box, sealed, linkTicket(saasId));
  if (!ticket?.account) throw invalid('invalid_parameter', 'ticket: is not a link ticket of this screen');
  if (ticket.exp <= nowSeconds()) throw invalid('ticket_expired', 'ticket: too old; sign in with the provider again');
  return ticket;
}

/** The JSON steps of the consent and link pages, by the name after `api/`. */
export const FEDERATED_STEPS: Readonly<Record<string, ScreenStep>> = {
  // The consents given for a provider's new account: the account made (or met meanwhile) and signed in.
  consent: stepOf(BODIES.consent, async ({ parts, saasId }, body) => {
    await checkConsents(parts, saasId, body);
    const ticket = await openConsentTicket(parts, saasId, body.ticket);
    return { redirect: await federatedSignIn(parts, saasId, ticket.account, ticket.context, true) };
  }),
  link: stepOf(BODIES.link, async ({ parts, saasId }, { ticket, code }) => {
    const pending = await openLinkTicket(parts, saasId, ticket);
    const credentials = await parts.deps.federation.confirmLink(saasId, pending.user_id, code, pending.account);
    return finishWith(parts, saasId, credentials, pending.context, providerWay(pending.account.tenantId));
  }),
};
