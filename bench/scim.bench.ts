/**
 * SCIM (issue 41): an initial sync as Okta pushes it, over HTTP to the local API on DynamoDB Local: for each user
 * `GET /Users?filter=userName eq "…"` then `POST /Users`; for each group `GET /Groups?filter=displayName eq "…"`,
 * `POST /Groups`, then its members in PATCHes of 100; last, Okta's import reads every user back in pages of 100
 * (`startIndex`, `count`). Four calls in flight, as a directory's worker pool, after the first 20 of each kind alone,
 * whose store requests are counted: the figures printed per SCIM call are theirs. Prints the total time too. Target: 10 000 users and 50 groups in at most 10 minutes.
 *   npm run bench -- scim
 *   SCIM_USERS=1000 SCIM_GROUPS=5 npm run bench -- scim      a smaller sync
 */
import os from 'node:os';
import { startHarness } from '../dev-support/harness.js';
import { apiLogKeys } from '../shared/store/keys.js';
import { dynamo } from '../shared/wiring.js';
import { patientStoreClient, startBenchDynamo } from './fixtures.js';
import { processCpuMs } from './service-process.js';
import { writeResults } from './support.js';

const USERS = Number(process.env.SCIM_USERS ?? 10_000);
const GROUPS = Number(process.env.SCIM_GROUPS ?? 50);
const IN_FLIGHT = 4;
const PAGE = 100;
const TARGET_SECONDS = 600;
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

const say = (text: string) => process.stdout.write(text);

/** Calls made one at a time first, whose store requests are counted; the rest run IN_FLIGHT at a time. */
const COUNTED = 20;
let counting = true;

/** Runs `task` over 0..n-1: the first COUNTED alone, then IN_FLIGHT at a time. */
async function pool(n: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  counting = true;
  while (next < Math.min(n, COUNTED)) await task(next++);
  counting = false;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < n) await task(next++);
    }),
  );
}

/** `GetItem×2 TransactWriteItems` for one call's commands. */
function tally(names: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts].map(([name, n]) => (n > 1 ? `${name}×${n}` : name)).join(' ');
}

const dynamoLocal = await startBenchDynamo();
// The service is measured, not the rate (6000 calls a minute by default, which alone makes a 10 000-user sync's
// 20 000 calls take at least 3.4 minutes): set before the harness reads the configuration.
process.env.SCIM_REQUESTS_PER_MINUTE = String(1_000_000);
const h = await startHarness({ tableName: 'scim-bench' });
patientStoreClient();
let storeRequests = 0;
/**
 * The store's commands by name, and how long at least one was in flight (the store's own share of a call's time).
 * The API log writer's writes (records, events, counts, written a moment after the calls: local/line-sink.ts) are
 * the writer's, not the call's: counted apart.
 */
const commands: string[] = [];
let logWrites = 0;
let inFlight = 0;
let busySince = 0;
let storeBusyMs = 0;
dynamo().intercept(async (command, next) => {
  if (apiLogKeys.isRecordWrite(command.operation, command.input)) {
    logWrites++;
    return next();
  }
  storeRequests++;
  commands.push(command.operation);
  if (inFlight++ === 0) busySince = performance.now();
  try {
    return await next();
  } finally {
    if (--inFlight === 0) storeBusyMs += performance.now() - busySince;
  }
});
try {
  const { client: api } = await h.newSaas();
  await api.post('/envs', { id: 1, name: 'prod', display_name: 'Production' });
  for (let g = 0; g < GROUPS; g++) await api.post('/roles', { role_name: `team${g}`, display_name: `Team ${g}` });
  const tenant = await api.post<{ id: string }>('/tenants', { name: 'Acme', attributes: {}, back_office_staff_email: 'ops@acme.test' });
  const token = await api.post<{ token: string; base_url: string }>(`/tenants/${tenant.body.id}/scim/tokens`, {});
  const { base_url: base, token: bearer } = token.body;

  /** Per kind of call: how many counted, their store requests, the commands of one, the store's time; every call's time. */
  const kinds = new Map<string, { calls: number; requests: number; storeMs: number; countedMs: number; commands: string[] }>();
  const latencies = new Map<string, number[]>();
  const call = async <T>(kind: string, method: string, path: string, body?: unknown): Promise<T> => {
    const before = storeRequests;
    const commandsBefore = commands.length;
    const busyBefore = storeBusyMs;
    const t0 = performance.now();
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/scim+json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    const took = performance.now() - t0;
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    latencies.set(kind, [...(latencies.get(kind) ?? []), took]);
    // Counted only while one call is in flight (the first users and groups), so no call counts another's requests.
    if (counting) {
      const k = kinds.get(kind) ?? { calls: 0, requests: 0, storeMs: 0, countedMs: 0, commands: [] };
      k.calls++;
      // The last call's commands: the first may fill a warm instance's caches.
      k.commands = commands.slice(commandsBefore);
      k.requests += storeRequests - before;
      k.storeMs += storeBusyMs - busyBefore;
      k.countedMs += took;
      kinds.set(kind, k);
    }
    return (text ? JSON.parse(text) : undefined) as T;
  };

  const started = Date.now();
  const logWritesBefore = logWrites;
  const cpuBefore = process.cpuUsage();
  const engineBefore = processCpuMs(dynamoLocal.pid);
  const busyAtStart = storeBusyMs;
  const ids: string[] = new Array(USERS);
  await pool(USERS, async (i) => {
    const userName = `user${i}@acme.test`;
    await call('GET /Users?filter=userName eq', 'GET', `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}&startIndex=1&count=100`);
    const created = await call<{ id: string }>('POST /Users', 'POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName,
      name: { givenName: 'User', familyName: String(i) },
      emails: [{ primary: true, value: userName, type: 'work' }],
      displayName: `User ${i}`,
      active: true,
    });
    ids[i] = created.id;
    if ((i + 1) % Math.max(1, Math.floor(USERS / 10)) === 0) say(`  ${i + 1}/${USERS} users, ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  });
  const usersSeconds = (Date.now() - started) / 1000;
  await pool(GROUPS, async (g) => {
    await call(
      'GET /Groups?filter=displayName eq',
      'GET',
      `/Groups?excludedAttributes=members&filter=${encodeURIComponent(`displayName eq "team${g}"`)}`,
    );
    const group = await call<{ id: string }>('POST /Groups', 'POST', '/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: `team${g}`,
    });
    const members = ids.filter((_, i) => i % GROUPS === g);
    for (let from = 0; from < members.length; from += PAGE) {
      await call('PATCH /Groups (100 members)', 'PATCH', `/Groups/${group.id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'add', path: 'members', value: members.slice(from, from + PAGE).map((value) => ({ value })) }],
      });
    }
  });
  const groupsSeconds = (Date.now() - started) / 1000 - usersSeconds;
  const importStarted = Date.now();
  counting = true;
  for (let start = 1; start <= USERS; start += PAGE) await call('GET /Users?startIndex&count=100', 'GET', `/Users?startIndex=${start}&count=${PAGE}`);
  const importSeconds = (Date.now() - importStarted) / 1000;
  const seconds = (Date.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const nodeCpuSeconds = (cpu.user + cpu.system) / 1e6;
  const engineAfter = processCpuMs(dynamoLocal.pid);
  const engineCpuSeconds = engineBefore !== undefined && engineAfter !== undefined ? (engineAfter - engineBefore) / 1000 : undefined;
  const storeBusySeconds = (storeBusyMs - busyAtStart) / 1000;

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const perCall = Object.fromEntries(
    [...kinds].map(([kind, k]) => [
      kind,
      {
        calls: latencies.get(kind)?.length ?? 0,
        medianMs: median(latencies.get(kind) ?? []),
        storeRequestsPerCall: k.requests / k.calls,
        storeShare: k.storeMs / k.countedMs,
        commands: tally(k.commands),
      },
    ]),
  );
  say(`per SCIM call (store requests and the store's share of the time over the calls made one at a time; medians over all):\n`);
  for (const [kind, k] of Object.entries(perCall))
    say(
      `  ${kind.padEnd(36)} ${String(k.calls).padStart(6)} calls  median ${k.medianMs.toFixed(1).padStart(6)} ms  ` +
        `${k.storeRequestsPerCall.toFixed(1)} requests/call (${k.commands})  store ${(k.storeShare * 100).toFixed(0)}% of the call\n`,
    );
  say(
    `CPU: this process (handlers, HTTP, client) ${nodeCpuSeconds.toFixed(1)} s, DynamoDB Local ${engineCpuSeconds?.toFixed(1) ?? '?'} s; ` +
      `a store request in flight ${storeBusySeconds.toFixed(1)} s of the ${seconds.toFixed(1)} s; ` +
      `the API log writer's writes apart: ${logWrites - logWritesBefore}\n`,
  );
  const target = (TARGET_SECONDS * USERS) / 10_000;
  say(
    `${USERS} users, ${GROUPS} groups on ${os.cpus().length} cores (load ${(os.loadavg()[0] ?? 0).toFixed(1)}): users ${usersSeconds.toFixed(1)} s, ` +
      `groups ${groupsSeconds.toFixed(1)} s, import pages ${importSeconds.toFixed(1)} s; total ${seconds.toFixed(1)} s ` +
      `(target ${target.toFixed(0)} s pro rata: ${seconds <= target ? 'met' : 'MISSED'})\n`,
  );
  writeResults('scim', {
    users: USERS,
    groups: GROUPS,
    seconds,
    usersSeconds,
    groupsSeconds,
    importSeconds,
    perCall,
    nodeCpuSeconds,
    engineCpuSeconds,
    storeBusySeconds,
    logWrites: logWrites - logWritesBefore,
    load: os.loadavg()[0],
  });
} finally {
  await h.close();
  await dynamoLocal.stop();
}
