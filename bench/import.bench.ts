/**
 * Import (issue 39): 100 000 users with bcrypt hashes, each with a tenant membership, imported into a fresh SaaS
 * on DynamoDB Local as `npm run admin -- import FILE` does it (the job of shared/domain/migration/imports.ts,
 * run in this process). Target: at most 5 minutes on this 2-core machine. Then the same file again, which
 * must change nothing (every row unchanged), and its time. Prints users/s, the store's requests and items written
 * per user (a user here comes with a membership and a hundredth of a tenant), and the CPU of the importer and of
 * DynamoDB Local's JVM, which does most of the work.
 *   npm run bench -- import
 *   IMPORT_USERS=10000 npm run bench -- import      fewer users
 *   IMPORT_MEMBERSHIPS=0 npm run bench -- import     the users alone (the target's own words), no membership rows
 */
import os from 'node:os';
import { dynamo, importService } from '../shared/wiring.js';
import type { StoreCommand } from '../shared/store/dynamo-client.js';
import { startHarness } from '../dev-support/harness.js';
import { patientStoreClient, startBenchDynamo } from './fixtures.js';
import { processCpuMs } from './service-process.js';
import { writeResults } from './support.js';

const USERS = Number(process.env.IMPORT_USERS ?? 100_000);
const MEMBERSHIPS = process.env.IMPORT_MEMBERSHIPS === '0' ? 0 : USERS;
const TENANTS = 1000;
const TARGET_SECONDS = 300;
/** crypt_blowfish's vector ("U*U", cost 5): the import checks a hash's form, never its cost, so any cost times the same. */
const BCRYPT = '$2b$10$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';

function file(): string {
  const rows: string[] = [
    JSON.stringify({ type: 'role', role_name: 'member', display_name: 'Member' }),
    JSON.stringify({ type: 'env', id: 1, name: 'production', display_name: 'Production' }),
  ];
  for (let t = 0; t < TENANTS; t++) rows.push(JSON.stringify({ type: 'tenant', external_id: `t${t}`, name: `Tenant ${t}` }));
  for (let i = 0; i < USERS; i++) {
    rows.push(
      JSON.stringify({ type: 'user', external_id: `u${i}`, email: `u${i}@import.bench`, password_hash: { algorithm: 'bcrypt', hash: BCRYPT } }),
    );
  }
  for (let i = 0; i < MEMBERSHIPS; i++) {
    rows.push(JSON.stringify({ type: 'membership', user: `u${i}`, tenant: `t${i % TENANTS}`, envs: [{ id: 1, role_names: ['member'] }] }));
  }
  return rows.join('\n');
}

const say = (text: string) => process.stdout.write(text);

/** The store's requests by kind, and the items they write (a transaction's condition checks write none). */
const store = { reads: 0, writeRequests: 0, itemsWritten: 0 };
const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan']);
function countRequest(command: StoreCommand): void {
  const input = command.input as { TransactItems?: object[]; RequestItems?: Record<string, unknown[]> };
  if (READS.has(command.operation)) store.reads++;
  else {
    store.writeRequests++;
    if (input.TransactItems) store.itemsWritten += input.TransactItems.filter((item) => !('ConditionCheck' in item)).length;
    else if (command.operation === 'BatchWriteItem') store.itemsWritten += Object.values(input.RequestItems ?? {}).flat().length;
    else store.itemsWritten++;
  }
}

const dynamoLocal = await startBenchDynamo();
const h = await startHarness();
patientStoreClient();
dynamo().intercept((command, next) => {
  countRequest(command);
  return next();
});
const loadBefore = os.loadavg();
try {
  const { saasId } = await h.newSaas();
  const jsonl = file();
  const imports = importService();
  const timed = async (label: string) => {
    const started = Date.now();
    const cpu = process.cpuUsage();
    const [engineCpu, counted] = [processCpuMs(dynamoLocal.pid), { ...store }];
    const job = await imports.start(saasId, jsonl);
    let lastTenth = 0;
    await imports.run(saasId, job.job_id, {
      onProgress: (done, total) => {
        if (Math.floor((10 * done) / total) > lastTenth) {
          lastTenth = Math.floor((10 * done) / total);
          say(`  ${label}: ${done}/${total} lines, ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
        }
      },
    });
    const seconds = (Date.now() - started) / 1000;
    const report = await imports.get(saasId, job.job_id);
    if (report.failed > 0) say(`  ${report.failed} rows failed, the first: ${JSON.stringify(report.errors?.slice(0, 3))}\n`);
    const used = process.cpuUsage(cpu);
    const perUser = (n: number) => Number((n / USERS).toFixed(2));
    return {
      job: report,
      seconds,
      cpuSeconds: (used.user + used.system) / 1e6,
      engineCpuSeconds: ((processCpuMs(dynamoLocal.pid) ?? 0) - (engineCpu ?? 0)) / 1000,
      perUser: {
        writeRequests: perUser(store.writeRequests - counted.writeRequests),
        itemsWritten: perUser(store.itemsWritten - counted.itemsWritten),
        reads: perUser(store.reads - counted.reads),
      },
    };
  };
  const first = await timed('first run');
  const again = await timed('same file again');
  const figures = {
    users: USERS,
    memberships: MEMBERSHIPS,
    tenants: TENANTS,
    cores: os.cpus().length,
    load: { before: loadBefore, after: os.loadavg() },
    first: { ...summary(first), usersPerSecond: USERS / first.seconds, secondsPer10k: (first.seconds * 10_000) / USERS },
    again: { ...summary(again), usersPerSecond: USERS / again.seconds },
    targetSeconds: (TARGET_SECONDS * USERS) / 100_000,
  };
  const line = (run: typeof first) =>
    `${(USERS / run.seconds).toFixed(0)} users/s; per user ${run.perUser.writeRequests} write requests, ` +
    `${run.perUser.itemsWritten} items written, ${run.perUser.reads} reads; CPU: importer ${run.cpuSeconds.toFixed(1)} s, ` +
    `DynamoDB Local ${run.engineCpuSeconds.toFixed(1)} s`;
  say(
    `${USERS} users (bcrypt), ${MEMBERSHIPS} memberships, ${TENANTS} tenants: ${first.seconds.toFixed(1)} s ` +
      `(${figures.first.secondsPer10k.toFixed(1)} s per 10 000 users), imported ${first.job.imported}, failed ${first.job.failed}; ` +
      `target ${figures.targetSeconds} s: ${first.seconds <= figures.targetSeconds ? 'met' : 'MISSED'}\n  ${line(first)}\n` +
      `same file again: ${again.seconds.toFixed(1)} s, unchanged ${again.job.unchanged}, imported ${again.job.imported}\n  ${line(again)}\n` +
      `load average (1, 5, 15 min) before ${loadBefore.map((l) => l.toFixed(1)).join(', ')}, after ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(', ')}\n`,
  );
  writeResults('import', figures);
} finally {
  await h.close();
  await dynamoLocal.stop();
}

function summary(run: {
  job: { imported: number; unchanged: number; failed: number };
  seconds: number;
  cpuSeconds: number;
  engineCpuSeconds: number;
  perUser: object;
}) {
  const { job, ...rest } = run;
  return { ...rest, imported: job.imported, unchanged: job.unchanged, failed: job.failed };
}
