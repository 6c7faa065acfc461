/**
 * Scale: one SaaS grown from 1 000 to 10 000 to 100 000 users (1 000, then 10 000 tenants, a membership per
 * user, an invitation and a reported user count per tenant, a plan reservation on every tenth), seeded
 * straight into DynamoDB Local (bench/scale-seed.ts), and at each size the operations called as Lambda calls
 * them (bench/lambda-client.ts: the API Gateway v2 event, the function's handler in this process). Per
 * operation: elapsed p50/p99, the handler's CPU time, the store requests and the capacity units DynamoDB Local
 * reports (ReturnConsumedCapacity INDEXES, asked by an interceptor on the service's store client). Then the
 * ratio of the largest size's figure to the smallest's: keyed operations should stay within 1.2×.
 *   npm run bench -- scale                         1 000, 10 000, 100 000 users
 *   SCALE_SIZES=1000,10000 npm run bench -- scale  fewer sizes
 * A year of metering is seeded too (METERED_TENANTS_AT: 1, then 10 tenants, each with two units counted every
 * hour of 2025, in monthly partitions, a busy hour a day spread over the write shards as the hot path spreads
 * it), and its reads and an update measured on the first metered tenant at every size.
 * At 100 000 users the unpaged lists are called once each, compressed (plain JSON would pass 6 MB and answer
 * 406 after reading everything: DynamoDB Local pages a large query in time that grows with its offset).
 * The SaaS's user directory is on 1 shard (shared/store/directory-shards.ts). At the largest size, last, a sign-up
 * surge grows it (bench/directory-surge.ts; SCALE_SURGE=0 leaves it out), every entry is moved to its shard
 * as its next write would, and the search and GET /users are measured again on the 32 shards.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { runScheduledWork } from '../functions/scheduled/handler.js';
import { dynamo } from '../shared/wiring.js';
import { apiLogKeys, ENTITY as STORE_ENTITY, keys, pricingKeys } from '../shared/store/keys.js';
import { startHarness } from '../dev-support/harness.js';
import { srpSignIn } from '../dev-support/sign-in.js';
import { expectStatus, patientStoreClient, startBenchDynamo } from './fixtures.js';
import { LambdaClient } from './lambda-client.js';
import { byEntity, ENTITY, itemsMadeBy, putAll, rewrite, sentMail } from './scale-seed.js';
import { summarize, writeResults } from './support.js';
import { directorySurge, spreadShardZero, type SurgeFigures } from './directory-surge.js';

type Item = Record<string, unknown>;

const SIZES = (process.env.SCALE_SIZES ?? '1000,10000,100000').split(',').map(Number);
const tenantsAt = (users: number) => (users <= 1000 ? 1000 : 10_000);
const BIG_TENANT_MEMBERS = 1000;
const DOOMED_MEMBERS_MAX = 10_000;
const SIGN_IN_USERS = 20;
const PASSWORD = 'Scale-pass-1';
/** Matches u000100 … u000199: the same 100 users at every size. */
const SEARCH_PREFIX = 'u0001';
const SEARCH_PAGE = 20;
const SURGE = process.env.SCALE_SURGE !== '0';
const SURGE_WORKERS = 16;
const SURGE_MAX_SECONDS = 40;
const KEYED_TARGET = 1.2;
/** The operations whose cost grows with the SaaS by design, and why; every other one is keyed. */
const GROWS_WITH: [string, string][] = [
  ['Get tenant users count', 'grows with tenants: every count and every tenant (to leave out deleted ones)'],
  ['Get tenants', 'grows with tenants: the unpaged list'],
  ['Delete a tenant', 'grows with its members (1 000 at the smallest size), not with the SaaS'],
  ['GET /users', 'grows with users: the unpaged list'],
  ['GET /tenants/all/users', 'grows with memberships: the unpaged list'],
];
const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
/** Tenants with a year of metering, by size: the same first one measured at each. */
const meteredTenantsAt = (users: number) => (users <= 1000 ? 1 : 10);
const METERING_UNITS = ['calls', 'storage'];
const METERING_YEAR = 2025;
const METERING_SHARDS = 4;
const HOUR = 3600;

const email = (i: number) => `u${String(i).padStart(6, '0')}@scale.test`;
const say = (text: string) => process.stdout.write(text);

interface Call {
  ms: number;
  cpuMs: number;
  requests: number;
  readUnits: number;
  writeUnits: number;
  /** Of writeUnits, those on the index (the user directory's keys among them). */
  indexWriteUnits: number;
}
let counting = false;
const noCall = (): Call => ({ ms: 0, cpuMs: 0, requests: 0, readUnits: 0, writeUnits: 0, indexWriteUnits: 0 });
let current: Call = noCall();

const dynamoLocal = await startBenchDynamo();
const h = await startHarness();
patientStoreClient();
try {
  dynamo().intercept(async (command, next) => {
    // The API log's write (one per signed call, bench/apilog.bench.ts) is left out, as the sign-in benches do.
    if (!counting || apiLogKeys.isRecordWrite(command.operation, command.input)) return next();
    current.requests++;
    (command.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'INDEXES';
    const result = await next();
    type Consumed = { CapacityUnits?: number; GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }> };
    const consumed = [(result as { ConsumedCapacity?: Consumed | Consumed[] }).ConsumedCapacity ?? []].flat();
    const units = consumed.reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
    if (READS.has(command.operation)) current.readUnits += units;
    else {
      current.writeUnits += units;
      current.indexWriteUnits += consumed.reduce(
        (sum, c) => sum + Object.values(c.GlobalSecondaryIndexes ?? {}).reduce((s, i) => s + (i.CapacityUnits ?? 0), 0),
        0,
      );
    }
    return result;
  });

  const saas = await h.newSaas();
  const api = new LambdaClient('http://api.scale.test/v1/auth', saas);
  // The default sign-in settings (devices offered at the user's choice): what a new SaaS signs in with.
  expectStatus(await api.post('/envs', { id: 1, name: 'prod', display_name: 'Production' }), 201, 'create env');
  expectStatus(await api.post('/roles', { role_name: 'admin', display_name: 'Admin' }), 201, 'create role');
  const pricing = new LambdaClient('http://api.scale.test/v1/pricing', saas);
  const handlerCpuMs = () => api.handlerCpuMs + pricing.handlerCpuMs;
  const handlerMs = () => api.handlerMs + pricing.handlerMs;
  for (const unit_name of METERING_UNITS) {
    expectStatus(await pricing.post('/metering/units', { unit_name, display_name: unit_name, description: '' }), 201, `metering unit ${unit_name}`);
  }

  // Templates: each kind of item made once through the API, then read raw.
  const signInUsers: { id: string; email: string }[] = [];
  for (let i = 0; i < SIGN_IN_USERS; i++) {
    signInUsers.push(expectStatus(await api.post('/users', { email: `signin-${i}@scale.test`, password: PASSWORD }), 201, 'sign-in user'));
  }
  let templateUser = { id: '', email: 'template-user@scale.test' };
  const userItems = await itemsMadeBy(async () => {
    templateUser = expectStatus(await api.post('/users', { email: templateUser.email, password: PASSWORD }), 201, 'template user');
  });
  let templateTenant = '';
  const tenantItems = await itemsMadeBy(async () => {
    templateTenant = expectStatus(
      await api.post<{ id: string }>('/tenants', { name: 'template-tenant', attributes: {}, back_office_staff_email: 'ops@scale.test' }),
      201,
      'template tenant',
    ).id;
  });
  const membershipItems = await itemsMadeBy(async () => {
    expectStatus(await api.post(`/tenants/${templateTenant}/users`, { email: templateUser.email, attributes: {} }), 201, 'join');
    expectStatus(await api.post(`/tenants/${templateTenant}/users/${templateUser.id}/envs/1/roles`, { role_names: ['admin'] }), 201, 'role');
  });
  const inviter = signInUsers[0]!;
  expectStatus(await api.post(`/tenants/${templateTenant}/users`, { email: inviter.email, attributes: {} }), 201, 'inviter joins');
  const inviterToken = expectStatus(await srpSignIn(api, inviter.email, PASSWORD), 200, 'inviter signs in').credentials!.access_token as string;
  let invitationId = '';
  const invitationItems = await itemsMadeBy(async () => {
    invitationId = expectStatus(
      await api.post<{ id: string }>(`/tenants/${templateTenant}/invitations`, {
        email: 'invitee@scale.test',
        access_token: inviterToken,
        envs: [{ id: 1, role_names: ['admin'] }],
      }),
      201,
      'invitation',
    ).id;
  });
  const countItems = await itemsMadeBy(async () =>
    expectStatus(await api.post('/tenants/all/users/count', { tenant_user_counts: [{ tenant_id: templateTenant, count: 1 }] }), 200, 'count'),
  );
  let reservedTenant = '';
  const reservedItems = await itemsMadeBy(async () => {
    reservedTenant = expectStatus(
      await api.post<{ id: string }>('/tenants', { name: 'reserved-tenant', attributes: {}, back_office_staff_email: 'ops@scale.test' }),
      201,
      'reserved tenant',
    ).id;
    const from = Math.floor(Date.now() / 1000) + 30 * 86400;
    expectStatus(await api.put(`/tenants/${reservedTenant}/plans`, { next_plan_id: randomUUID(), using_next_plan_from: from }), 200, 'reserve');
  });

  const template = {
    user: [...byEntity(userItems, ENTITY.user), ...byEntity(userItems, ENTITY.loginOwner)],
    tenant: byEntity(tenantItems, ENTITY.tenant)[0]!,
    reservedTenant: byEntity(reservedItems, ENTITY.tenant)[0]!,
    membership: [...byEntity(membershipItems, ENTITY.membership), ...byEntity(membershipItems, ENTITY.userMembership)],
    invitation: [...byEntity(invitationItems, ENTITY.invitation), ...byEntity(invitationItems, ENTITY.invitationPointer)],
    mail: byEntity(invitationItems, ENTITY.outbox)[0]!,
    count: byEntity(countItems, ENTITY.tenantUserCount)[0]!,
  };
  for (const [name, value] of Object.entries(template))
    if (!value || (Array.isArray(value) && value.length !== 2)) throw new Error(`template ${name}?`);
  const mailId = template.mail.id as string;
  // The template's own mail, sent: the worker has nothing to send but what the benchmark leaves due.
  await putAll([sentMail(template.mail)]);

  const userIds: string[] = [];
  const tenantIds: string[] = [];
  const userOf = (i: number) => [templateUser.id, userIds[i]!] as const;
  // The directory shard comes from the user id's first digits, which swapping the template's id does not carry
  // over: on 1 shard, as the SaaS starts, that is shard 0 for all.
  const onItsShard = (item: Item): Item =>
    item.entity === ENTITY.user ? { ...item, gsi1pk: keys.userDirectoryShard(saas.saasId, item.id as string, 1) } : item;
  const membership = (i: number, tenantId: string) => template.membership.map((item) => rewrite(item, [userOf(i), [templateTenant, tenantId]]));

  const seedTenant = (j: number): Item[] => {
    const id = randomUUID();
    tenantIds.push(id);
    const reserved = j % 10 === 9;
    const base = reserved ? template.reservedTenant : template.tenant;
    const baseId = reserved ? reservedTenant : templateTenant;
    const swaps = [
      [baseId, id],
      [reserved ? 'reserved-tenant' : 'template-tenant', `Tenant ${j}`],
    ] as const;
    const invitation = randomUUID();
    const mail = randomUUID();
    const invitationSwaps = [
      [templateTenant, id],
      [invitationId, invitation],
      [mailId, mail],
    ] as const;
    return [
      rewrite(base, swaps),
      rewrite(template.count, [[templateTenant, id]]),
      ...template.invitation.map((item) => rewrite(item, invitationSwaps)),
      sentMail(rewrite(template.mail, invitationSwaps)),
    ];
  };

  /**
   * A year of one tenant's metering: each unit counted every hour of METERING_YEAR in its month's partition;
   * one hour a day busy enough to be spread over METERING_SHARDS items (the home item marked `spread`), as
   * the hot path leaves it.
   */
  const meteringYear = (tenantId: string): Item[] => {
    const made: Item[] = [];
    const start = Date.UTC(METERING_YEAR, 0, 1) / 1000;
    const end = Date.UTC(METERING_YEAR + 1, 0, 1) / 1000;
    for (const unit of METERING_UNITS) {
      for (let ts = start; ts < end; ts += HOUR) {
        const month = new Date(ts * 1000).toISOString().slice(0, 7);
        const busy = (ts - start) % 86_400 === 12 * HOUR;
        for (let shard = 0; shard < (busy ? METERING_SHARDS : 1); shard++) {
          made.push({
            ...pricingKeys.meteringCount(saas.saasId, tenantId, month, unit, ts, shard),
            entity: STORE_ENTITY.meteringCount,
            unit,
            ts,
            shard,
            c: busy ? 25 : 3,
            ...(busy && shard === 0 ? { spread: true } : {}),
          });
        }
      }
    }
    return made;
  };
  let metered = 0;

  let bigTenant = '';
  /** Users the write operations made, beside the seeded ones. */
  let extraUsers = 0;
  const figures: Record<string, Record<number, ReturnType<typeof figuresOf>>> = {};
  const lists: Record<number, unknown> = {};
  const seeding: Record<number, { items: number; seconds: number }> = {};
  const failures: { size: number; name: string; error: string }[] = [];
  let surge: (SurgeFigures & { spread: number }) | undefined;

  for (const size of SIZES) {
    // Grow the SaaS to `size` users.
    const started = Date.now();
    // Written in chunks as they are made, so 100 000 users never sit in memory at once.
    let items: Item[] = [];
    let total = 0;
    let shown = 0;
    const flush = async () => {
      await putAll(items);
      total += items.length;
      items = [];
      if (total - shown >= 50_000) {
        shown = total;
        say(`  seeding ${size} users: ${total} items written\n`);
      }
    };
    const add = async (made: Item[]) => {
      items.push(...made);
      if (items.length >= 20_000) await flush();
    };
    const firstNew = userIds.length;
    for (let i = firstNew; i < size; i++) {
      userIds.push(randomUUID());
      await add(template.user.map((item) => onItsShard(rewrite(item, [userOf(i), [templateUser.email, email(i)]]))));
    }
    for (let j = tenantIds.length; j < tenantsAt(size); j++) await add(seedTenant(j));
    for (; metered < meteredTenantsAt(size); metered++) await add(meteringYear(tenantIds[metered]!));
    if (!bigTenant) {
      bigTenant = randomUUID();
      await add([rewrite(template.tenant, [[templateTenant, bigTenant]])]);
      for (let i = 0; i < BIG_TENANT_MEMBERS; i++) await add(membership(i, bigTenant));
    }
    for (let i = firstNew; i < size; i++) await add(membership(i, tenantIds[i % tenantIds.length]!));
    const doomed = randomUUID();
    const doomedMembers = Math.min(DOOMED_MEMBERS_MAX, size);
    await add([rewrite(template.tenant, [[templateTenant, doomed]])]);
    for (let i = 0; i < doomedMembers; i++) await add(membership(i, doomed));
    await flush();
    seeding[size] = { items: total, seconds: (Date.now() - started) / 1000 };
    say(
      `\n${size} users, ${tenantIds.length} tenants, ${metered} with a year of metering: seeded ${total} items in ${seeding[size].seconds.toFixed(0)} s\n`,
    );

    const measure = async (name: string, times: number, call: () => Promise<unknown>, warmup = Math.min(5, times)) => {
      const calls: Call[] = [];
      for (let n = 0; n < warmup + times; n++) {
        current = noCall();
        const [cpuBefore, msBefore] = [handlerCpuMs(), handlerMs()];
        const cpu = process.cpuUsage();
        const start = process.hrtime.bigint();
        counting = true;
        let direct: unknown;
        try {
          direct = await call();
        } catch (error) {
          // One operation failing (DynamoDB Local starved on a busy machine) must not lose the rest of the run.
          say(`  ${name.padEnd(58)} FAILED: ${(error as Error).message.slice(0, 300)}\n`);
          failures.push({ size, name, error: (error as Error).message });
          return;
        } finally {
          counting = false;
        }
        if (direct === 'in-process') {
          const used = process.cpuUsage(cpu);
          current.ms = Number(process.hrtime.bigint() - start) / 1e6;
          current.cpuMs = (used.user + used.system) / 1000;
        } else {
          current.ms = handlerMs() - msBefore;
          current.cpuMs = handlerCpuMs() - cpuBefore;
        }
        if (n >= warmup) calls.push(current);
      }
      (figures[name] ??= {})[size] = figuresOf(calls);
      const f = figures[name][size];
      say(
        `  ${name.padEnd(58)} p50 ${f.p50.toFixed(1).padStart(8)} ms  p99 ${f.p99.toFixed(1).padStart(8)} ms  CPU ${f.cpuMs.toFixed(1).padStart(7)} ms` +
          `  requests ${String(f.requests).padStart(5)}  RRU ${f.readUnits.toFixed(1).padStart(7)}  WRU ${f.writeUnits.toFixed(1).padStart(7)}` +
          ` (index ${f.indexWriteUnits.toFixed(1)})\n`,
      );
    };

    let k = 0;
    const someUser = () => userIds[(k++ * 7919) % userIds.length]!;
    const someTenant = () => tenantIds[(k++ * 7919) % tenantIds.length]!;
    await measure('Get user', 200, async () => expectStatus(await api.get(`/users/${someUser()}`), 200, 'get user'));
    const search = async () => {
      let cursor = '';
      let found = 0;
      do {
        const page = expectStatus(
          await api.get<{ users: unknown[]; cursor?: string }>(
            `/users/search?email=${SEARCH_PREFIX}&limit=${SEARCH_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          ),
          200,
          'search',
        );
        found += page.users.length;
        cursor = page.cursor ?? '';
      } while (cursor);
      if (found !== 100) throw new Error(`the prefix search found ${found} users`);
    };
    await measure(`Search users by e-mail prefix, 100 matches, paged by ${SEARCH_PAGE}`, 30, search);
    await measure(`Get tenant users of a ${BIG_TENANT_MEMBERS}-member tenant`, 20, async () => {
      const body = expectStatus(await api.get<{ users: unknown[] }>(`/tenants/${bigTenant}/users`), 200, 'tenant users');
      if (body.users.length !== BIG_TENANT_MEMBERS) throw new Error(`the big tenant has ${body.users.length} users`);
    });
    await measure('Get tenant', 200, async () => expectStatus(await api.get(`/tenants/${someTenant()}`), 200, 'get tenant'));
    const fresh: string[] = [];
    await measure('Create SaaS user (what a sign-up writes)', 50, async () => {
      const address = `new-${size}-${fresh.length}@scale.test`;
      expectStatus(await api.post('/users', { email: address, password: PASSWORD }), 201, 'create user');
      fresh.push(address);
    });
    extraUsers += fresh.length;
    let joined = 0;
    await measure('Add a user to a tenant', 50, async () => {
      const address = fresh[joined++ % fresh.length]!;
      expectStatus(await api.post(`/tenants/${tenantIds[1]}/users`, { email: address, attributes: {} }), 201, 'join');
    });
    await measure('Get tenant users count (every tenant)', 10, async () => expectStatus(await api.get('/tenants/all/users/count'), 200, 'counts'));
    await measure('Get tenants (every tenant)', 10, async () => expectStatus(await api.get('/tenants'), 200, 'tenants'));
    await measure('Scheduled run (plan reservations, outbox, backlog)', 30, async () => {
      await runScheduledWork();
      return 'in-process';
    });
    // Metering of the first metered tenant: the same year at every size, among more metered tenants.
    const meter = `/metering/tenants/${tenantIds[0]}/units`;
    await measure('Metering: a unit, one day', 30, async () =>
      expectStatus(await pricing.get(`${meter}/calls/date/${METERING_YEAR}-06-15`), 200, 'metering day'),
    );
    await measure('Metering: a unit, one month (744 hours)', 20, async () =>
      expectStatus(await pricing.get(`${meter}/calls/month/${METERING_YEAR}-07`), 200, 'metering month'),
    );
    await measure('Metering: a tenant, one month (2 units)', 20, async () =>
      expectStatus(await pricing.get(`${meter}/month/${METERING_YEAR}-07`), 200, 'tenant metering month'),
    );
    const periodStart = Date.UTC(METERING_YEAR, 9, 1) / 1000;
    await measure('Metering: a unit, 7 days (date-period)', 20, async () =>
      expectStatus(
        await pricing.get(`${meter}/calls/date-period?start_timestamp=${periodStart}&end_timestamp=${periodStart + 7 * 86_400 - 1}`),
        200,
        'metering period',
      ),
    );
    let meteredAt = Date.UTC(METERING_YEAR, 10, 3) / 1000 + 17;
    await measure('Metering: update a count (add, a new timestamp)', 50, async () =>
      expectStatus(await pricing.put(`${meter}/calls/timestamp/${meteredAt++}`, { method: 'add', count: 1 }), 200, 'metering update'),
    );

    let signer = 0;
    await measure('Sign-in (SRP, both steps, default settings)', 100, async () => {
      const res = await srpSignIn(api, signInUsers[signer++ % SIGN_IN_USERS]!.email, PASSWORD);
      if (res.status !== 200 || !res.body.credentials) throw new Error(`sign-in: ${res.status} ${res.text}`);
    });
    // One name at every size, so the ratio line compares it: the tenant holds min(users, 10 000) members.
    await measure(
      `Delete a tenant of up to ${DOOMED_MEMBERS_MAX} members`,
      1,
      async () => expectStatus(await api.delete(`/tenants/${doomed}`), 200, 'delete'),
      0,
    );

    // The unpaged lists: each way of answering them, with its bytes.
    const big = size >= 100_000;
    const listFigures: Record<string, unknown> = {};
    for (const [name, path, expected] of [
      ['GET /users', '/users', size + SIGN_IN_USERS + 1 + extraUsers],
      ['GET /tenants/all/users', '/tenants/all/users', undefined],
    ] as const) {
      let lastText = '';
      let lastStatus = 0;
      for (const acceptEncoding of big ? ['gzip'] : [undefined, 'gzip, deflate, br', 'gzip']) {
        const label = `${name}${acceptEncoding ? ` (Accept-Encoding: ${acceptEncoding})` : ''}`;
        let status = 0;
        let wireBytes = 0;
        let encoding = '';
        await measure(
          label,
          big ? 1 : 3,
          async () => {
            const res = await api.get<{ users: unknown[] }>(path, acceptEncoding ? { headers: { 'accept-encoding': acceptEncoding } } : {});
            status = res.status;
            [lastStatus, lastText] = [res.status, res.text];
            wireBytes = api.last!.wireBytes;
            encoding = res.headers.get('content-encoding') ?? 'identity';
            if (res.status === 200 && expected !== undefined && res.body.users.length !== expected)
              throw new Error(`${name}: ${res.body.users.length} users`);
          },
          big ? 0 : 1,
        );
        listFigures[label] = { status, encoding, wireBytes, ...figures[label]?.[size] };
        say(`    answered ${status}, ${encoding}, ${(wireBytes / 1e6).toFixed(2)} MB on the wire\n`);
      }
      // The body itself (the last compressed answer's, decoded), compressed each way, timed here.
      if (lastStatus !== 200) {
        say(`    ${name} body: not measured (${lastStatus})\n`);
        continue;
      }
      const json = Buffer.from(lastText, 'utf8');
      const timed = (fn: () => Buffer) => {
        const start = process.hrtime.bigint();
        const out = fn();
        return { bytes: out.length, ms: Number(process.hrtime.bigint() - start) / 1e6 };
      };
      const ways = {
        json: { bytes: json.length, ms: 0 },
        gzip1: timed(() => gzipSync(json, { level: 1 })),
        gzip6: timed(() => gzipSync(json, { level: 6 })),
        br4: timed(() => brotliCompressSync(json, { params: { [zlib.BROTLI_PARAM_QUALITY]: 4, [zlib.BROTLI_PARAM_SIZE_HINT]: json.length } })),
        br6: timed(() => brotliCompressSync(json, { params: { [zlib.BROTLI_PARAM_QUALITY]: 6, [zlib.BROTLI_PARAM_SIZE_HINT]: json.length } })),
      };
      listFigures[`${name} body`] = ways;
      say(
        `    ${name} body: ${Object.entries(ways)
          .map(([way, w]) => `${way} ${(w.bytes / 1e6).toFixed(2)} MB${w.ms ? ` in ${w.ms.toFixed(0)} ms` : ''}`)
          .join(', ')}\n`,
      );
    }
    lists[size] = listFigures;

    if (SURGE && size === SIZES.at(-1)) {
      say(`\nSign-up surge: ${SURGE_WORKERS} sign-ups at a time until the directory has grown and its writes spread\n`);
      const made = await directorySurge(
        saas.saasId,
        async (n) => {
          expectStatus(await api.post('/users', { email: `surge-${n}@scale.test`, password: PASSWORD }), 201, 'surge sign-up');
        },
        SURGE_WORKERS,
        SURGE_MAX_SECONDS,
      );
      extraUsers += made.created;
      const spread = await spreadShardZero(saas.saasId);
      surge = { ...made, spread };
      say(
        `  ${made.created} sign-ups in ${made.seconds.toFixed(1)} s (per second: ${made.perSecond.join(' ')}); grew after ${made.grewAfter?.toFixed(1)} s,` +
          ` writes spread after ${made.spreadAfter?.toFixed(1)} s; entries per shard ${made.entriesPerShard.join(' ')}; ${spread} more moved as their next write would\n`,
      );
      const users = size + SIGN_IN_USERS + 1 + extraUsers;
      await measure(`Search users by e-mail prefix, 100 matches, paged by ${SEARCH_PAGE} (32 shards)`, 30, search);
      await measure('GET /users, gzip (32 shards)', big ? 1 : 3, async () => {
        const res = await api.get<{ users: unknown[] }>('/users', { headers: { 'accept-encoding': 'gzip' } });
        if (res.status !== 200 || res.body.users.length !== users) throw new Error(`GET /users: ${res.status}, ${res.body.users?.length} users`);
      });
    }
    writeResults('scale', { sizes: SIZES, seeding, figures, lists, surge, failures, machine: machine() });
  }

  // Largest over smallest, per operation, for p50, CPU, requests and read units.
  say(`\nRatio of the largest size (${SIZES.at(-1)} users) to the smallest (${SIZES[0]}):\n`);
  const ratios: Record<string, Record<string, number>> = {};
  for (const [name, bySize] of Object.entries(figures)) {
    const first = bySize[SIZES[0]!];
    const last = bySize[SIZES.at(-1)!];
    if (!first || !last) continue;
    const r = (a: number, b: number) => (a === 0 && b === 0 ? 1 : a / b);
    const ratio = {
      p50: r(last.p50, first.p50),
      cpuMs: r(last.cpuMs, first.cpuMs),
      requests: r(last.requests, first.requests),
      readUnits: r(last.readUnits, first.readUnits),
    };
    ratios[name] = ratio;
    const growth = GROWS_WITH.find(([start]) => name.startsWith(start))?.[1];
    // Keyed: judged on CPU time and read units, which a busy machine does not move as it moves elapsed time.
    const verdict =
      growth ?? (Math.max(ratio.cpuMs, ratio.readUnits) <= KEYED_TARGET ? `keyed: within ${KEYED_TARGET}×` : `keyed: OVER ${KEYED_TARGET}×`);
    say(
      `  ${name.padEnd(58)} p50 ${ratio.p50.toFixed(2)}×  CPU ${ratio.cpuMs.toFixed(2)}×  requests ${ratio.requests.toFixed(2)}×  RRU ${ratio.readUnits.toFixed(2)}×  ${verdict}\n`,
    );
  }
  const grows = GROWS_WITH.map(([start]) => start);
  writeResults('scale', { sizes: SIZES, seeding, figures, lists, surge, ratios, grows, failures, machine: machine() });
} finally {
  await h.close();
  await dynamoLocal.stop();
}

function figuresOf(calls: Call[]) {
  const pick = (f: (c: Call) => number) => summarize(calls.map(f));
  const elapsed = pick((c) => c.ms);
  return {
    n: calls.length,
    p50: elapsed.median,
    p99: elapsed.p99,
    cpuMs: pick((c) => c.cpuMs).median,
    requests: pick((c) => c.requests).median,
    readUnits: pick((c) => c.readUnits).median,
    writeUnits: pick((c) => c.writeUnits).median,
    indexWriteUnits: pick((c) => c.indexWriteUnits).median,
  };
}

function machine() {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpu: cpus[0]?.model,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
}
