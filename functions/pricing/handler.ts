/**
 * The Pricing API's catalogue group: pricing units, menus, plans, metering units, tax rates, the Stripe link; and the
 * Communication API's feedback portal (communication.ts).
 */
import { HttpProblem } from '../../shared/http/errors.js';
import { operation } from '../../shared/schemas/operation.js';
import { pricingSchemas as s } from '../../shared/schemas/pricing.js';
import { communicationOperations } from './communication.js';
import { catalogueService as catalogue, groupHandler, paymentProviderService as paymentProvider } from '../../shared/wiring.js';
import { unmatchedPage } from '../../web/login/unmatched-page.js';

export const handler = groupHandler('pricing', unmatchedPage, {
  getPricingUnits: operation(s.getPricingUnits, (_, ctx) => catalogue().units(ctx.saasId)),
  createPricingUnit: operation(s.createPricingUnit, ({ body }, ctx) => catalogue().createUnit(ctx.saasId, body)),
  getPricingUnit: operation(s.getPricingUnit, ({ params }, ctx) => catalogue().unit(ctx.saasId, params.pricing_unit_id)),
  deletePricingUnit: operation(s.deletePricingUnit, ({ params }, ctx) => catalogue().deleteUnit(ctx.saasId, params.pricing_unit_id)),
  updatePricingUnit: operation(s.updatePricingUnit, ({ params, body }, ctx) => catalogue().updateUnit(ctx.saasId, params.pricing_unit_id, body)),
  getPricingMenus: operation(s.getPricingMenus, (_, ctx) => catalogue().menus(ctx.saasId)),
  createPricingMenu: operation(s.createPricingMenu, ({ body }, ctx) => catalogue().createMenu(ctx.saasId, body)),
  getPricingMenu: operation(s.getPricingMenu, ({ params }, ctx) => catalogue().menu(ctx.saasId, params.menu_id)),
  deletePricingMenu: operation(s.deletePricingMenu, ({ params }, ctx) => catalogue().deleteMenu(ctx.saasId, params.menu_id)),
  updatePricingMenu: operation(s.updatePricingMenu, ({ params, body }, ctx) => catalogue().updateMenu(ctx.saasId, params.menu_id, body)),
  getPricingPlans: operation(s.getPricingPlans, (_, ctx) => catalogue().plans(ctx.saasId)),
  createPricingPlan: operation(s.createPricingPlan, ({ body }, ctx) => catalogue().createPlan(ctx.saasId, body)),
  getPricingPlan: operation(s.getPricingPlan, ({ params }, ctx) => catalogue().plan(ctx.saasId, params.plan_id)),
  deletePricingPlan: operation(s.deletePricingPlan, ({ params }, ctx) => catalogue().deletePlan(ctx.saasId, params.plan_id)),
  updatePricingPlan: operation(s.updatePricingPlan, ({ params, body }, ctx) => catalogue().updatePlan(ctx.saasId, params.plan_id, body)),
  updatePricingPlansUsed: operation(s.updatePricingPlansUsed, ({ body }, ctx) => catalogue().markUsed(ctx.saasId, body.plan_ids)),
  // The payment-provider port: Connect gives every tenant a customer; this service keeps its plans itself.
  linkPlanToStripe: operation(s.linkPlanToStripe, (_, ctx) => paymentProvider().connect(ctx.saasId)),
  deleteStripePlan: operation(s.deleteStripePlan, (_, ctx) => paymentProvider().disconnect(ctx.saasId)),
  deleteAllPlansAndMenusAndUnitsAndMetersAndTaxRates: operation(s.deleteAllPlansAndMenusAndUnitsAndMetersAndTaxRates, (_, ctx) =>
    catalogue().deleteAll(ctx.saasId),
  ),
  createTaxRate: operation(s.createTaxRate, ({ body }, ctx) => catalogue().createTaxRate(ctx.saasId, body)),
  getTaxRates: operation(s.getTaxRates, (_, ctx) => catalogue().taxRates(ctx.saasId)),
  updateTaxRate: operation(s.updateTaxRate, ({ params, body }, ctx) => catalogue().updateTaxRate(ctx.saasId, params.tax_rate_id, body)),
  createMeteringUnit: operation(s.createMeteringUnit, ({ body }, ctx) => catalogue().createMeter(ctx.saasId, body)),
  getMeteringUnits: operation(s.getMeteringUnits, (_, ctx) => catalogue().meters(ctx.saasId)),
  updateMeteringUnitByID: operation(s.updateMeteringUnitByID, ({ params, body }, ctx) =>
    catalogue().updateMeter(ctx.saasId, params.metering_unit_id, body),
  ),
  deleteMeteringUnitByID: operation(s.deleteMeteringUnitByID, ({ params }, ctx) => catalogue().deleteMeter(ctx.saasId, params.metering_unit_id)),
  returnPricingInternalServerError: operation(s.returnPricingInternalServerError, async () => {
    throw new HttpProblem(500, 'internal_server_error', 'Internal server error (GET /errors/internal-server-error always answers this)');
  }),
  ...communicationOperations,
});
