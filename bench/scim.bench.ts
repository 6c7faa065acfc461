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
import { dynamo } from '../shared/wiring.js';
import { patientStoreClient, startBenchDynamo } from './fixtures.js';
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

const dynamoLocal = await startBenchDynamo();
const h = await startHarness({ tableName: 'scim-bench' });
patientStoreClient();
process.env.SCIM_REQUESTS_PER_MINUTE = String(1_000_000);
let storeRequests = 0;
dynamo().intercept((_command, next) => {
  storeRequests++;
  return next();
});
try {
  const { client: api } = await h.newSaas();
  await api.post('/envs', { id: 1, name: 'prod', display_name: 'Production' });
  for (let g = 0; g < GROUPS; g++) await api.post('/roles', { role_name: `team${g}`, display_name: `Team ${g}` });
  const tenant = await api.post<{ id: string }>('/tenants', { name: 'Acme', attributes: {}, back_office_staff_email: 'ops@acme.test' });
  const token = await api.post<{ token: string; base_url: string }>(`/tenants/${tenant.body.id}/scim/tokens`, {});
  const { base_url: base, token: bearer } = token.body;

  /** Per kind of call: how many, their store requests. */
  const kinds = new Map<string, { calls: number; requests: number }>();
  const call = async <T>(kind: string, method: string, path: string, body?: unknown): Promise<T> => {
    const before = storeRequests;
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/scim+json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    // Counted only while one call is in flight (the first users and groups), so no call counts another's requests.
    if (counting) {
      const k = kinds.get(kind) ?? { calls: 0, requests: 0 };
      k.calls++;
      k.requests += storeRequests - before;
      kinds.set(kind, k);
    }
    return (text ? JSON.parse(text) : undefined) as T;
  };

  const started = Date.now();
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

  const perCall = Object.fromEntries([...kinds].map(([kind, k]) => [kind, { calls: k.calls, storeRequestsPerCall: k.requests / k.calls }]));
  say(`store requests per SCIM call:\n`);
  for (const [kind, k] of Object.entries(perCall))
    say(`  ${kind.padEnd(36)} ${String(k.calls).padStart(6)} calls  ${k.storeRequestsPerCall.toFixed(1)} requests/call\n`);
  const target = (TARGET_SECONDS * USERS) / 10_000;
  say(
    `${USERS} users, ${GROUPS} groups on ${os.cpus().length} cores (load ${(os.loadavg()[0] ?? 0).toFixed(1)}): users ${usersSeconds.toFixed(1)} s, ` +
      `groups ${groupsSeconds.toFixed(1)} s, import pages ${importSeconds.toFixed(1)} s; total ${seconds.toFixed(1)} s ` +
      `(target ${target.toFixed(0)} s pro rata: ${seconds <= target ? 'met' : 'MISSED'})\n`,
  );
  writeResults('scim', { users: USERS, groups: GROUPS, seconds, usersSeconds, groupsSeconds, importSeconds, perCall, load: os.loadavg()[0] });
} finally {
  await h.close();
  await dynamoLocal.stop();
}
