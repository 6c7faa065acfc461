/**
 * The screen's password step (`POST ./api/password`, issue 39, docs/migration.md): the first sign-in of a user
 * still on an imported hash, or of one the SaaS's old Cognito pool knows (lazy migration). SRP runs first; only
 * when it refuses, and only on a SaaS that turned password_sign_in on, does the page send the password here
 * (web/login/page/main.ts). The step does not check the password of a user SRP can prove, so a person who has a
 * verifier is never signed in by it. The refusal is one answer for all, saying how a user imported without a
 * password sets one.
 */
import * as Type from '@sinclair/typebox';
import { DomainError } from '../../../shared/errors.js';
import { BODIES } from './contract.js';
import { afterSignInStep, stepOf } from './steps.js';

const { challenge_name: _name, session: _session, responses: _responses, ...context } = BODIES.answer.properties;

export const PasswordBody = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 256 }),
  password: Type.String({ minLength: 1, maxLength: 256 }),
  ...context,
});

export const PASSWORD_STEPS = {
  password: stepOf(PasswordBody, async (call, body) => {
    const service = call.parts.deps.passwordSignIn;
    if (!service) throw new DomainError('not_found', 'not_found', 'no such step');
    let step;
    try {
      step = await service.signIn(call.saasId, { USERNAME: body.username, PASSWORD: body.password }, { withVerifier: false });
    } catch (error) {
      if (error instanceof DomainError && error.code === 'not_authorized') throw new DomainError(error.kind, 'not_authorized_moved', error.message);
      throw error;
    }
    return afterSignInStep(call, step, body, body.username);
  }),
};
