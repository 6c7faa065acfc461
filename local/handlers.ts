/** The very handlers the Lambdas run, one per group and one per entry function, for the local server. */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { GroupHandler } from '../shared/http/pipeline.js';
import type { EntryFunction, Group } from '../shared/routes.js';
import { handler as configuration } from '../functions/configuration/handler.js';
import { handler as definitions } from '../functions/definitions/handler.js';
import { handler as infrastructure } from '../functions/infrastructure/handler.js';
import { handler as invitations } from '../functions/invitations/handler.js';
import { handler as publicRoutes } from '../functions/public/handler.js';
import { handler as saasUsers } from '../functions/saas-users/handler.js';
import { handler as signIn } from '../functions/sign-in/handler.js';
import { handler as tenantUsers } from '../functions/tenant-users/handler.js';
import { handler as tenants } from '../functions/tenants/handler.js';
import { handler as pricing } from '../functions/pricing/handler.js';
import { handler as metering } from '../functions/metering/handler.js';
import { handler as billing } from '../functions/billing/handler.js';
import { handler as apilog } from '../functions/apilog/handler.js';
import { handler as login } from '../functions/login/handler.js';
import { handler as saml } from '../functions/saml/handler.js';
import { handler as operatorConsole } from '../functions/console/handler.js';

export const GROUP_HANDLERS: Record<Group, GroupHandler> = {
  configuration,
  'saas-users': saasUsers,
  'tenant-users': tenantUsers,
  definitions,
  tenants,
  invitations,
  'sign-in': signIn,
  infrastructure,
  public: publicRoutes,
  pricing,
  metering,
  billing,
  apilog,
};

export type EntryHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** The browser-facing apps' functions (ENTRY_FUNCTIONS, shared/routes.ts), through their functions/<name>/handler.ts. */
export const ENTRY_HANDLERS: Record<EntryFunction, EntryHandler> = { login, saml, console: operatorConsole };
