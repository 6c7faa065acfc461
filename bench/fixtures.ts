/**
 * A SaaS as the benchmarks and the proof load it, made through the API: an env, two roles, a tenant, users
 * with passwords (devices not offered, so a sign-in is the SRP exchange and its credentials), and the first
 * of them members of the tenant with a role.
 */
import { randomUUID } from 'node:crypto';
import type { SignedClient, SignedResponse } from '../client/signed-fetch.js';
import { freePort, startDynamoLocal, type Engine } from '../local/engines.js';
import { dynamo } from '../shared/wiring.js';

export const PASSWORD = 'Bench-pass-1';
export const ENV_ID = 1;
export const ROLES = ['admin', 'viewer'] as const;

export interface SeededSaas {
  tenantId: string;
  users: { id: string; email: string }[];
}

/** The body of a 2xx answer, or an error that says which call failed and how. */
export function expectStatus<T>(res: SignedResponse<T>, status: number, what: string): T {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res.body;
}

export async function seedSaas(api: SignedClient, options: { users: number; members: number; emailPrefix?: string }): Promise<SeededSaas> {
  const prefix = options.emailPrefix ?? 'bench';
  expectStatus(await api.put('/sign-in-settings', { device_configuration: { device_remembering: 'no' } }), 200, 'sign-in settings');
  expectStatus(await api.post('/envs', { id: ENV_ID, name: 'prod', display_name: 'Production' }), 201, 'create env');
  for (const role_name of ROLES) expectStatus(await api.post('/roles', { role_name, display_name: role_name }), 201, 'create role');
  const tenant = expectStatus(
    await api.post<{ id: string }>('/tenants', { name: 'Bench', attributes: {}, back_office_staff_email: 'ops@bench.test' }),
    201,
    'create tenant',
  );
  const run = randomUUID().slice(0, 8);
  const users: SeededSaas['users'] = [];
  for (let i = 0; i < options.users; i++) {
    const email = `${prefix}-${String(i).padStart(5, '0')}-${run}@bench.test`;
    users.push(expectStatus(await api.post<{ id: string; email: string }>('/users', { email, password: PASSWORD }), 201, 'create user'));
  }
  for (const user of users.slice(0, options.members)) {
    expectStatus(await api.post(`/tenants/${tenant.id}/users`, { email: user.email, attributes: {} }), 201, 'join tenant');
    expectStatus(await api.post(`/tenants/${tenant.id}/users/${user.id}/envs/${ENV_ID}/roles`, { role_names: ['admin'] }), 201, 'add role');
  }
  return { tenantId: tenant.id, users };
}

/**
 * DynamoDB Local for one benchmark (whose JVM's CPU time it can then read), made the engine startHarness()
 * uses. Benchmarks send no mail, so no SES stand-in is started: the address given for it is never called.
 */
export async function startBenchDynamo(): Promise<Engine> {
  // Under `nice -n 19` on a busy machine the JVM may take minutes to start.
  const engine = await startDynamoLocal({ port: await freePort(), sharedDb: false, readyTimeoutMs: 300_000 });
  Object.assign(process.env, { TEST_DYNAMODB_URL: engine.url, TEST_SES_URL: 'http://127.0.0.1:9' });
  // A failure outside the awaited chain must not leave DynamoDB Local's JVM behind.
  process.once('uncaughtException', (error) => {
    process.stderr.write(`${error.stack ?? String(error)}\n`);
    void engine.stop().finally(() => process.exit(1));
  });
  return engine;
}

/**
 * A benchmark runs DynamoDB Local under `nice -n 19` on a machine others share: one request may wait longer
 * than the store client's 5 s attempt timeout, and its retry then meets its own first write. Benchmarks
 * measure, they do not test timeouts: give each attempt a minute.
 */
export function patientStoreClient(): void {
  const client = dynamo() as unknown as { service: { attemptTimeoutMs: number } };
  client.service.attemptTimeoutMs = 60_000;
}
