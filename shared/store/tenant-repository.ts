import { DeleteCommand, GetCommand, UpdateCommand, type DynamoClient } from './dynamo-client.js';
import { atomicWrite, RULE, type AtomicWrite } from '../domain/atomic.js';
import type { PlanChange, Reservation, TenantPatch, TenantRecord, TenantRepository } from '../domain/tenants/tenants.js';
import type { PlanHistory } from '../schemas/tenants.js';
import { batchDeleteWithMirrors, batchGet } from './batch.js';
import { putIfAbsent, unlessConditionFails } from './conditional.js';
import { ENTITY, keys, withoutKeys, type ItemKey } from './keys.js';
import { partitionQuery, queryAll, queryIndexAll, queryPages } from './query.js';
import { both, EXISTS, LIVE, putNew, updateRequest, type Condition } from './transact.js';
import { Update } from './update.js';

const RESET_PAGE = 50;

function toRecord(item: Record<string, unknown>): TenantRecord {
  const { deleting: _deleting, ...record } = withoutKeys<TenantRecord & { deleting?: boolean }>(item);
  return record;
}

export class DynamoTenantRepository implements TenantRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  private item(saasId: string, tenant: TenantRecord) {
    return { ...keys.tenant(saasId, tenant.id), entity: ENTITY.tenant, v: 1, ...tenant };
  }

  async create(saasId: string, tenant: TenantRecord): Promise<void> {
    const outcome = await putIfAbsent(this.db, this.table, this.item(saasId, tenant));
    if (outcome === 'exists') throw new Error(`tenant id ${tenant.id} collided`);
  }

  createWrite(saasId: string, tenant: TenantRecord): AtomicWrite {
    return atomicWrite(putNew(this.table, this.item(saasId, tenant), RULE.newItem));
  }

  async get(saasId: string, tenantId: string): Promise<TenantRecord | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.tenant(saasId, tenantId), ConsistentRead: true }));
    return out.Item && !out.Item.deleting ? toRecord(out.Item) : undefined;
  }

  async liveIds(saasId: string, tenantIds: readonly string[]): Promise<Set<string>> {
    const items = await batchGet(
      this.db,
      this.table,
      [...new Set(tenantIds)].map((id) => keys.tenant(saasId, id)),
    );
    return new Set(items.filter((item) => !item.deleting).map((item) => item.id as string));
  }

  async list(saasId: string): Promise<TenantRecord[]> {
    const items = await queryAll(this.db, this.table, keys.tenants(saasId));
    return items
      .filter((item) => !item.deleting)
      .map(toRecord)
      .sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id));
  }

  /** A tenant being deleted is invisible and takes no writes: every change but hiding and resetting holds LIVE. */
  private update(key: ItemKey, update: Update, condition: Condition): Promise<boolean> {
    return unlessConditionFails(() => this.db.send(new UpdateCommand(updateRequest(this.table, key, update, condition))));
  }

  patch(saasId: string, tenantId: string, patch: TenantPatch): Promise<boolean> {
    const update = new Update();
    for (const [field, value] of Object.entries(patch)) {
      if (value === null) update.remove(field);
      else if (value !== undefined) update.set(field, value);
    }
    return this.update(keys.tenant(saasId, tenantId), update, LIVE);
  }

  private withPlan(update: Update, plan_id: string, history: PlanHistory): Update {
    return update
      .set('plan_id', plan_id)
      .set('plan_histories', [history], 'list_append(if_not_exists(#self, :empty), :v)')
      .set('rev', 1, '#self + :v');
  }

  changePlan(saasId: string, tenantId: string, expectedRev: number, change: PlanChange): Promise<boolean> {
    const update = new Update();
    if (change.plan_id && change.history) this.withPlan(update, change.plan_id, change.history);
    else update.set('rev', 1, '#self + :v');
    if (change.reservation) {
      const index = keys.planReservation(saasId, tenantId, change.reservation.using_next_plan_from);
      update.set('reservation', change.reservation).set('gsi1pk', index.gsi1pk).set('gsi1sk', index.gsi1sk);
    } else {
      update.remove('reservation').remove('gsi1pk').remove('gsi1sk');
    }
    const atRevision: Condition = { expression: '#rev = :expectedRev', names: { '#rev': 'rev' }, values: { ':expectedRev': expectedRev } };
    return this.update(keys.tenant(saasId, tenantId), update, both(LIVE, atRevision));
  }

  applyReservation(saasId: string, tenantId: string, reservation: Reservation, history: PlanHistory): Promise<boolean> {
    const update = this.withPlan(new Update(), reservation.next_plan_id, history).remove('reservation').remove('gsi1pk').remove('gsi1sk');
    const stillPending: Condition = {
      expression: '#reservation.next_plan_id = :pendingPlan AND #reservation.using_next_plan_from = :pendingFrom',
      names: { '#reservation': 'reservation' },
      values: { ':pendingPlan': reservation.next_plan_id, ':pendingFrom': reservation.using_next_plan_from },
    };
    return this.update(keys.tenant(saasId, tenantId), update, both(LIVE, stillPending));
  }

  async dueReservations(saasId: string, now: number): Promise<{ tenantId: string; reservation: Reservation }[]> {
    const items = await queryIndexAll(this.db, this.table, keys.dueReservations(saasId, now));
    return items
      .filter((item) => item.reservation && !item.deleting)
      .map((item) => ({ tenantId: item.id as string, reservation: item.reservation as Reservation }));
  }

  /**
   * Hide first, so nothing new joins a tenant that is going; then empty its partition (and the mirrors its
   * items name); the tenant item goes last, so an interrupted delete is finished by the next one.
   */
  async delete(saasId: string, tenantId: string): Promise<boolean> {
    const key = keys.tenant(saasId, tenantId);
    const hidden = await this.update(key, new Update().set('deleting', true).remove('gsi1pk').remove('gsi1sk'), EXISTS);
    if (!hidden) return false;
    await batchDeleteWithMirrors(this.db, this.table, await queryAll(this.db, this.table, keys.tenantContents(saasId, tenantId)));
    await this.db.send(new DeleteCommand({ TableName: this.table, Key: key }));
    return true;
  }

  /** A page at a time, each tenant one idempotent update: an interrupted reset is finished by running it again. */
  async resetPlans(saasId: string): Promise<number> {
    let cleared = 0;
    for await (const page of queryPages(this.db, { ...partitionQuery(this.table, keys.tenants(saasId)), Limit: RESET_PAGE })) {
      const withPlans = page.filter(
        (item) =>
          item.plan_id !== undefined ||
          item.reservation !== undefined ||
          item.payment_customer !== undefined ||
          ((item.plan_histories as unknown[] | undefined)?.length ?? 0) > 0,
      );
      const results = await Promise.all(
        withPlans.map((item) =>
          this.update(
            { pk: item.pk as string, sk: item.sk as string },
            new Update()
              .set('plan_histories', [])
              .set('rev', 1, '#self + :v')
              .remove('plan_id')
              .remove('reservation')
              .remove('payment_customer')
              .remove('gsi1pk')
              .remove('gsi1sk'),
            EXISTS,
          ),
        ),
      );
      cleared += results.filter(Boolean).length;
    }
    return cleared;
  }
}
