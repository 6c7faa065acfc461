/**
 * Management API operations through the local HTTP API against DynamoDB Local, the service in a process of
 * its own (bench/service-process.ts): latency of each with one client (p50, p99), then requests per second
 * with several clients at once and the service's CPU time per request.
 *   npm run bench -- management
 */
import { SignedClient } from '../client/signed-fetch.js';
import { startHarness } from '../dev-support/harness.js';
import { expectStatus, PASSWORD, seedSaas, startBenchDynamo } from './fixtures.js';
import { measureThroughput, startServiceProcess, type Throughput } from './service-process.js';
import { ms, sample, summarize, writeResults } from './support.js';

const USERS = 100;
const MEMBERS = 20;
const SEQUENTIAL = 200;
const CLIENTS = 8;
const CONCURRENT = 400;

const dynamoLocal = await startBenchDynamo();
const h = await startHarness();
const service = await startServiceProcess();
try {
  const { client: setup, ...credentials } = await h.newSaas();
  const seeded = await seedSaas(setup, { users: USERS, members: MEMBERS, emailPrefix: 'mgmt' });
  const api = new SignedClient(service.baseUrl, credentials);
  let created = 0;
  const operations: Record<string, () => Promise<unknown>> = {
    'get tenant': async () => expectStatus(await api.get(`/tenants/${seeded.tenantId}`), 200, 'get tenant'),
    'create SaaS user': async () =>
      expectStatus(await api.post('/users', { email: `created-${created++}-${process.pid}@bench.test`, password: PASSWORD }), 201, 'create user'),
    'search users (prefix, 20)': async () => expectStatus(await api.get('/users/search?email=mgmt-&limit=20'), 200, 'search users'),
    [`get tenant users (${MEMBERS})`]: async () => expectStatus(await api.get(`/tenants/${seeded.tenantId}/users`), 200, 'get tenant users'),
  };

  const figures: Record<string, Throughput & { latency: ReturnType<typeof summarize> }> = {};
  process.stdout.write(
    `Management API through the local HTTP API, DynamoDB Local; latency with one client (n = ${SEQUENTIAL}), throughput with ${CLIENTS} clients\n` +
      `${'operation'.padEnd(28)}${'p50'.padStart(11)}${'p99'.padStart(12)}${'requests/s'.padStart(12)}${'service CPU'.padStart(14)}${'DynamoDB Local CPU'.padStart(20)}\n`,
  );
  for (const [name, call] of Object.entries(operations)) {
    const latency = summarize(await sample(SEQUENTIAL, call));
    figures[name] = { latency, ...(await measureThroughput(service, dynamoLocal.pid, CLIENTS, CONCURRENT, call)) };
    const f = figures[name];
    process.stdout.write(
      `${name.padEnd(28)}${ms(latency.median).padStart(11)}${ms(latency.p99).padStart(12)}${f.perSecond.toFixed(1).padStart(12)}` +
        `${ms(f.serviceCpuMs).padStart(14)}${(f.dynamoLocalCpuMs === undefined ? 'n/a' : ms(f.dynamoLocalCpuMs)).padStart(20)}\n`,
    );
  }
  writeResults('management-http', { users: USERS, members: MEMBERS, clients: CLIENTS, operations: figures });
} finally {
  await service.stop();
  await h.close();
  await dynamoLocal.stop();
}
