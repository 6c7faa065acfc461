/** The invitations group: invitations to a tenant, their validity, and accepting one. */
import { operation } from '../../shared/schemas/operation.js';
import { invitationSchemas as s } from '../../shared/schemas/invitations.js';
import { groupHandler } from '../group-handler.js';
import { invitationService as invitations } from '../../shared/wiring.js';

export const handler = groupHandler('invitations', {
  getTenantInvitations: operation(s.getTenantInvitations, async ({ params }, ctx) => ({
    invitations: await invitations().list(ctx.saasId, params.tenant_id),
  })),
  createTenantInvitation: operation(s.createTenantInvitation, ({ params, body }, ctx) => invitations().create(ctx.saasId, params.tenant_id, body)),
  getTenantInvitation: operation(s.getTenantInvitation, ({ params }, ctx) => invitations().get(ctx.saasId, params.tenant_id, params.invitation_id)),
  deleteTenantInvitation: operation(s.deleteTenantInvitation, ({ params }, ctx) =>
    invitations().delete(ctx.saasId, params.tenant_id, params.invitation_id),
  ),
  validateInvitation: operation(s.validateInvitation, ({ params, body }, ctx) => invitations().accept(ctx.saasId, params.invitation_id, body)),
  getInvitationValidity: operation(s.getInvitationValidity, ({ params }, ctx) => invitations().validity(ctx.saasId, params.invitation_id)),
});
