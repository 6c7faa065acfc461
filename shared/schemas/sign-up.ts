import * as Type from '@sinclair/typebox';
import type { OperationSchema } from './operation.js';
import { Email, IssuedToken, OptionalOrEmpty, Uuid } from './common.js';
import { Tenant, TenantProps } from './tenants.js';
import { SaasUser } from './users.js';

const AccessToken = IssuedToken('the signed-in user’s access token');

const RegistrationToken = Type.String({
  minLength: 1,
  maxLength: 4096,
  description: 'the registration token the marketplace handed the buyer',
});

export const signUpSchemas = {
  signUp: { body: Type.Object({ email: Email }), response: SaasUser },
  resendSignUpConfirmationEmail: { body: Type.Object({ email: Email }) },
  signUpWithAwsMarketplace: { body: Type.Object({ email: Email, registration_token: RegistrationToken }), response: SaasUser },
  confirmSignUpWithAwsMarketplace: {
    body: Type.Object({
      tenant_name: OptionalOrEmpty(TenantProps.properties.name),
      access_token: AccessToken,
      registration_token: RegistrationToken,
    }),
    response: Tenant,
  },
  linkAwsMarketplace: { body: Type.Object({ tenant_id: Uuid, access_token: AccessToken, registration_token: RegistrationToken }) },
} satisfies Record<string, OperationSchema>;
