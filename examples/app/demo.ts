/**
 * What a newcomer needs to try the example app at once, made through the service's own API: the tenant
 * attribute login_domain, a tenant that has one, a demo user who belongs to it with a role, and an API key
 * for the app that holds only tenant:read and sign-in. `npm start` seeds it on first start; the tests build
 * their worlds with the same calls.
 */
import { randomInt } from 'node:crypto';
import { SignedClient, type SignedResponse } from '../../client/signed-fetch.js';

export const DEMO_ENV = { id: 1, name: 'prod', display_name: 'Production' };
/** The env the official SaaSus sample applications assign roles in. */
export const SAMPLES_ENV = { id: 3, name: 'production', display_name: '本番環境' };
export const DEMO_ROLE = { role_name: 'admin', display_name: 'Administrator' };

function expect<T>(response: SignedResponse<T>, what: string, ...statuses: number[]): T {
  if (!statuses.includes(response.status)) throw new Error(`${what}: the service answered ${response.status} ${response.text}`);
  return response.body;
}

/** A conflict means it is there already, which is all a setup wants. */
const createdOrExists = (response: SignedResponse, what: string) => {
  const type = (response.body as { type?: string } | undefined)?.type ?? '';
  if (response.status !== 201 && !type.endsWith('_already_exists')) expect(response, what, 201);
};

/** Setup calls, made with a key that may write definitions, tenants and users. */
export class ServiceSetup {
  constructor(readonly admin: SignedClient) {}

  /** The tenant attribute login_domain (the spec's ID login, docs/decisions.md), an env and a role to show. */
  async ensureDefinitions(): Promise<void> {
    createdOrExists(
      await this.admin.post('/tenant-attributes', { attribute_name: 'login_domain', display_name: 'Login domain', attribute_type: 'string' }),
      'the login_domain attribute',
    );
    createdOrExists(await this.admin.post('/envs', DEMO_ENV), 'the demo env');
    createdOrExists(await this.admin.post('/envs', SAMPLES_ENV), "the samples' env");
    createdOrExists(await this.admin.post('/roles', DEMO_ROLE), 'the demo role');
  }

  async createTenant(name: string, loginDomain?: string): Promise<string> {
    const body = { name, attributes: loginDomain === undefined ? {} : { login_domain: loginDomain }, back_office_staff_email: 'staff@example.com' };
    return expect(await this.admin.post<{ id: string }>('/tenants', body), `tenant ${name}`, 201).id;
  }

  async createUser(email: string, password: string): Promise<string> {
    return expect(await this.admin.post<{ id: string }>('/users', { email, password }), `user ${email}`, 201).id;
  }

  /** The user joins the tenant and holds the demo role in the demo env. */
  async addMember(tenantId: string, userId: string, email: string): Promise<void> {
    expect(await this.admin.post(`/tenants/${tenantId}/users`, { email, attributes: {} }), `membership of ${email}`, 201);
    expect(
      await this.admin.post(`/tenants/${tenantId}/users/${userId}/envs/${DEMO_ENV.id}/roles`, { role_names: [DEMO_ROLE.role_name] }),
      `role of ${email}`,
      201,
    );
  }
}

export interface Demo {
  tenantId: string;
  userId: string;
  email: string;
  /** The part before login_domain: what ID login asks for. */
  username: string;
  /** As seeded; absent once it was found no longer to sign in (changed by hand, say). */
  password?: string;
}

export const DEMO_LOGIN_DOMAIN = '@example.com';
/** The demo user's address: `demo@example.com`. */
export const DEMO_USERNAME = 'demo';
export const DEMO_EMAIL = `${DEMO_USERNAME}${DEMO_LOGIN_DOMAIN}`;

/** A password that meets the default policy (upper, lower, digit, symbol; 8+), easy to read off a terminal. */
export function demoPassword(): string {
  return `Demo-${randomInt(100000, 1000000)}-Pass`;
}

export async function seedDemo(setup: ServiceSetup): Promise<Demo> {
  await setup.ensureDefinitions();
  const tenantId = await setup.createTenant('Demo Tenant', DEMO_LOGIN_DOMAIN);
  const username = DEMO_USERNAME;
  const email = DEMO_EMAIL;
  const password = demoPassword();
  const userId = await setup.createUser(email, password);
  await setup.addMember(tenantId, userId, email);
  return { tenantId, userId, email, username, password };
}

/** The demo SaaS's pricing catalogue: a plan of one menu with a fixed and a usage unit, and a tax rate. */
export const DEMO_METER = 'api_calls';

/**
 * Made through the Pricing API (the admin key's `*` covers it), once: a SaaS that has plans already is left as
 * it is. The plan is marked used and the demo tenant put on it, so the example app shows a plan and usage.
 */
export async function seedPricing(setup: ServiceSetup, tenantId: string): Promise<{ planId: string } | undefined> {
  const pricing = new SignedClient(setup.admin.baseUrl.replace(/\/v1\/auth$/, '/v1/pricing'), setup.admin.credentials);
  const plans = expect(await pricing.get<{ pricing_plans: unknown[] }>('/plans'), 'the plans', 200);
  if (plans.pricing_plans.length > 0) return undefined;
  const unit = async (body: Record<string, unknown>) =>
    expect(await pricing.post<{ id: string }>('/units', body), `unit ${String(body.name)}`, 201).id;
  const common = { description: '', currency: 'JPY' };
  const unitIds = [
    await unit({ ...common, name: 'base_fee', display_name: '基本料金', type: 'fixed', unit_amount: 1000, recurring_interval: 'month' }),
    await unit({
      ...common,
      name: 'api_usage',
      display_name: 'API 呼び出し',
      type: 'usage',
      unit_amount: 1,
      upper_count: 0,
      metering_unit_name: DEMO_METER,
    }),
  ];
  const menu = expect(
    await pricing.post<{ id: string }>('/menus', {
      name: 'standard',
      display_name: 'Standard',
      description: 'base fee and API calls',
      unit_ids: unitIds,
    }),
    'the demo menu',
    201,
  );
  const plan = expect(
    await pricing.post<{ id: string }>('/plans', {
      name: 'standard',
      display_name: 'Standard Plan',
      description: 'the demo plan',
      menu_ids: [menu.id],
    }),
    'the demo plan',
    201,
  );
  expect(
    await pricing.post('/tax-rates', { name: 'jct', display_name: '消費税', percentage: 10, inclusive: false, country: 'JP', description: '' }),
    'the demo tax rate',
    201,
  );
  expect(await pricing.patch('/plans/used', { plan_ids: [plan.id] }), 'marking the demo plan used', 200);
  expect(await setup.admin.put(`/tenants/${tenantId}/plans`, { next_plan_id: plan.id }), "the demo tenant's plan", 200);
  expect(await pricing.put(`/metering/tenants/${tenantId}/units/${DEMO_METER}/now`, { method: 'add', count: 42 }), 'demo usage', 200);
  return { planId: plan.id };
}
