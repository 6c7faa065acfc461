/**
 * The Pricing API's catalogue group: pricing units, menus, plans, metering units, tax rates, the Stripe link; and the
 * Communication API's feedback portal (communication.ts) and the Analysis API (analysis.ts).
 */
import { HttpProblem } from '../../shared/http/errors.js';
import { operation } from '../../shared/schemas/operation.js';
import { pricingSchemas as s } from '../../shared/schemas/pricing.js';
import { analysisOperations } from './analysis.js';
import { communicationOperations } from './communication.js';
import { groupHandler } from '../group-handler.js';
import { catalogueService as catalogue, paymentProviderService as paymentProvider } from '../../shared/wiring.js';

export const handler = groupHandler('pricing', {
  getPricingUnits: operation(s.getPricingUnits, (_, ctx) => catalogue().list(ctx.saasId, 'unit')),
  createPricingUnit: operation(s.createPricingUnit, ({ body }, ctx) => catalogue().create(ctx.saasId, 'unit', body)),
  getPricingUnit: operation(s.getPricingUnit, ({ params }, ctx) => catalogue().get(ctx.saasId, 'unit', params.pricing_unit_id)),
  deletePricingUnit: operation(s.deletePricingUnit, ({ params }, ctx) => catalogue().delete(ctx.saasId, 'unit', params.pricing_unit_id)),
  updatePricingUnit: operation(s.updatePricingUnit, ({ params, body }, ctx) => catalogue().update(ctx.saasId, 'unit', params.pricing_unit_id, body)),
  getPricingMenus: operation(s.getPricingMenus, (_, ctx) => catalogue().list(ctx.saasId, 'menu')),
  createPricingMenu: operation(s.createPricingMenu, ({ body }, ctx) => catalogue().create(ctx.saasId, 'menu', body)),
  getPricingMenu: operation(s.getPricingMenu, ({ params }, ctx) => catalogue().get(ctx.saasId, 'menu', params.menu_id)),
  deletePricingMenu: operation(s.deletePricingMenu, ({ params }, ctx) => catalogue().delete(ctx.saasId, 'menu', params.menu_id)),
  updatePricingMenu: operation(s.updatePricingMenu, ({ params, body }, ctx) => catalogue().update(ctx.saasId, 'menu', params.menu_id, body)),
  getPricingPlans: operation(s.getPricingPlans, (_, ctx) => catalogue().list(ctx.saasId, 'plan')),
  createPricingPlan: operation(s.createPricingPlan, ({ body }, ctx) => catalogue().create(ctx.saasId, 'plan', body)),
  getPricingPlan: operation(s.getPricingPlan, ({ params }, ctx) => catalogue().get(ctx.saasId, 'plan', params.plan_id)),
  deletePricingPlan: operation(s.deletePricingPlan, ({ params }, ctx) => catalogue().delete(ctx.saasId, 'plan', params.plan_id)),
  updatePricingPlan: operation(s.updatePricingPlan, ({ params, body }, ctx) => catalogue().update(ctx.saasId, 'plan', params.plan_id, body)),
  updatePricingPlansUsed: operation(s.updatePricingPlansUsed, ({ body }, ctx) => catalogue().markUsed(ctx.saasId, body.plan_ids)),
  // The payment-provider port: Connect gives every tenant a customer; this service keeps its plans itself.
  linkPlanToStripe: operation(s.linkPlanToStripe, (_, ctx) => paymentProvider().connect(ctx.saasId)),
  deleteStripePlan: operation(s.deleteStripePlan, (_, ctx) => paymentProvider().disconnect(ctx.saasId)),
  deleteAllPlansAndMenusAndUnitsAndMetersAndTaxRates: operation(s.deleteAllPlansAndMenusAndUnitsAndMetersAndTaxRates, (_, ctx) =>
    catalogue().deleteAll(ctx.saasId),
  ),
  createTaxRate: operation(s.createTaxRate, ({ body }, ctx) => catalogue().create(ctx.saasId, 'taxRate', body)),
  getTaxRates: operation(s.getTaxRates, (_, ctx) => catalogue().list(ctx.saasId, 'taxRate')),
  updateTaxRate: operation(s.updateTaxRate, ({ params, body }, ctx) => catalogue().update(ctx.saasId, 'taxRate', params.tax_rate_id, body)),
  createMeteringUnit: operation(s.createMeteringUnit, ({ body }, ctx) => catalogue().create(ctx.saasId, 'meter', body)),
  getMeteringUnits: operation(s.getMeteringUnits, (_, ctx) => catalogue().list(ctx.saasId, 'meter')),
  updateMeteringUnitByID: operation(s.updateMeteringUnitByID, ({ params, body }, ctx) =>
    catalogue().update(ctx.saasId, 'meter', params.metering_unit_id, body),
  ),
  deleteMeteringUnitByID: operation(s.deleteMeteringUnitByID, ({ params }, ctx) => catalogue().delete(ctx.saasId, 'meter', params.metering_unit_id)),
  returnPricingInternalServerError: operation(s.returnPricingInternalServerError, async () => {
    throw new HttpProblem(500, 'internal_server_error', 'Internal server error (GET /errors/internal-server-error always answers this)');
  }),
  ...communicationOperations,
  ...analysisOperations,
});
