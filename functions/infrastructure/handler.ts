/** The infrastructure group: single-tenant infrastructure settings. */
import { operation } from '../../shared/schemas/operation.js';
import { infrastructureSchemas as s } from '../../shared/schemas/infrastructure.js';
import { groupHandler } from '../group-handler.js';
import { infrastructureService } from '../../shared/wiring.js';

export const handler = groupHandler('infrastructure', {
  getSingleTenantSettings: operation(s.getSingleTenantSettings, (_, ctx) => infrastructureService().read(ctx.saasId)),
  getCloudFormationLaunchStackLinkForSingleTenant: operation(s.getCloudFormationLaunchStackLinkForSingleTenant, (_, ctx) =>
    infrastructureService().launchStackLink(ctx.saasId),
  ),
  updateSingleTenantSettings: operation(s.updateSingleTenantSettings, ({ body }, ctx) => infrastructureService().update(ctx.saasId, body)),
});
