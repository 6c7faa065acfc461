/** The Billing API: the Stripe connection, through the payment-provider port (docs/payment-provider.md). */
import { HttpProblem } from '../../shared/http/errors.js';
import { operation } from '../../shared/schemas/operation.js';
import { billingSchemas as s } from '../../shared/schemas/pricing.js';
import { groupHandler } from '../group-handler.js';
import { paymentProviderService as paymentProvider } from '../../shared/wiring.js';

export const handler = groupHandler('billing', {
  getStripeInfo: operation(s.getStripeInfo, async (_, ctx) => ({
    is_registered: (await paymentProvider().settings(ctx.saasId)).provider === 'stripe',
  })),
  updateStripeInfo: operation(s.updateStripeInfo, ({ body }, ctx) =>
    paymentProvider().configure(ctx.saasId, { provider: 'stripe', secret_key: body.secret_key }),
  ),
  deleteStripeInfo: operation(s.deleteStripeInfo, (_, ctx) => paymentProvider().configure(ctx.saasId, { provider: 'stripe', secret_key: '' })),
  returnBillingInternalServerError: operation(s.returnBillingInternalServerError, async () => {
    throw new HttpProblem(500, 'internal_server_error', 'Internal server error (GET /errors/internal-server-error always answers this)');
  }),
});
