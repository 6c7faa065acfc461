import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { OperationSchema } from './operation.js';
import { AccessToken, EnvId, PathParam } from './common.js';
import { EnvWithRoles } from './tenant-users.js';

export const InvitationStatus = Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('expired')], {
  description: 'pending, accepted or expired',
});
export type InvitationStatus = Static<typeof InvitationStatus>;

export const Invitation = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    envs: Type.Array(EnvWithRoles),
    expired_at: Type.Integer({ description: 'Unix seconds from which the invitation can no longer be accepted' }),
    status: InvitationStatus,
    invitation_url: Type.String({ description: 'the link mailed to the invitee' }),
  },
  { $id: 'Invitation' },
);
export type Invitation = Static<typeof Invitation>;

export const NewInvitation = Type.Object({
  email: Type.String({ maxLength: 254 }),
  access_token: AccessToken,
  envs: Type.Array(Type.Object({ id: EnvId, role_names: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 80 }) }), {
    maxItems: 80,
  }),
});
export type NewInvitation = Static<typeof NewInvitation>;

/** Either the access token of the invited user, or e-mail and password to create them. */
export const InvitationAcceptance = Type.Object({
  access_token: Type.Optional(Type.Union([AccessToken, Type.Null()], { description: "the invited user's access token, or null" })),
  email: Type.Optional(Type.Union([Type.String({ maxLength: 254 }), Type.Null()], { description: 'an e-mail address or null' })),
  password: Type.Optional(Type.Union([Type.String({ maxLength: 256 }), Type.Null()], { description: 'a password or null' })),
});
export type InvitationAcceptance = Static<typeof InvitationAcceptance>;

const TenantIdParam = Type.Object({ tenant_id: PathParam });
const InvitationParams = Type.Object({ tenant_id: PathParam, invitation_id: PathParam });
const InvitationIdParam = Type.Object({ invitation_id: PathParam });

export const invitationSchemas = {
  getTenantInvitations: { params: TenantIdParam, response: Type.Object({ invitations: Type.Array(Invitation) }) },
  createTenantInvitation: { params: TenantIdParam, body: NewInvitation, response: Invitation },
  getTenantInvitation: { params: InvitationParams, response: Invitation },
  deleteTenantInvitation: { params: InvitationParams },
  validateInvitation: { params: InvitationIdParam, body: InvitationAcceptance },
  getInvitationValidity: { params: InvitationIdParam, response: Type.Object({ is_valid: Type.Boolean() }) },
} satisfies Record<string, OperationSchema>;
