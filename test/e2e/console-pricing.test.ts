/**
 * The console's pricing catalogue in headless Chromium against the local stack: metering units, a metered
 * (usage) unit and a tiered unit built through the form (tier rows added and removed by keyboard, a refusal
 * shown at the tier it names), a menu and a plan of them, then a unit changed to another type; what the API
 * stored is read back through the API. axe-core on the page; screenshots go to .test-results/console/.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { onApi } from '../support/other-api.js';
import { chromiumMissing } from '../support/chromium.js';
import { axeClean, consoleUrlOf, signInConsole, startConsoleBrowser, stopConsoleBrowser, type ConsoleSaas } from '../support/console-browser.js';
import type { Harness } from '../../dev-support/harness.js';

const skip = chromiumMissing();

let h: Harness;
let browser: Browser;
let saas: ConsoleSaas;

interface Unit {
  id: string;
  name: string;
  type: string;
  unit_amount?: number;
  upper_count?: number;
  metering_unit_name?: string;
  aggregate_usage?: string;
  tiers?: { up_to: number; unit_amount: number; flat_amount: number; inf: boolean }[];
}

/** A tier's input: its id carries the API's name of the field (`tiers[1].up_to`). */
const tier = (form: string, i: number, name: string) => `[id="${form}-tiers[${i}].${name}"]`;
/** Waits for focus to be on `id`; says where it is instead when it does not get there. */
async function assertFocus(page: Page, id: string, why: string) {
  const at = await page
    .waitForFunction((wanted) => document.activeElement?.id === wanted, id, { timeout: 2000 })
    .then(() => id)
    .catch(() => page.evaluate(() => document.activeElement?.id ?? ''));
  assert.equal(at, id, why);
}

(skip ? describe.skip : describe)('the console pricing catalogue in Chromium', () => {
  beforeAll(async () => {
    ({ h, browser, saas } = await startConsoleBrowser());
  });
  afterAll(() => stopConsoleBrowser(h, browser));

  it('builds a plan from a metered unit and a tiered unit, and changes a unit’s type and tiers', async () => {
    const pricing = onApi(saas.client, 'pricing');
    const { context, page } = await signInConsole(browser, h, saas, { at: 'pricing' });
    await page.waitForSelector('#create-meter');

    // The metering units the units count.
    for (const [name, display, aggregate] of [
      ['api_calls', 'API calls', 'sum'],
      ['seats', 'Seats', 'max'],
    ] as const) {
      await page.fill('#create-meter-unit_name', name);
      await page.fill('#create-meter-display_name', display);
      await page.selectOption('#create-meter-aggregate_usage', aggregate);
      await page.click('#create-meter button[type=submit]');
      await page.waitForSelector(`#meters >> text=${name}`);
    }

    // A usage unit: an amount per count of a metering unit.
    await page.selectOption('#create-unit-type', 'usage');
    await page.fill('#create-unit-name', 'api_fee');
    await page.fill('#create-unit-display_name', 'API fee');
    await page.selectOption('#create-unit-metering_unit_name', 'api_calls');
    await page.fill('#create-unit-unit_amount', '3');
    await page.click('#create-unit button[type=submit]');
    await page.waitForSelector('#units >> text=api_fee');

    // A tiered unit: two rows to start with, the last one open; a third added by keyboard lands before it.
    await page.selectOption('#create-unit-type', 'tiered');
    await page.fill('#create-unit-name', 'seat_fee');
    await page.fill('#create-unit-display_name', 'Seat fee');
    await page.selectOption('#create-unit-metering_unit_name', 'seats');
    assert.equal(await page.locator('#create-unit-tiers fieldset.tier').count(), 2);
    assert.equal(await page.locator(tier('create-unit', 1, 'up_to')).count(), 0, 'the last tier has no bound');
    await page.fill(tier('create-unit', 0, 'up_to'), '10');
    await page.fill(tier('create-unit', 0, 'unit_amount'), '0');
    await page.fill(tier('create-unit', 0, 'flat_amount'), '1000');
    await page.focus('#create-unit-add-tier');
    await page.keyboard.press('Enter');
    await assertFocus(page, 'create-unit-tiers[1].up_to', 'focus moves to the new tier');
    await page.keyboard.type('5');
    await page.fill(tier('create-unit', 1, 'unit_amount'), '50');
    // The open tier's amount left empty: the API's schema check names tiers.2.unit_amount, shown at that field.
    await page.click('#create-unit button[type=submit]');
    await page.waitForSelector('[id="create-unit-tiers[2].unit_amount-error"]');
    await page.fill(tier('create-unit', 2, 'unit_amount'), '30');
    // 5 is not above 10: the catalogue's refusal names tiers[1].up_to, and it is shown there.
    await page.click('#create-unit button[type=submit]');
    await page.waitForSelector('[id="create-unit-tiers[1].up_to-error"]');
    assert.equal(await page.getAttribute(tier('create-unit', 1, 'up_to'), 'aria-invalid'), 'true');
    await page.fill(tier('create-unit', 1, 'up_to'), '100');
    // One more tier, then removed again by keyboard: focus goes back to "Add tier".
    await page.click('#create-unit-add-tier');
    assert.equal(await page.locator('#create-unit-tiers fieldset.tier').count(), 4);
    await page.focus('#create-unit-remove-tier-2');
    await page.keyboard.press('Enter');
    assert.equal(await page.locator('#create-unit-tiers fieldset.tier').count(), 3);
    await assertFocus(page, 'create-unit-add-tier', 'focus goes back to "Add tier"');
    await page.click('#create-unit button[type=submit]');
    await page.waitForSelector('#units >> text=seat_fee');
    await page.waitForSelector('#units >> text=Tiered');

    // A menu of both, a plan of the menu.
    await page.fill('#create-menu-name', 'metered_menu');
    await page.fill('#create-menu-display_name', 'Metered menu');
    await page.check('#create-menu-units >> text=API fee');
    await page.check('#create-menu-units >> text=Seat fee');
    await page.click('#create-menu button[type=submit]');
    await page.waitForSelector('#menus >> text=metered_menu');
    await page.fill('#create-plan-name', 'metered_plan');
    await page.fill('#create-plan-display_name', 'Metered plan');
    await page.check('#create-plan-menus >> text=Metered menu');
    await page.click('#create-plan button[type=submit]');
    await page.waitForSelector('#plans >> text=metered_plan');
    await axeClean(page, 'pricing-units', true);

    const units = (await pricing.get<{ units: Unit[] }>('/units')).body.units;
    const apiFee = units.find((u) => u.name === 'api_fee');
    const seatFee = units.find((u) => u.name === 'seat_fee');
    assert.ok(apiFee && seatFee);
    assert.deepEqual(
      [apiFee.type, apiFee.unit_amount, apiFee.metering_unit_name, apiFee.aggregate_usage, apiFee.upper_count],
      ['usage', 3, 'api_calls', 'sum', 0],
    );
    assert.deepEqual([seatFee.type, seatFee.metering_unit_name, seatFee.aggregate_usage], ['tiered', 'seats', 'max']);
    assert.deepEqual(seatFee.tiers, [
      { up_to: 10, unit_amount: 0, flat_amount: 1000, inf: false },
      { up_to: 100, unit_amount: 50, flat_amount: 0, inf: false },
      { up_to: 0, unit_amount: 30, flat_amount: 0, inf: true },
    ]);
    const plans = (await pricing.get<{ pricing_plans: { name: string; pricing_menus: { units: { id: string }[] }[] }[] }>('/plans')).body
      .pricing_plans;
    const plan = plans.find((p) => p.name === 'metered_plan');
    assert.deepEqual(plan?.pricing_menus.flatMap((m) => m.units.map((u) => u.id)).sort(), [apiFee.id, seatFee.id].sort());

    // The tiered unit becomes tiered usage, its last bounded tier removed: the open tier follows the first.
    await page.selectOption('#change-item-item', `unit:${seatFee.id}`);
    await page.waitForSelector(tier('change-item', 2, 'unit_amount'));
    assert.equal(await page.inputValue(tier('change-item', 1, 'up_to')), '100', 'the form shows the unit as stored');
    await page.selectOption('#change-item-type', 'tiered_usage');
    await page.click('#change-item-remove-tier-1');
    await page.fill(tier('change-item', 1, 'unit_amount'), '20');
    await page.click('#change-item button[type=submit]');
    await page.waitForSelector('#change-item .done');
    const changed = (await pricing.get<Unit>(`/units/${seatFee.id}`)).body;
    assert.equal(changed.type, 'tiered_usage');
    assert.deepEqual(changed.tiers, [
      { up_to: 10, unit_amount: 0, flat_amount: 1000, inf: false },
      { up_to: 0, unit_amount: 20, flat_amount: 0, inf: true },
    ]);
    await axeClean(page, 'pricing-change-unit', true);

    // A metering unit no unit counts: renamed, then deleted.
    await page.fill('#create-meter-unit_name', 'spare');
    await page.fill('#create-meter-display_name', 'Spare');
    await page.click('#create-meter button[type=submit]');
    await page.waitForSelector('#meters >> text=spare');
    const meters = async () =>
      (await pricing.get<{ units: { id: string; unit_name: string; display_name: string }[] }>('/metering/units')).body.units;
    const spare = (await meters()).find((m) => m.unit_name === 'spare');
    assert.ok(spare);
    await page.selectOption('#change-item-item', `meter:${spare.id}`);
    await page.fill('#change-item-display_name', 'Spare meter');
    await page.click('#change-item button[type=submit]');
    await page.waitForSelector('#change-item .done');
    assert.equal((await meters()).find((m) => m.id === spare.id)?.display_name, 'Spare meter');
    await page.click('#delete-item');
    await page.waitForSelector('#changes-heading ~ .done');
    assert.deepEqual((await meters()).map((m) => m.unit_name).sort(), ['api_calls', 'seats']);

    // In Japanese: the same form in the catalogue's words.
    await page.goto(consoleUrlOf(h, 'language?to=ja&back=pricing'));
    await page.waitForSelector('#create-unit-type');
    await page.selectOption('#create-unit-type', 'tiered');
    assert.equal(await page.textContent('#create-unit-tiers fieldset.tier legend'), '段階 1');
    assert.match((await page.textContent('#create-unit-tiers-1-open')) ?? '', /上限なし/);
    await axeClean(page, 'pricing-ja', true);
    await context.close();
  });
});
