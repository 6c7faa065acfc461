/**
 * The sign-in group: sign-in and its challenges, devices, credentials (refresh, temporary codes), /userinfo,
 * and sign-up with the marketplace operations (sign-up-operations.ts).
 */
import { operation } from '../../shared/schemas/operation.js';
import { signInSchemas as s } from '../../shared/schemas/sign-in.js';
import { signUpOperations } from './sign-up-operations.js';
import { groupHandler } from '../group-handler.js';
import {
  credentialService as credentials,
  deviceService as devices,
  passwordSignInService as passwordSignIn,
  signInService as signIn,
  tellPageView,
} from '../../shared/wiring.js';

export const handler = groupHandler('sign-in', {
  ...signUpOperations,
  signIn: operation(s.signIn, ({ body }, ctx) =>
    body.sign_in_flow === 'USER_PASSWORD_AUTH'
      ? passwordSignIn().signIn(ctx.saasId, body.sign_in_parameters, { withVerifier: true })
      : signIn().start(ctx.saasId, body.sign_in_parameters),
  ),
  respondToSignInChallenge: operation(s.respondToSignInChallenge, ({ body }, ctx) => signIn().respond(ctx.saasId, body)),
  confirmDevice: operation(s.confirmDevice, ({ body }, ctx) => devices().confirm(ctx.saasId, body)),
  updateDeviceStatus: operation(s.updateDeviceStatus, ({ body }, ctx) => devices().updateStatus(ctx.saasId, body)),
  getAuthCredentials: operation(s.getAuthCredentials, ({ query }, ctx) => credentials().get(ctx.saasId, query)),
  createAuthCredentials: operation(s.createAuthCredentials, ({ body }, ctx) => credentials().save(ctx.saasId, body)),
  exchangeAuthCredentials: operation(s.exchangeAuthCredentials, ({ body }, ctx) => credentials().exchange(ctx.saasId, body)),
  getUserInfo: operation(s.getUserInfo, async ({ query }, ctx) => {
    const info = await credentials().userInfo(ctx.saasId, query.token);
    // The page the user is on joins their page histories (the Analysis API), as SaaSus documents.
    tellPageView(ctx.saasId, info.id);
    return info;
  }),
  revokeToken: operation(s.revokeToken, ({ body }, ctx) => credentials().revoke(ctx.saasId, body.refresh_token)),
});
