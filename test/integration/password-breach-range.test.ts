/**
 * The breached-password range service (sign-in setting password_breach_range, our extension, off by default):
 * a new password the service lists is refused by name, one it does not list is accepted, only the first 5
 * characters of the password's SHA-1 are sent, and when the service errs or never answers (the 1-second
 * timeout cuts it off) the bundled list decides and BreachedRangeUnreachable counts it. Through the same
 * handlers as the Lambdas, on DynamoDB Local, against a stand-in for the service on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { rangeQuery } from '../../shared/domain/configuration/breached-range.js';
import { metricsSink, resetMetricsForTests } from '../../shared/metrics.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { startBreachedRangeStandIn, type BreachedRangeStandIn } from '../support/breached-range-stand-in.js';
import { stdoutOf } from '../support/stdout.js';

/** Passes every rule of the default policy and is not on the bundled list: only the stand-in can refuse it. */
const LISTED_REMOTELY = 'Kyoto#Lantern8-remote';
/** On the bundled list: refused whatever the range service says. */
const LISTED_LOCALLY = 'Password123!';

let h: Harness;
let admin: SignedClient;
let rangeService: BreachedRangeStandIn;

const address = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.test`;
const createUser = (password: string) =>
  admin.post<{ id: string; type?: string; data?: { rule?: string } }>('/users', { email: address('range'), password });

/** BreachedRangeUnreachable counted during `run`: in EMF lines written, and in what the sink still holds. */
async function unreachableCounted(run: () => Promise<void>): Promise<number> {
  const before = pending();
  const lines = await stdoutOf(run);
  const written = lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => '_aws' in line)
    .reduce((sum, line) => sum + total(line.BreachedRangeUnreachable), 0);
  return written + pending() - before;
}
const total = (value: unknown): number =>
  Array.isArray(value) ? value.reduce((a: number, b: number) => a + b, 0) : typeof value === 'number' ? value : 0;
const pending = (): number => {
  const sink = metricsSink();
  if (!sink?.hasStoredMetrics()) return 0;
  return total((sink.serializeMetrics() as unknown as Record<string, unknown>).BreachedRangeUnreachable);
};

beforeAll(async () => {
  rangeService = await startBreachedRangeStandIn();
  rangeService.list(LISTED_REMOTELY);
  process.env.BREACHED_RANGE_BASE_URL = rangeService.url;
  process.env.METRICS_ENABLED = 'true';
  resetMetricsForTests();
  h = await startHarness();
  ({ client: admin } = await h.newSaas());
});
afterAll(async () => {
  await h?.close();
  await rangeService?.close();
  delete process.env.BREACHED_RANGE_BASE_URL;
  delete process.env.METRICS_ENABLED;
  resetMetricsForTests();
});

describe('the breached-password range service', () => {
  it('is off by default: nothing is sent, and a password only the service lists is accepted', async () => {
    const settings = (await admin.get<Record<string, unknown>>('/sign-in-settings')).body;
    assert.deepEqual(settings.password_breach_range, { enable: false });
    assert.equal((await createUser(LISTED_REMOTELY)).status, 201);
    assert.equal(rangeService.requests.length, 0);

    assert.equal((await admin.put('/sign-in-settings', { password_breach_range: { enable: 'yes' } })).status, 400);
    assert.equal((await admin.put('/sign-in-settings', { password_breach_range: { enable: true } })).status, 200);
    assert.deepEqual((await admin.get<Record<string, unknown>>('/sign-in-settings')).body.password_breach_range, { enable: true });
  });

  it('refuses a password the service lists, by name, having sent only 5 characters of its hash', async () => {
    rangeService.control.mode = 'up';
    rangeService.requests.length = 0;
    const refused = await createUser(LISTED_REMOTELY);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.type, 'password_policy_violation');
    assert.equal(refused.body.data?.rule, 'breached');

    const { prefix, suffix } = rangeQuery(LISTED_REMOTELY);
    assert.deepEqual(rangeService.requests, [{ path: `/range/${prefix}`, padding: 'true' }]);
    assert.match(prefix, /^[0-9A-F]{5}$/);
    const hash = createHash('sha1').update(LISTED_REMOTELY).digest('hex').toUpperCase();
    assert.equal(prefix + suffix, hash);
    assert.ok(!JSON.stringify(rangeService.requests).includes(hash.slice(0, 6)), 'not a character more of the hash');
  });

  it('accepts a password the service does not list, padding lines notwithstanding', async () => {
    rangeService.requests.length = 0;
    const created = await createUser(`Kyoto#Lantern8-${randomUUID()}`);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(rangeService.requests.length, 1);
  });

  it('leaves the decision to the bundled list when the service errs, and counts it', async () => {
    rangeService.control.mode = 'error';
    let created: Awaited<ReturnType<typeof createUser>> | undefined;
    let refused: Awaited<ReturnType<typeof createUser>> | undefined;
    const counted = await unreachableCounted(async () => {
      created = await createUser(LISTED_REMOTELY);
      refused = await createUser(LISTED_LOCALLY);
    });
    assert.equal(created?.status, 201, 'the service could not say, and the bundled list does not list it');
    assert.equal(refused?.status, 400);
    assert.equal(refused?.body.data?.rule, 'breached');
    assert.equal(counted, 1, 'one unanswered question: the locally listed password never reached the service');
  });

  it('leaves the decision to the bundled list when the service never answers (cut off by the 1-second timeout)', async () => {
    rangeService.control.mode = 'silent';
    rangeService.requests.length = 0;
    let created: Awaited<ReturnType<typeof createUser>> | undefined;
    const counted = await unreachableCounted(async () => {
      created = await createUser(LISTED_REMOTELY);
    });
    assert.equal(rangeService.requests.length, 1, 'the service was asked');
    assert.equal(created?.status, 201);
    assert.equal(counted, 1);
  });

  it('leaves the decision to the bundled list when nothing listens there at all', async () => {
    await rangeService.close();
    const counted = await unreachableCounted(async () => {
      assert.equal((await createUser(LISTED_REMOTELY)).status, 201);
    });
    assert.equal(counted, 1);
  });
});
