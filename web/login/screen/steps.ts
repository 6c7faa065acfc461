/**
 * The screen's JSON steps of a password sign-in, a sign-up, an invitation and a forgotten password (`POST
 * ./api/…`, screen.ts's table), each a body schema and what it does with it; the screen pipeline
 * (web/kit/pipeline.ts) checks the request before any of them runs. They call the same domain services as the
 * API's operations, so lockout, fake challenges and mail limits hold here too.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { isBreached } from '../../../shared/domain/configuration/password-policy.js';
import { DomainError, invalid } from '../../../shared/errors.js';
import type { ChallengeAnswer, SignInResult } from '../../../shared/schemas/sign-in.js';
import { openJson } from '../../kit/sealed.js';
import { passwordChallenge } from '../srp.js';
import { BODIES, deviceTicket, type ScreenParts } from './contract.js';
import { finish } from './finish.js';
import { PASSWORD, PASSWORD_AND_CODE, PASSWORD_AND_DEVICE, type SignInWay } from './screen-session.js';
import { answerDeviceSteps, type DeviceJar } from './remembered-devices.js';
import type { ScreenContext } from '../screen-context.js';

/** What a step is run with: the screen's parts, the SaaS, and the devices this browser remembers. */
export interface StepCall {
  parts: ScreenParts;
  saasId: string;
  devices: DeviceJar;
}

export interface ScreenStep {
  body: TSchema;
  run(call: StepCall, body: unknown): Promise<object>;
}

/** A step: its body's schema, and what it answers (the JSON the page reads) for a body of that shape. */
export const stepOf = <S extends TSchema>(body: S, run: (call: StepCall, body: Static<S>) => Promise<object>): ScreenStep => ({
  body,
  run: run as ScreenStep['run'],
});

/** The challenges the page answers by itself with the device it remembers, passing its answers on whole. */
const DEVICE_STEPS = ['DEVICE_SRP_AUTH', 'DEVICE_PASSWORD_VERIFIER'];

/** The challenges a person can answer on this screen, with the page field each takes and its response name. */
const FOLLOW_UPS: Readonly<Record<string, string | undefined>> = {
  NEW_PASSWORD_REQUIRED: 'NEW_PASSWORD',
  SOFTWARE_TOKEN_MFA: 'SOFTWARE_TOKEN_MFA_CODE',
  EMAIL_OTP: 'EMAIL_OTP_CODE',
};

const choiceOff = () =>
  invalid('sign_up_changed', 'password: this sign-up page is out of date (the SaaS changed how passwords are set at sign-up); reload it');

/** The consents the SaaS's sign-up page asks for, given (a sign-up's, or a provider's new account's). */
export async function checkConsents({ deps }: ScreenParts, saasId: string, body: { accepted_terms: boolean; accepted_privacy: boolean }) {
  const { sign_up_page } = (await deps.look(saasId)).pages;
  if ((sign_up_page.is_terms_of_service && !body.accepted_terms) || (sign_up_page.is_privacy_policy && !body.accepted_privacy)) {
    throw invalid('must_accept', 'accepted_terms, accepted_privacy: the sign-up page asks for both');
  }
}

async function start({ parts, saasId }: StepCall, body: { username: string; srp_a: string }) {
  const step = await parts.deps.signIn.start(saasId, { USERNAME: body.username, SRP_A: body.srp_a });
  const challenge = passwordChallenge(step);
  if (!challenge) throw new Error(`Sign In answered ${String(step.challenge_name)} where PASSWORD_VERIFIER was expected`);
  return { challenge };
}

/** How a sign-in ended by this answer proved who the person is: the step answered last says. */
const wayOf = (challenge: string, withDevice: boolean) =>
  challenge === 'SOFTWARE_TOKEN_MFA' || challenge === 'EMAIL_OTP'
    ? PASSWORD_AND_CODE
    : withDevice || challenge === 'DEVICE_PASSWORD_VERIFIER'
      ? PASSWORD_AND_DEVICE
      : PASSWORD;

async function answer(call: StepCall, body: Static<typeof BODIES.answer>) {
  const { parts, saasId, devices } = call;
  const allowed = FOLLOW_UPS[body.challenge_name];
  const responses = allowed ? { USERNAME: body.responses.USERNAME ?? '', [allowed]: body.responses[allowed] ?? '' } : body.responses;
  // The device this browser keeps for the user goes with the password's proof, and answers its own steps.
  const device = body.challenge_name === 'PASSWORD_VERIFIER' && !responses.DEVICE_KEY ? await devices.device(responses.USERNAME ?? '') : undefined;
  const respond = (next: ChallengeAnswer) => parts.deps.signIn.respond(saasId, next);
  let step: SignInResult;
  try {
    step = await respond({
      challenge_name: body.challenge_name,
      challenge_responses: device ? { ...responses, DEVICE_KEY: device.key } : responses,
      session: body.session,
    });
    if (device && step.challenge_name === 'DEVICE_SRP_AUTH') {
      step = await answerDeviceSteps(respond, step, device, step.challenge_parameters.USERNAME ?? responses.USERNAME ?? '');
    }
  } catch (error) {
    if (device && error instanceof DomainError && error.code === 'device_not_found') devices.forget(responses.USERNAME ?? '');
    return enrolmentOf(error);
  }
  return afterSignInStep(call, step, body, responses.USERNAME, wayOf(body.challenge_name, device !== undefined));
}

/**
 * Passkeys required, and the password was right for a person with none yet: not a refusal but the next step,
 * the enrolment of their first passkey (passkeys.ts, `enrol`). Any other error is thrown on.
 */
export function enrolmentOf(error: unknown): { passkey_enrolment: { ticket: string } } {
  const ticket = error instanceof DomainError && error.code === 'passkey_enrolment_required' ? error.data.enrolment : undefined;
  if (typeof ticket !== 'string') throw error;
  return { passkey_enrolment: { ticket } };
}

/** What the page gets after a sign-in step: off to the callback when it ended, or the next step it asks for. */
export function afterSignInStep(
  { parts, saasId }: StepCall,
  step: SignInResult,
  context: ScreenContext,
  username: string | undefined,
  way: SignInWay = PASSWORD,
) {
  if (step.credentials) return finish(parts, saasId, { ...step, credentials: step.credentials }, context, way);
  const next = step.challenge_name ?? '';
  if (!Object.hasOwn(FOLLOW_UPS, next) && !DEVICE_STEPS.includes(next)) {
    throw invalid('unsupported_challenge', `the sign-in asks for ${next}, which this screen does not offer`);
  }
  return Promise.resolve({
    challenge_name: next,
    session: step.session ?? '',
    username: step.challenge_parameters.USERNAME ?? step.challenge_parameters.USER_ID_FOR_SRP ?? username,
    // The device steps' SRP values; the person's steps need none.
    ...(DEVICE_STEPS.includes(next) ? { parameters: step.challenge_parameters } : {}),
  });
}

/** Confirms the page's device (remembered at once, or when the person asked and the SaaS lets them choose). */
async function confirmDevice({ parts, saasId, devices }: StepCall, body: Static<typeof BODIES.device>) {
  const { deps } = parts;
  const held = await openJson<{ access_token: string; device_key: string; device_group_key: string }>(deps.box, body.ticket, deviceTicket(saasId));
  if (!held?.device_group_key) throw invalid('invalid_parameter', 'ticket: is not a device ticket of this screen');
  const { access_token, device_key } = held;
  const remembered = await devices.keep(access_token, held, async (salt, password_verifier) => {
    const confirmed = await deps.devices.confirm(saasId, {
      access_token,
      device_key,
      device_name: 'Browser (login screen)',
      device_secret_verifier_config: { salt, password_verifier },
    });
    if (confirmed.user_confirmation_necessary && body.remember) {
      await deps.devices.updateStatus(saasId, { access_token, device_key, device_remembered_status: 'remembered' });
    }
    return !confirmed.user_confirmation_necessary || body.remember;
  });
  return { remembered };
}

/**
 * Sign-up with the consents the sign-up page asks for. An address that has an account already gets the
 * same answer as a new one (and no mail): the screen does not tell who has an account.
 */
async function signUp({ parts, saasId }: StepCall, body: Static<typeof BODIES.signUp>) {
  const { deps } = parts;
  await checkConsents(parts, saasId, body);
  const chosen = (await deps.look(saasId)).signUpPassword === 'chosen' && deps.signUpWithPassword;
  // The page was made for the other way (the setting changed since): said, rather than mailing what it does not expect.
  if (chosen ? body.password === undefined : body.password !== undefined) throw choiceOff();
  try {
    if (chosen) await chosen.request(saasId, body.email, body.password as string);
    else await deps.signUp(saasId, body.email);
  } catch (error) {
    if (!(error instanceof DomainError && error.code === 'email_already_exists')) throw error;
  }
  return { email: body.email, ...(chosen ? { code_sent: true } : {}) };
}

/** The steps of a password's way in, by the name after `api/`. */
export const ACCOUNT_STEPS: Readonly<Record<string, ScreenStep>> = {
  start: stepOf(BODIES.start, start),
  answer: stepOf(BODIES.answer, answer),
  device: stepOf(BODIES.device, confirmDevice),
  'join-code': stepOf(BODIES.joinCode, async ({ parts, saasId }, { invitation }) => {
    await parts.deps.invitations.mailJoinCode(saasId, invitation.id);
    return {};
  }),
  join: stepOf(BODIES.join, ({ parts, saasId }, { invitation, code, password }) =>
    parts.deps.invitations.joinWithCode(saasId, invitation.id, { code, password }),
  ),
  'sign-up': stepOf(BODIES.signUp, signUp),
  'sign-up-confirm': stepOf(BODIES.signUpConfirm, async ({ parts, saasId }, input) => {
    const { deps } = parts;
    if (!deps.signUpWithPassword || (await deps.look(saasId)).signUpPassword !== 'chosen') throw choiceOff();
    await deps.signUpWithPassword.confirm(saasId, input);
    return { email: input.email };
  }),
  forgot: stepOf(BODIES.forgot, async ({ parts, saasId }, { username }) => {
    await parts.deps.passwordReset.request(saasId, username);
    return {};
  }),
  reset: stepOf(BODIES.reset, async ({ parts, saasId }, body) => {
    await parts.deps.passwordReset.confirm(saasId, body);
    return {};
  }),
  // The breach screen live, as the person types a new password: the list is public, so the answer tells nothing
  // a download would not; the filter stays on this function (416 KiB) rather than in every page.
  'password-check': stepOf(BODIES.passwordCheck, async (_call, { password }) => ({ breached: await isBreached(password) })),
};
