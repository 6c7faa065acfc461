/**
 * Metering, the Pricing API's hot path (docs/decisions.md, decision 13), through the local HTTP API against
 * DynamoDB Local, the service in a process of its own: updates per second and per core (the service's CPU time
 * per update), for updates spread over timestamps (cold: one store request each) and for one timestamp of one
 * tenant's unit at once (hot: spread over the write shards); store requests per update, counted in this
 * process; and the read cost of a month and of a week of a unit, and of a tenant's month.
 *   npm run bench -- metering
 */
import { SignedClient } from '../client/signed-fetch.js';
import { batchPut } from '../shared/store/batch.js';
import { dynamo, tableName } from '../shared/wiring.js';
import { ENTITY, pricingKeys } from '../shared/store/keys.js';
import { startHarness } from '../dev-support/harness.js';
import { expectStatus, startBenchDynamo } from './fixtures.js';
import { measureThroughput, startServiceProcess } from './service-process.js';
import { ms, sample, summarize, writeResults } from './support.js';

const CLIENTS = 8;
const UPDATES = 1500;
const COUNTED = 200;
/** A month of a unit as the read figures load it: one count every 5 minutes, for two units. */
const STEP_SECONDS = 300;
const MONTH = '2026-01';
const MONTH_START = Date.UTC(2026, 0, 1) / 1000;

const dynamoLocal = await startBenchDynamo();
const h = await startHarness();
const service = await startServiceProcess();
try {
  const { client: setup, ...credentials } = await h.newSaas();
  const tenant = expectStatus(
    await setup.post<{ id: string }>('/tenants', { name: 'Metered', attributes: {}, back_office_staff_email: 'm@bench.test' }),
    201,
    'tenant',
  );
  const local = new SignedClient(setup.baseUrl.replace(/\/v1\/auth$/, '/v1/pricing'), credentials);
  for (const unit_name of ['calls', 'storage']) {
    expectStatus(await local.post('/metering/units', { unit_name, display_name: unit_name, description: '' }), 201, `metering unit ${unit_name}`);
  }
  const remote = new SignedClient(service.baseUrl.replace(/\/v1\/auth$/, '/v1/pricing'), credentials);
  const base = `/metering/tenants/${tenant.id}/units/calls`;
  let next = MONTH_START + 40 * 86_400;
  const cold = async () => expectStatus(await remote.put(`${base}/timestamp/${next++}`, { method: 'add', count: 1 }), 200, 'cold update');
  const hotTimestamp = MONTH_START + 50 * 86_400;
  const hot = async () => expectStatus(await remote.put(`${base}/timestamp/${hotTimestamp}`, { method: 'add', count: 1 }), 200, 'hot update');

  await sample(50, cold);
  const coldFigures = await measureThroughput(service, dynamoLocal.pid, CLIENTS, UPDATES, cold);
  const hotFigures = await measureThroughput(service, dynamoLocal.pid, CLIENTS, UPDATES, hot);
  const total = (
    await remote.get<{ counts: { count: number }[] }>(`${base}/date-period?start_timestamp=${hotTimestamp}&end_timestamp=${hotTimestamp}`)
  ).body.counts[0]?.count;
  if (total !== UPDATES) throw new Error(`the hot timestamp holds ${total}, not ${UPDATES}: an update was lost`);

  // Store requests per update, counted around this process's own API (the same handlers).
  let counted: string[] | undefined;
  dynamo().intercept((command, nextStep) => {
    counted?.push(command.operation);
    return nextStep();
  });
  const countRequests = async (clients: number, call: () => Promise<unknown>) => {
    counted = [];
    let remaining = COUNTED;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (remaining-- > 0) await call();
      }),
    );
    const perUpdate = counted.length / COUNTED;
    const kinds = [...new Set(counted)]
      .map((kind) => `${kind} ${((counted ?? []).filter((k) => k === kind).length / COUNTED).toFixed(2)}`)
      .join(', ');
    counted = undefined;
    return { perUpdate, kinds };
  };
  let localNext = MONTH_START + 45 * 86_400;
  const localHot = MONTH_START + 55 * 86_400;
  await local.put(`${base}/timestamp/${localNext++}`, { method: 'add', count: 1 });
  const coldRequests = await countRequests(1, async () => local.put(`${base}/timestamp/${localNext++}`, { method: 'add', count: 1 }));
  const hotRequests = await countRequests(CLIENTS, async () => local.put(`${base}/timestamp/${localHot}`, { method: 'add', count: 1 }));

  // A month of counts: one item per unit and timestamp, written straight into the table.
  const items = ['calls', 'storage'].flatMap((unit) =>
    Array.from({ length: (31 * 86_400) / STEP_SECONDS }, (_, i) => {
      const ts = MONTH_START + i * STEP_SECONDS;
      return {
        ...pricingKeys.meteringCount(credentials.saasId, tenant.id, MONTH, unit, ts, 0),
        entity: ENTITY.meteringCount,
        unit,
        ts,
        shard: 0,
        c: 3,
      };
    }),
  );
  await batchPut(dynamo(), tableName(), items);
  const readCost = async (path: string) => {
    counted = [];
    await local.get(path);
    const requests = counted.filter((k) => k === 'Query').length;
    counted = undefined;
    return { latency: summarize(await sample(10, () => local.get(path), 2)), queries: requests };
  };
  const reads = {
    'a unit, month': await readCost(`${base}/month/${MONTH}`),
    'a unit, 7 days': await readCost(`${base}/date-period?start_timestamp=${MONTH_START}&end_timestamp=${MONTH_START + 7 * 86_400 - 1}`),
    'a tenant, month (2 units)': await readCost(`/metering/tenants/${tenant.id}/units/month/${MONTH}`),
  };
  const perUnit = items.length / 2;

  const line = (name: string, f: typeof coldFigures, requests: { perUpdate: number; kinds: string }) =>
    `${name.padEnd(34)}${f.perSecond.toFixed(0).padStart(10)}${(1000 / f.serviceCpuMs).toFixed(0).padStart(12)}${ms(f.serviceCpuMs).padStart(12)}` +
    `${requests.perUpdate.toFixed(2).padStart(10)}  ${requests.kinds}\n`;
  process.stdout.write(
    `Metering updates through the local HTTP API, DynamoDB Local, ${CLIENTS} clients, ${UPDATES} updates\n` +
      `${'updates'.padEnd(34)}${'per s'.padStart(10)}${'per core-s'.padStart(12)}${'CPU/update'.padStart(12)}${'requests'.padStart(10)}  (store requests by kind, per update)\n` +
      line('cold (a new timestamp each)', coldFigures, coldRequests) +
      line('hot (one timestamp, all clients)', hotFigures, hotRequests) +
      `\nReads (${perUnit} counts per unit in the month; consistent reads, ~100-byte items)\n` +
      Object.entries(reads)
        .map(([name, r]) => `${name.padEnd(34)}${String(r.queries).padStart(3)} query request(s)  p50 ${ms(r.latency.median)}`)
        .join('\n') +
      '\n',
  );
  writeResults('metering', {
    clients: CLIENTS,
    updates: UPDATES,
    cold: { ...coldFigures, perCoreSecond: 1000 / coldFigures.serviceCpuMs, storeRequestsPerUpdate: coldRequests.perUpdate },
    hot: { ...hotFigures, perCoreSecond: 1000 / hotFigures.serviceCpuMs, storeRequestsPerUpdate: hotRequests.perUpdate },
    reads: Object.fromEntries(Object.entries(reads).map(([name, r]) => [name, { queries: r.queries, p50Ms: r.latency.median }])),
    countsPerUnitMonth: perUnit,
  });
} finally {
  await service.stop();
  await h.close();
  await dynamoLocal.stop();
}
