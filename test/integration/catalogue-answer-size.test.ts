/**
 * An answer never lies about what was saved: a plan whose answer (its menus with their units) would pass the
 * size a function may answer is refused with a 400 naming the limit before anything is written, whatever the
 * client's Accept-Encoding; a plan that fits is created and answered whole. The catalogue is the review's: 48
 * menus over the same 48 units of 20 tiers, a 7 MB plan.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { tableDigest } from '../../dev-support/route-requests.js';
import { LAMBDA_RESPONSE_LIMIT_BYTES } from '../../shared/http/compression.js';
import { expectError } from '../support/expect.js';
import { onApi } from '../support/other-api.js';

let h: Harness;
let pricing: SignedClient;
let saasId: string;
let menuIds: string[];

const SIDE = 48;
const TIERS = [
  ...Array.from({ length: 19 }, (_, i) => ({ up_to: (i + 1) * 1000, unit_amount: 1000 - i, flat_amount: 100 * i, inf: false })),
  { up_to: 0, unit_amount: 1, flat_amount: 0, inf: true },
];
const plain = { headers: { 'accept-encoding': 'identity' } };
const gzip = { headers: { 'accept-encoding': 'gzip' } };
const catalogueDigest = () => tableDigest(`SAAS#${saasId}#PRICING`);
const plan = (name: string, menu_ids: string[]) => ({ name, display_name: name, description: 'd'.repeat(1000), menu_ids });

beforeAll(async () => {
  h = await startHarness();
  const saas = await h.newSaas();
  saasId = saas.saasId;
  pricing = onApi(saas.client, 'pricing');
  const unitIds: string[] = [];
  for (let i = 0; i < SIDE; i++) {
    const res = await pricing.post<{ id: string }>('/units', {
      type: 'tiered',
      name: `unit-${i}`,
      display_name: 'u'.repeat(200),
      description: 'x'.repeat(1000),
      currency: 'JPY',
      upper_count: 0,
      metering_unit_name: `meter_${i}`,
      tiers: TIERS,
    });
    assert.equal(res.status, 201, res.text);
    unitIds.push(res.body.id);
  }
  menuIds = [];
  for (let i = 0; i < SIDE; i++) {
    const res = await pricing.post<{ id: string }>(
      '/menus',
      { name: `menu-${i}`, display_name: 'm'.repeat(200), description: 'y'.repeat(1000), unit_ids: unitIds },
      plain,
    );
    assert.equal(res.status, 201, res.text);
    menuIds.push(res.body.id);
  }
}, 120_000);
afterAll(() => h.close());

const plans = async () => (await pricing.get<{ pricing_plans: { id: string; pricing_menus: unknown[] }[] }>('/plans', gzip)).body.pricing_plans;

describe('a catalogue answer that would be too large', () => {
  it('a plan of 48 menus over 48 units is refused before it is written, with or without compression', async () => {
    const before = await catalogueDigest();
    for (const options of [plain, gzip]) {
      const res = await pricing.post<{ message: string; data: { limit_bytes: number } }>('/plans', plan('huge', menuIds), options);
      await expectError(Promise.resolve(res), 400, 'plan_too_large', 'menu_ids');
      assert.equal(res.body.data.limit_bytes, LAMBDA_RESPONSE_LIMIT_BYTES);
      assert.match(res.body.message, new RegExp(`${LAMBDA_RESPONSE_LIMIT_BYTES} bytes`));
    }
    assert.equal(await catalogueDigest(), before);
    assert.deepEqual(await plans(), []);
  });

  it('a plan that fits is created and answered whole without compression; growing it past the limit is refused', async () => {
    const res = await pricing.post<{ id: string; pricing_menus: { units: unknown[] }[] }>('/plans', plan('half', menuIds.slice(0, 16)), plain);
    assert.equal(res.status, 201, res.text.slice(0, 300));
    assert.equal(res.body.pricing_menus.length, 16);
    assert.ok(res.body.pricing_menus.every((m) => m.units.length === SIDE));
    const before = await catalogueDigest();
    await expectError(pricing.patch(`/plans/${res.body.id}`, plan('half', menuIds)), 400, 'plan_too_large', 'menu_ids');
    assert.equal(await catalogueDigest(), before);
    const [kept] = await plans();
    assert.equal(kept?.pricing_menus.length, 16);
    assert.equal((await pricing.get(`/plans/${res.body.id}`, plain)).status, 200);
  });
});
