/** Sign Up, Resend and the marketplace operations of the sign-in group. */
import { operation } from '../../shared/schemas/operation.js';
import { signUpSchemas as s } from '../../shared/schemas/sign-up.js';
import { marketplaceService as marketplace, signUpService as signUp } from '../../shared/wiring.js';

export const signUpOperations = {
  signUp: operation(s.signUp, ({ body }, ctx) => signUp().signUp(ctx.saasId, body.email)),
  resendSignUpConfirmationEmail: operation(s.resendSignUpConfirmationEmail, ({ body }, ctx) => signUp().resend(ctx.saasId, body.email)),
  signUpWithAwsMarketplace: operation(s.signUpWithAwsMarketplace, ({ body }, ctx) =>
    marketplace().signUp(ctx.saasId, body.email, body.registration_token),
  ),
  confirmSignUpWithAwsMarketplace: operation(s.confirmSignUpWithAwsMarketplace, ({ body }, ctx) => marketplace().confirmSignUp(ctx.saasId, body)),
  linkAwsMarketplace: operation(s.linkAwsMarketplace, ({ body }, ctx) => marketplace().link(ctx.saasId, body)),
};
