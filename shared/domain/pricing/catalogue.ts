/**
 * A SaaS's pricing catalogue (docs/pricing.md): pricing units, metering units, menus (sets of units), plans
 * (sets of menus) and tax rates.
 *
 * Rules, each refusal naming its own:
 * - Tiers are what a billing system takes: ascending `up_to` bounds, exactly one open tier (`inf`) and it is
 *   the last, amounts within 0..MAX_AMOUNT.
 * - A menu names existing units, a plan existing menus; what a menu or plan names cannot be deleted.
 * - What a plan in use depends on is `used` (PATCH /plans/used marks a plan with its menus, units and metering
 *   units): used items cannot be deleted, and only their name, display name and description may change.
 *
 * Every item carries a revision. A write that depends on an item (a menu on its units, marking used) bumps
 * that item's revision under the condition that it is still the one read, so two writes that would together
 * break a rule cannot both commit: the later one re-reads and decides again.
 */
import { randomUUID } from 'node:crypto';
import { nowSeconds } from '../../clock.js';
import { DomainError, invalid } from '../../errors.js';
import type { RecurringInterval } from '../../schemas/pricing.js';
import { catalogueKinds, stillNamed, unknownItem, unknownMember, usedNotDeletable, type KindRules } from './catalogue-kinds.js';
import type { Catalogue, CatalogueKind, CatalogueKinds, CatalogueRepository, CatalogueWrite, RecordOf, Revised } from './catalogue-records.js';
import { View } from './catalogue-view.js';

const ATTEMPTS = 5;
/** DynamoDB's limit of items in one transaction. */
const TRANSACTION_ITEMS = 100;

const byCreation = <T extends Revised>(items: T[]) => [...items].sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id));

type Answer<K extends CatalogueKind> = CatalogueKinds[K]['answer'];
/** A list's answer: `{ units: [...] }`, `{ pricing_menus: [...] }`… */
type ListAnswer<K extends CatalogueKind> = { [P in CatalogueKinds[K]['list']]: Answer<K>[] };

/** The catalogue with the items `writes` create in it, for the answer of a create (a unit with its new metering unit). */
function withCreated(catalogue: Catalogue, writes: CatalogueWrite[]): Catalogue {
  const created = (kind: CatalogueKind) => writes.flatMap((w) => (w.op === 'create' && w.kind === kind ? [w.record] : []));
  return {
    units: [...catalogue.units, ...(created('unit') as Catalogue['units'])],
    meters: [...catalogue.meters, ...(created('meter') as Catalogue['meters'])],
    menus: [...catalogue.menus, ...(created('menu') as Catalogue['menus'])],
    plans: [...catalogue.plans, ...(created('plan') as Catalogue['plans'])],
    taxRates: [...catalogue.taxRates, ...(created('taxRate') as Catalogue['taxRates'])],
  };
}

/**
 * The Pricing API's catalogue: one list, read, create, update and delete for the five kinds, each kind's rules
 * in catalogue-kinds.ts; and what spans kinds (marking plans used, removing everything, what tenants ask).
 */
export class CatalogueService {
  private readonly kinds: { [K in CatalogueKind]: KindRules<K> };

  constructor(
    private readonly repository: CatalogueRepository,
    /** The most a function may answer (Lambda's 6 MB, counted as Lambda counts it: the body as a JSON string). */
    answerLimitBytes: number,
  ) {
    this.kinds = catalogueKinds(answerLimitBytes);
  }

  /** Reads, decides and commits, again from a fresh read when something changed in between. */
  private async change<T>(saasId: string, decide: (catalogue: Catalogue) => { writes: CatalogueWrite[]; result: T }): Promise<T> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const { writes, result } = decide(await this.repository.read(saasId));
      if (writes.length > TRANSACTION_ITEMS) {
        throw invalid('too_many_items', `this change touches ${writes.length} catalogue items; at most ${TRANSACTION_ITEMS} change together`);
      }
      if (writes.length === 0 || (await this.repository.commit(saasId, writes))) return result;
    }
    throw new DomainError('conflict', 'concurrent_update', 'the pricing catalogue changed at the same time; try again');
  }

  private find<K extends CatalogueKind>(catalogue: Catalogue, kind: K, id: string): RecordOf<K> {
    const rules: KindRules<K> = this.kinds[kind];
    const record = rules.records(catalogue).find((r) => r.id === id);
    if (!record) throw unknownItem(rules, id);
    return record;
  }

  /** Every item of a kind, oldest first. */
  async list<K extends CatalogueKind>(saasId: string, kind: K): Promise<ListAnswer<K>> {
    const rules: KindRules<K> = this.kinds[kind];
    const catalogue = await this.repository.read(saasId);
    const view = new View(catalogue);
    return { [rules.list]: byCreation(rules.records(catalogue)).map((record) => rules.answer(view, record)) } as ListAnswer<K>;
  }

  async get<K extends CatalogueKind>(saasId: string, kind: K, id: string): Promise<Answer<K>> {
    const catalogue = await this.repository.read(saasId);
    return this.kinds[kind].answer(new View(catalogue), this.find(catalogue, kind, id));
  }

  create<K extends CatalogueKind>(saasId: string, kind: K, input: CatalogueKinds[K]['create']): Promise<Answer<K>> {
    const rules: KindRules<K> = this.kinds[kind];
    const base = { id: randomUUID(), rev: 0, created_at: nowSeconds() };
    return this.change(saasId, (catalogue) => {
      const { record, writes } = rules.make(catalogue, input, base);
      const all: CatalogueWrite[] = [{ op: 'create', kind, record }, ...writes];
      return { writes: all, result: rules.answer(new View(withCreated(catalogue, all)), record) };
    });
  }

  update<K extends CatalogueKind>(saasId: string, kind: K, id: string, input: CatalogueKinds[K]['update']): Promise<void> {
    return this.change(saasId, (catalogue) => {
      const before = this.find(catalogue, kind, id);
      const { record, writes, previousKey } = this.kinds[kind].revise(catalogue, before, input);
      const own: CatalogueWrite = { op: 'replace', kind, record, fromRev: before.rev, ...(previousKey !== undefined ? { previousKey } : {}) };
      return { writes: [own, ...writes], result: undefined };
    });
  }

  /**
   * An item of an export (issue 39, docs/migration.md) under the id, creation time and use it had there, checked
   * as a create is: what it names must be here. `exists` (and nothing written) when an item has that id already.
   */
  importItem<K extends CatalogueKind>(
    saasId: string,
    kind: K,
    base: { id: string; created_at: number; used: boolean },
    input: CatalogueKinds[K]['create'],
  ): Promise<'created' | 'exists'> {
    return this.change(saasId, (catalogue): { writes: CatalogueWrite[]; result: 'created' | 'exists' } => {
      const rules: KindRules<K> = this.kinds[kind];
      if (rules.records(catalogue).some((r) => r.id === base.id)) return { writes: [], result: 'exists' };
      const made = rules.make(catalogue, input, { id: base.id, rev: 0, created_at: base.created_at });
      // A used item arrives used (a tax rate has no such mark): its billing stays fixed here as there.
      const record = 'used' in made.record ? { ...made.record, used: base.used } : made.record;
      return { writes: [{ op: 'create', kind, record }, ...made.writes], result: 'created' };
    });
  }

  /** The whole catalogue as stored, for the export. */
  records(saasId: string): Promise<Catalogue> {
    return this.repository.read(saasId);
  }

  /** Deletes an item that is not used and that nothing names. */
  delete<K extends CatalogueKind>(saasId: string, kind: K, id: string): Promise<void> {
    return this.change(saasId, (catalogue) => {
      const rules: KindRules<K> = this.kinds[kind];
      const record = this.find(catalogue, kind, id);
      if ('used' in record && record.used) throw usedNotDeletable(rules.what, id);
      const by = rules.namedBy?.(catalogue, id);
      if (by) throw stillNamed(rules.what, id, by.by, by.id);
      return { writes: [{ op: 'remove', kind, record, fromRev: record.rev }], result: undefined };
    });
  }

  /** PATCH /plans/used: the plans, their menus, their units and those units' metering units become used. */
  markUsed(saasId: string, planIds: string[]): Promise<void> {
    return this.change(saasId, (catalogue) => {
      const writes = new Map<string, CatalogueWrite>();
      const mark = (kind: CatalogueKind, record: RecordOf<CatalogueKind> & { used: boolean }) => {
        // Already used ones still move their revision: what they name must not change meanwhile.
        writes.set(`${kind}#${record.id}`, { op: 'bump', kind, record, fromRev: record.rev, markUsed: true });
      };
      [...new Set(planIds)].forEach((planId, i) => {
        const plan = catalogue.plans.find((p) => p.id === planId);
        if (!plan) throw unknownMember(this.kinds.plan, `plan_ids[${i}]`, planId);
        mark('plan', plan);
        for (const menu of catalogue.menus.filter((m) => plan.menu_ids.includes(m.id))) {
          mark('menu', menu);
          for (const unit of catalogue.units.filter((u) => menu.unit_ids.includes(u.id))) {
            mark('unit', unit);
            const meter = catalogue.meters.find((m) => m.id === unit.metering_unit_id);
            if (meter) mark('meter', meter);
          }
        }
      });
      return { writes: [...writes.values()], result: undefined };
    });
  }

  /**
   * DELETE /plans-initialization: the whole catalogue goes, unconditionally, as the definition says. Tenants are
   * not touched: a plan id, a plan history or a reservation naming a plan now gone stays as it was, and is read
   * as a plan id from before the catalogue (docs/pricing.md, "Removing the catalogue"). Metering counts stay,
   * under their unit names.
   */
  async deleteAll(saasId: string): Promise<void> {
    await this.repository.clear(saasId);
  }

  /** Whether a plan exists; `no_catalogue` while the SaaS has no plan at all (docs/pricing.md). */
  async planStatus(saasId: string, planId: string): Promise<'exists' | 'missing' | 'no_catalogue'> {
    const { plans } = await this.repository.read(saasId);
    if (plans.length === 0) return 'no_catalogue';
    return plans.some((p) => p.id === planId) ? 'exists' : 'missing';
  }

  /** Whether a tax rate exists; `no_catalogue` while the SaaS has no tax rate at all. */
  async taxRateStatus(saasId: string, taxRateId: string): Promise<'exists' | 'missing' | 'no_catalogue'> {
    const { taxRates } = await this.repository.read(saasId);
    if (taxRates.length === 0) return 'no_catalogue';
    return taxRates.some((r) => r.id === taxRateId) ? 'exists' : 'missing';
  }

  /**
   * The billing interval of a plan: a year when every pricing unit of its menus is yearly, else a month (also for
   * a plan without units); undefined for a plan the catalogue does not have (plans set before it existed).
   */
  async planInterval(saasId: string, planId: string): Promise<RecurringInterval | undefined> {
    const catalogue = await this.repository.read(saasId);
    const plan = catalogue.plans.find((p) => p.id === planId);
    if (!plan) return undefined;
    const unitIds = new Set(catalogue.menus.filter((m) => plan.menu_ids.includes(m.id)).flatMap((m) => m.unit_ids));
    const units = catalogue.units.filter((u) => unitIds.has(u.id));
    return units.length > 0 && units.every((u) => u.recurring_interval === 'year') ? 'year' : 'month';
  }
}
