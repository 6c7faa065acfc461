/**
 * Many rows to a transaction (issue 39's import speed): the committer's commitEach on DynamoDB Local, and an
 * import whose transactions each hold many rows. A transaction is refused whole, so these are the paths a refusal
 * takes: the refused row alone (named by its rule, as a commit of its own names it), the others together again; a
 * row that writes what an earlier one writes after it; a transaction cancelled by conflicts, its rows alone.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { atomicWrite, type AtomicWrite } from '../../shared/domain/atomic.js';
import { externalId } from '../../shared/domain/migration/external-id.js';
import { config } from '../../shared/config.js';
import { nowMillis, resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { DynamoClient, GetCommand, TransactionCanceledException, type StoreCommand } from '../../shared/store/dynamo-client.js';
import { check, DynamoCommitter, EXISTS, putNew } from '../../shared/store/transact.js';
import { dynamo, importService, membershipRepository, tableName } from '../../shared/wiring.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { watchWrites, withWriteLog } from '../support/write-log.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const row = (value: object) => JSON.stringify(value);
const BCRYPT = { algorithm: 'bcrypt', hash: '$2b$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW' };

describe('commitEach: many commits, many to a transaction', () => {
  const run = randomUUID();
  const key = (name: string) => ({ pk: `BATCH#${run}#${name}`, sk: 'ITEM' });
  const item = (name: string) => ({ ...key(name), name });
  /** A commit of `size` new items; each refused by `new_item:<name>`. */
  const entry = (name: string, size = 3): AtomicWrite[] => [
    atomicWrite(...Array.from({ length: size }, (_, k) => putNew(tableName(), item(`${name}.${k}`), `new_item:${name}.${k}`))),
  ];
  const client = () => {
    const { region, dynamoEndpoint } = config();
    return new DynamoClient({ region, ...(dynamoEndpoint ? { endpoint: dynamoEndpoint } : {}) });
  };
  const exists = async (name: string) =>
    (await dynamo().send(new GetCommand({ TableName: tableName(), Key: key(name), ConsistentRead: true }))).Item !== undefined;
  /** The parts of each TransactWriteItems this client sends. */
  const transactions = (db: DynamoClient) => {
    const sizes: number[] = [];
    db.intercept((command: StoreCommand, next) => {
      const parts = (command.input as { TransactItems?: unknown[] }).TransactItems;
      if (parts) sizes.push(parts.length);
      return next();
    });
    return sizes;
  };

  it('packs the commits into transactions of at most 100 parts, a check they share sent once; each whole', async () => {
    const db = client();
    const sizes = transactions(db);
    const shared = check(tableName(), key('anchor.0'), EXISTS, 'anchor');
    await new DynamoCommitter(db).commit(...entry('anchor', 1));
    const entries = Array.from({ length: 40 }, (_, i) => [...entry(`a${i}`), atomicWrite(shared)]);
    const outcomes = await new DynamoCommitter(db).commitEach(entries);
    assert.deepEqual(
      outcomes,
      entries.map(() => ({ committed: true })),
    );
    // 40 × 3 puts and the check once a transaction: 99 + 1, then the other 21 + 1.
    assert.deepEqual(sizes, [100, 22]);
    for (const i of [0, 32, 33, 39]) for (const k of [0, 1, 2]) assert.ok(await exists(`a${i}.${k}`), `a${i}.${k}`);
  });

  it('puts the commits that share a check in one transaction, however far apart they come, so it is sent once for them', async () => {
    const db = client();
    const sizes = transactions(db);
    const committer = new DynamoCommitter(db);
    const anchors = Array.from({ length: 60 }, (_, a) => `g-anchor${a}`);
    for (const anchor of anchors) await committer.commit(...entry(anchor, 1));
    // Row i checks anchor i % 60, as an import's memberships come in file order, each checking its tenant.
    const entries = Array.from({ length: 120 }, (_, i) => [
      ...entry(`g${i}`, 2),
      atomicWrite(check(tableName(), key(`${anchors[i % 60]}.0`), EXISTS, `anchor:${i % 60}`)),
    ]);
    const outcomes = await committer.commitEach(entries);
    assert.deepEqual(
      outcomes,
      entries.map(() => ({ committed: true })),
    );
    // In file order a row meets its sharer 60 rows on, mostly in another transaction, and the check goes twice;
    // beside it, each pair is 4 puts and one check: 20 pairs a transaction. (The anchors went in as plain puts.)
    assert.deepEqual(sizes, [100, 100, 100]);
    for (const i of [0, 59, 60, 119]) for (const k of [0, 1]) assert.ok(await exists(`g${i}.${k}`), `g${i}.${k}`);
  });

  it('a refused commit is named by its rule, as alone; the others in its transaction go again together', async () => {
    const db = client();
    const sizes = transactions(db);
    const committer = new DynamoCommitter(db);
    await committer.commit(...entry('there'));
    const outcomes = await committer.commitEach([
      entry('b0'),
      entry('b1'),
      [atomicWrite(putNew(tableName(), item('b2.0'), 'b2')), ...entry('there')],
      entry('b3'),
    ]);
    assert.deepEqual(outcomes, [{ committed: true }, { committed: true }, { committed: false, refusedBy: 'new_item:there.0' }, { committed: true }]);
    // Together (all 4), the refused one alone, the other three together.
    assert.deepEqual(sizes, [3, 13, 4, 9]);
    assert.equal(await exists('b2.0'), false, 'the refused commit wrote nothing');
    for (const name of ['b0.0', 'b1.2', 'b3.1']) assert.ok(await exists(name), name);
  });

  it('a commit that writes what an earlier one writes goes after it; a different check of one item, in another transaction', async () => {
    const db = client();
    const sizes = transactions(db);
    const committer = new DynamoCommitter(db);
    await committer.commit(...entry('checked', 1));
    const notThere = check(tableName(), key('checked.0'), { expression: 'attribute_not_exists(#pk)', names: { '#pk': 'pk' } }, 'not_there');
    const outcomes = await committer.commitEach([
      entry('c0'),
      [atomicWrite(putNew(tableName(), item('c0.1'), 'again'), putNew(tableName(), item('c9.0'), 'c9'))],
      [...entry('c1'), atomicWrite(check(tableName(), key('checked.0'), EXISTS, 'there'))],
      [...entry('c2'), atomicWrite(notThere)],
    ]);
    assert.deepEqual(outcomes, [
      { committed: true },
      { committed: false, refusedBy: 'again' },
      { committed: true },
      { committed: false, refusedBy: 'not_there' },
    ]);
    assert.equal(await exists('c9.0'), false);
    // c0 and c1 together (7 parts), c2 beside them (its check of the same item differs), then the repeat (2).
    assert.deepEqual(
      [...sizes].sort((a, b) => a - b),
      [2, 4, 7],
    );
  });

  it('a transaction cancelled by conflict after conflict commits its rows alone', async () => {
    const db = client();
    db.intercept((command, next) => {
      const parts = (command.input as { TransactItems?: unknown[] }).TransactItems;
      if (parts && parts.length > 2) {
        throw new TransactionCanceledException(
          'Transaction cancelled',
          parts.map(() => ({ Code: 'TransactionConflict' })),
        );
      }
      return next();
    });
    // Counted outside the conflicts (the last interceptor added is the outermost).
    const sizes = transactions(db);
    const outcomes = await new DynamoCommitter(db).commitEach(['d0', 'd1', 'd2'].map((name) => entry(name, 2)));
    assert.deepEqual(outcomes, [{ committed: true }, { committed: true }, { committed: true }]);
    // Six tries together, then each alone.
    assert.deepEqual(sizes, [6, 6, 6, 6, 6, 6, 2, 2, 2]);
    for (const name of ['d0.0', 'd1.1', 'd2.0']) assert.ok(await exists(name), name);
  });
});

describe('an import written many rows to a transaction', () => {
  let api: SignedClient;
  let saasId: string;
  const USERS = 60;
  const lines: string[] = [
    row({ type: 'role', role_name: 'member', display_name: 'Member' }),
    row({ type: 'env', id: 1, name: 'production', display_name: 'Production' }),
    row({ type: 'tenant', external_id: 't-0', name: 'Zero' }),
    row({ type: 'tenant', external_id: 't-1', name: 'One' }),
  ];
  for (let i = 0; i < USERS; i++) {
    // One name is taken by a user the SaaS made itself: only the commit finds that out.
    const email = i === 20 ? 'taken@batch.test' : `u-${i}@batch.test`;
    lines.push(row({ type: 'user', external_id: `u-${i}`, email, password_hash: BCRYPT }));
  }
  // The same external id again under another name: the earlier row's user stays, this one is unchanged.
  lines.push(row({ type: 'user', external_id: 'u-5', email: 'again@batch.test', password_hash: BCRYPT }));
  for (let i = 0; i < 40; i++)
    lines.push(row({ type: 'membership', user: `u-${i}`, tenant: `t-${i % 2}`, envs: [{ id: 1, role_names: ['member'] }] }));
  lines.push(row({ type: 'membership', user: 'u-41', tenant: 't-none' }));
  lines.push(row({ type: 'membership', user: 'u-42', tenant: 't-0', envs: [{ id: 1, role_names: ['ghost'] }] }));
  // Membership rows u-0..u-39 include u-20, whose user was refused.
  const FILE = lines.join('\n');
  const membersFrom = 4 + USERS + 2;
  const EXPECTED_ERRORS: [number, RegExp][] = [
    [4 + 21, /already used by another user/],
    [membersFrom + 20, /user: no user row u-20/],
    [membersFrom + 40, /tenant: no tenant row t-none/],
    [membersFrom + 41, /no role named 'ghost'/],
  ];

  beforeAll(async () => {
    ({ saasId, client: api } = await h.newSaas());
    assert.equal((await api.post('/users', { email: 'taken@batch.test', password: 'Taken-pass-1' })).status, 201);
    watchWrites(dynamo());
    // The clock held: a row refused at commit asks for its directory shard again on the re-run, and the write rate
    // the first run measured is told then if a second has passed since its window began (directory-shards.ts,
    // tellRate): a write of the first run's that lands in the re-run's log or not, by the machine's speed.
    setClockForTests(nowMillis());
  });
  afterAll(() => resetClockForTests());

  const importFile = async () => {
    const imports = importService();
    const job = await imports.start(saasId, FILE);
    const { writes } = await withWriteLog(() => imports.run(saasId, job.job_id));
    return { report: await imports.get(saasId, job.job_id), writes };
  };
  /** The writes of rows: the job's own items (its state, its parts) left out. */
  const rowWrites = (writes: readonly { command: string; sortKeys: string[] }[]) =>
    writes.filter((w) => !w.sortKeys.every((sk) => sk.startsWith('JOB#') || sk.startsWith('PART#')));

  it('imports the good rows many to a transaction and names each bad one by line and reason', async () => {
    const { report, writes } = await importFile();
    assert.deepEqual(
      { imported: report.imported, unchanged: report.unchanged, failed: report.failed },
      // A role, an env, 2 tenants, 59 users and 39 memberships; u-5's second row.
      { imported: 1 + 1 + 2 + 59 + 39, unchanged: 1, failed: EXPECTED_ERRORS.length },
      JSON.stringify(report.errors),
    );
    assert.deepEqual(
      report.errors?.map((e) => e.line),
      EXPECTED_ERRORS.map(([line]) => line),
    );
    for (const [line, reason] of EXPECTED_ERRORS) assert.match(report.errors?.find((e) => e.line === line)?.reason ?? '', reason, `line ${line}`);

    const profiles = rowWrites(writes).filter((w) => w.sortKeys.includes('PROFILE'));
    assert.ok(profiles.length <= 6, `users committed in ${profiles.length} writes`);
    assert.ok(Math.max(...profiles.map((w) => w.sortKeys.filter((sk) => sk === 'PROFILE').length)) >= 20, 'many users to a transaction');

    const users = (await api.get<{ users: { id: string; email: string }[] }>('/users')).body.users;
    assert.equal(users.length, 59 + 1);
    assert.equal(users.find((u) => u.id === externalId(saasId, 'user', 'u-5'))?.email, 'u-5@batch.test');
    assert.equal(
      users.find((u) => u.email === 'again@batch.test'),
      undefined,
    );
    const members = await api.get<{ users: { id: string }[] }>(`/tenants/${externalId(saasId, 'tenant', 't-0')}/users`);
    assert.equal(members.body.users.length, 19, members.text);
  });

  it('the same file again writes nothing: what arrived is read as there, many to a read, and counted unchanged', async () => {
    const { report, writes } = await importFile();
    assert.deepEqual(
      { imported: report.imported, unchanged: report.unchanged, failed: report.failed },
      { imported: 0, unchanged: 1 + 1 + 2 + 59 + 39 + 1, failed: EXPECTED_ERRORS.length },
    );
    assert.deepEqual(rowWrites(writes), []);
  });

  it("reads a membership's tenant and user only where the membership is there, and answers as before", async () => {
    const read: string[] = [];
    dynamo().intercept((command, next) => {
      const requests = (command.input as { RequestItems?: Record<string, { Keys?: { sk: string }[] }> }).RequestItems;
      if (command.operation === 'BatchGetItem') for (const { Keys } of Object.values(requests ?? {})) read.push(...(Keys ?? []).map((k) => k.sk));
      return next();
    });
    const pair = (user: string, tenant: string) => ({ userId: externalId(saasId, 'user', user), tenantId: externalId(saasId, 'tenant', tenant) });
    const absent = await membershipRepository().present(saasId, [pair('u-1', 't-0'), pair('u-20', 't-0'), pair('u-50', 't-1')]);
    assert.deepEqual(absent, [false, false, false]);
    assert.ok(
      read.every((sk) => sk.startsWith('MEMBER#')),
      `no member found, none of their tenants or users read: ${read.join(', ')}`,
    );
    read.length = 0;
    // u-0 is a member of t-0, u-3 of t-1; u-1 is not of t-0.
    assert.deepEqual(await membershipRepository().present(saasId, [pair('u-0', 't-0'), pair('u-1', 't-0'), pair('u-3', 't-1')]), [true, false, true]);
    assert.deepEqual(
      read.filter((sk) => !sk.startsWith('MEMBER#')).sort(),
      ['PROFILE', 'PROFILE', 'TENANT#' + pair('u-0', 't-0').tenantId, 'TENANT#' + pair('u-3', 't-1').tenantId].sort(),
    );
  });
});
