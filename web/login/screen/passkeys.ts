/**
 * Passkeys on the hosted login screen (our extension; shared/domain/sign-in/passkeys.ts has the rules). Shown
 * only when the SaaS turned them on (sign-in setting `passkeys.enable`).
 *
 *   POST ./api/passkey/sign-in-options  {}                               → {challenge_id, options}
 *   POST ./api/passkey/sign-in          {challenge_id, response, state?…} → what a password sign-in answers
 *   POST ./api/passkey/list             {ticket}                         → {passkeys}
 *   POST ./api/passkey/register-options {ticket}                         → {challenge_id, options}
 *   POST ./api/passkey/register         {ticket, challenge_id, response} → {passkey}
 *   POST ./api/passkey/remove           {ticket, passkey_id}             → {}
 *   POST ./api/passkey/continue         {hold}                           → {} once the sign-in's code is saved
 *   POST ./api/passkey/enrol-options    {enrolment}                      → {challenge_id, options}
 *   POST ./api/passkey/enrol            {enrolment, challenge_id, response} → {passkey}
 *
 * The last two serve passkeys required (`passkeys.required`): a password sign-in of a person with no passkey
 * answers an enrolment ticket instead of a sign-in (steps.ts), the page creates the passkey with it, then signs
 * in with that passkey.
 * The ticket is what a finished sign-in hands the page (`passkeys` beside `redirect`): the access token sealed,
 * so the page can manage the person's passkeys without ever holding a token.
 */
import * as Type from '@sinclair/typebox';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { SecretBox } from '../../../shared/crypto/secret-box.js';
import type { PasskeyService, RelyingParty } from '../../../shared/domain/sign-in/passkeys.js';
import { invalid } from '../../../shared/errors.js';
import { validate } from '../../../shared/http/validation.js';
import type { Credentials } from '../../../shared/schemas/sign-in.js';
import { nowSeconds } from '../../../shared/clock.js';
import { MAX_AUTHORIZATION_LENGTH, MAX_STATE_LENGTH, type ScreenContext } from '../screen-context.js';
import { openJson, sealJson } from '../../kit/sealed.js';

/**
 * The relying party of a request: the host that serves the screen (the deployment's, a per-SaaS host, a
 * custom domain), and the page's origin. The one place it is derived, so it follows whatever host serves the
 * screen. Host is what the browser addressed; API Gateway and the local server pass it through unchanged.
 */
export function relyingParty(headers: Record<string, string | undefined>, secure: boolean, name: string): RelyingParty {
  const host = headers.host ?? '';
  const scheme = headers['x-forwarded-proto'] === 'https' || secure ? 'https' : 'http';
  if (!/^[A-Za-z0-9.-]{1,253}(:\d{1,5})?$/.test(host)) throw invalid('invalid_host', 'host: is not a host name this screen can serve passkeys on');
  const url = new URL(`${scheme}://${host}`);
  return { id: url.hostname, origin: url.origin, name };
}

export type PasskeyScreenService = Pick<
  PasskeyService,
  'enabled' | 'signInOptions' | 'signIn' | 'registrationOptions' | 'register' | 'listForHolder' | 'removeForHolder' | 'enrolmentOptions' | 'enrol'
>;

const Ticket = Type.String({ minLength: 1, maxLength: 8192 });
const ChallengeId = Type.String({ pattern: '^[A-Za-z0-9_-]{32}$' });
const B64 = Type.String({ maxLength: 8192, pattern: '^[A-Za-z0-9_-]*$' });
/** The JSON of a PublicKeyCredential, as @simplewebauthn/browser makes it; the library checks the rest. */
const CredentialJson = Type.Object({
  id: B64,
  rawId: B64,
  type: Type.Literal('public-key'),
  response: Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 16 }),
  clientExtensionResults: Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 16 }),
  authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
});
export const PASSKEY_BODIES = {
  signInOptions: Type.Object({}),
  signIn: Type.Object({
    challenge_id: ChallengeId,
    response: CredentialJson,
    state: Type.Optional(Type.String({ maxLength: MAX_STATE_LENGTH })),
    code_challenge: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' })),
    authorization: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_AUTHORIZATION_LENGTH })),
    invitation: Type.Optional(
      Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), tenant_id: Type.String({ minLength: 1, maxLength: 64 }) }),
    ),
  }),
  ticket: Type.Object({ ticket: Ticket }),
  continue: Type.Object({ hold: Type.String({ pattern: '^[0-9a-f-]{36}$' }) }),
  register: Type.Object({ ticket: Ticket, challenge_id: ChallengeId, response: CredentialJson }),
  remove: Type.Object({ ticket: Ticket, passkey_id: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }) }),
  enrolment: Type.Object({ enrolment: Ticket }),
  enrol: Type.Object({ enrolment: Ticket, challenge_id: ChallengeId, response: CredentialJson }),
};

/** How long after a sign-in the page may still manage the person's passkeys with its ticket. */
const TICKET_SECONDS = 15 * 60;
const ticketContext = (saasId: string) => ({ purpose: 'login screen passkey ticket', saas_id: saasId });

export interface PasskeyStepsDeps {
  passkeys: PasskeyScreenService;
  box: SecretBox;
  /** The screen is served over HTTPS (the deployed service). */
  secure: boolean;
  /** Ends a sign-in as every way of signing in ends (LoginScreen.finish). */
  finish(saasId: string, credentials: Credentials, context: ScreenContext & { invitation?: { id: string } }): Promise<object>;
  /** Saves the code a finished sign-in held back while the page offered passkeys; false when used or expired. */
  release(saasId: string, hold: string): Promise<boolean>;
}

export class PasskeySteps {
  constructor(private readonly deps: PasskeyStepsDeps) {}

  /** What a finished sign-in hands the page when the SaaS offers passkeys: the ticket and how many the person has. */
  async offer(saasId: string, credentials: Credentials): Promise<{ passkeys?: { ticket: string; count: number } }> {
    if (!(await this.deps.passkeys.enabled(saasId))) return {};
    const ticket = await sealJson(
      this.deps.box,
      { access_token: credentials.access_token, exp: nowSeconds() + TICKET_SECONDS },
      ticketContext(saasId),
    );
    const { passkeys } = await this.deps.passkeys.listForHolder(saasId, credentials.access_token);
    return { passkeys: { ticket, count: passkeys.length } };
  }

  private async accessToken(saasId: string, sealed: string): Promise<string> {
    const held = await openJson<{ access_token: string; exp: number }>(this.deps.box, sealed, ticketContext(saasId));
    if (!held) throw invalid('invalid_parameter', 'ticket: is not a passkey ticket of this screen');
    if (held.exp <= nowSeconds()) throw invalid('ticket_expired', 'ticket: too old; sign in again to manage your passkeys');
    return held.access_token;
  }

  /** One `api/passkey/…` step; `name` is what follows `passkey/`. Undefined for a step there is not. */
  async step(
    saasId: string,
    name: string,
    body: unknown,
    headers: Record<string, string | undefined>,
    siteName: string,
  ): Promise<object | undefined> {
    const rp = () => relyingParty(headers, this.deps.secure, siteName);
    const { passkeys } = this.deps;
    switch (name) {
      case 'sign-in-options':
        validate(PASSKEY_BODIES.signInOptions, body, 'body');
        return passkeys.signInOptions(saasId, rp());
      case 'sign-in': {
        const { challenge_id, response, ...context } = validate(PASSKEY_BODIES.signIn, body, 'body');
        const { credentials } = await passkeys.signIn(saasId, rp(), challenge_id, response as unknown as AuthenticationResponseJSON);
        return this.deps.finish(saasId, credentials, context);
      }
      case 'list': {
        const { ticket } = validate(PASSKEY_BODIES.ticket, body, 'body');
        return passkeys.listForHolder(saasId, await this.accessToken(saasId, ticket));
      }
      case 'register-options': {
        const { ticket } = validate(PASSKEY_BODIES.ticket, body, 'body');
        return passkeys.registrationOptions(saasId, await this.accessToken(saasId, ticket), rp());
      }
      case 'register': {
        const { ticket, challenge_id, response } = validate(PASSKEY_BODIES.register, body, 'body');
        const token = await this.accessToken(saasId, ticket);
        return { passkey: await passkeys.register(saasId, token, rp(), challenge_id, response as unknown as RegistrationResponseJSON) };
      }
      case 'remove': {
        const { ticket, passkey_id } = validate(PASSKEY_BODIES.remove, body, 'body');
        await passkeys.removeForHolder(saasId, await this.accessToken(saasId, ticket), passkey_id);
        return {};
      }
      case 'continue': {
        const { hold } = validate(PASSKEY_BODIES.continue, body, 'body');
        if (!(await this.deps.release(saasId, hold))) {
          throw invalid('sign_in_expired', 'hold: used, unknown, or too old; sign in again');
        }
        return {};
      }
      case 'enrol-options': {
        const { enrolment } = validate(PASSKEY_BODIES.enrolment, body, 'body');
        return passkeys.enrolmentOptions(saasId, enrolment, rp());
      }
      case 'enrol': {
        const { enrolment, challenge_id, response } = validate(PASSKEY_BODIES.enrol, body, 'body');
        return { passkey: await passkeys.enrol(saasId, enrolment, rp(), challenge_id, response as unknown as RegistrationResponseJSON) };
      }
      default:
        return undefined;
    }
  }
}
