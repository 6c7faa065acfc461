/**
 * The configuration group: basic configuration, templates, pages, callback, external provider, sign-in settings; and
 * the Integration API's EventBridge settings and events (integration.ts).
 */
import { operation } from '../../shared/schemas/operation.js';
import { HttpProblem } from '../../shared/http/errors.js';
import { integrationOperations } from './integration.js';
import { configurationSchemas as s } from '../../shared/schemas/configuration.js';
import { loginThemeSchemas as theme } from '../../shared/schemas/login-theme.js';
import { overviewSchemas as overview } from '../../shared/schemas/overview.js';
import { groupHandler } from '../group-handler.js';
import {
  configurationService as configuration,
  loginThemeService as loginTheme,
  mailBacklogService as mailBacklog,
  paymentProviderService as paymentProvider,
} from '../../shared/wiring.js';

export const handler = groupHandler('configuration', {
  createTenantAndPricing: operation(s.createTenantAndPricing, (_, ctx) => paymentProvider().connect(ctx.saasId)),
  deleteStripeTenantAndPricing: operation(s.deleteStripeTenantAndPricing, (_, ctx) => paymentProvider().disconnect(ctx.saasId)),
  getPaymentProvider: operation(s.getPaymentProvider, (_, ctx) => paymentProvider().settings(ctx.saasId)),
  updatePaymentProvider: operation(s.updatePaymentProvider, ({ body }, ctx) => paymentProvider().configure(ctx.saasId, body)),
  getLoginTheme: operation(theme.getLoginTheme, (_, ctx) => loginTheme().theme(ctx.saasId)),
  updateLoginTheme: operation(theme.updateLoginTheme, ({ body }, ctx) => loginTheme().update(ctx.saasId, body)),
  returnInternalServerError: operation(s.returnInternalServerError, async () => {
    throw new HttpProblem(500, 'internal_server_error', 'Internal server error (GET /errors/internal-server-error always answers this)');
  }),
  getBasicInfo: operation(s.getBasicInfo, (_, ctx) => configuration().basicInfo(ctx.saasId)),
  updateBasicInfo: operation(s.updateBasicInfo, ({ body }, ctx) => configuration().updateBasicInfo(ctx.saasId, body)),
  findNotificationMessages: operation(s.findNotificationMessages, (_, ctx) => configuration().templates(ctx.saasId)),
  getMailBacklog: operation(overview.getMailBacklog, (_, ctx) => mailBacklog().backlog(ctx.saasId)),
  updateNotificationMessages: operation(s.updateNotificationMessages, ({ body }, ctx) => configuration().updateTemplates(ctx.saasId, body)),
  getCustomizePages: operation(s.getCustomizePages, (_, ctx) => configuration().customizePages(ctx.saasId)),
  updateCustomizePages: operation(s.updateCustomizePages, ({ body }, ctx) => configuration().updateCustomizePages(ctx.saasId, body)),
  getCustomizePageSettings: operation(s.getCustomizePageSettings, (_, ctx) => configuration().customizePageSettings(ctx.saasId)),
  updateCustomizePageSettings: operation(s.updateCustomizePageSettings, ({ body }, ctx) =>
    configuration().updateCustomizePageSettings(ctx.saasId, body),
  ),
  getAuthInfo: operation(s.getAuthInfo, (_, ctx) => configuration().authInfo(ctx.saasId)),
  updateAuthInfo: operation(s.updateAuthInfo, ({ body }, ctx) => configuration().updateAuthInfo(ctx.saasId, body)),
  getIdentityProviders: operation(s.getIdentityProviders, (_, ctx) => configuration().identityProviders(ctx.saasId)),
  updateIdentityProvider: operation(s.updateIdentityProvider, ({ body }, ctx) =>
    configuration().updateIdentityProvider(ctx.saasId, body.identity_provider_props ?? null),
  ),
  getSignInSettings: operation(s.getSignInSettings, (_, ctx) => configuration().signInSettings(ctx.saasId)),
  updateSignInSettings: operation(s.updateSignInSettings, ({ body }, ctx) => configuration().updateSignInSettings(ctx.saasId, body)),
  ...integrationOperations,
});
