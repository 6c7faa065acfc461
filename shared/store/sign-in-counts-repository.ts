import { COUNTED_KINDS, type CountedKind, type DayCounts, type SignInCountsRepository } from '../domain/users/sign-in-counts.js';
import { UpdateCommand, type DynamoClient } from './dynamo-client.js';
import { ENTITY, signInCountsKeys, TTL_ATTRIBUTE } from './keys.js';
import { collect, queryPages } from './query.js';
import { Update } from './update.js';

/** A SaaS's daily sign-in counts (keys.ts, signInCountsKeys), each kept `retentionSeconds` past its day. */
export class DynamoSignInCountsRepository implements SignInCountsRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
    private readonly retentionSeconds: number,
  ) {}

  async add(saasId: string, day: string, counts: Partial<Record<CountedKind, number>>): Promise<void> {
    const update = new Update().set('entity', ENTITY.signInCounts).set('v', 1).set('day', day);
    update.set(TTL_ATTRIBUTE, Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + 86_400 + this.retentionSeconds);
    let any = false;
    for (const kind of COUNTED_KINDS) {
      const count = counts[kind] ?? 0;
      if (count > 0) {
        update.add(kind, count);
        any = true;
      }
    }
    if (!any) return;
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: signInCountsKeys.day(saasId, day),
        UpdateExpression: update.expression(),
        ExpressionAttributeNames: update.names,
        ExpressionAttributeValues: update.values,
      }),
    );
  }

  async days(saasId: string, fromDay: string, toDay: string): Promise<DayCounts[]> {
    const { low, high } = signInCountsKeys.range(fromDay, toDay);
    const items = await collect(
      queryPages(this.db, {
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :low AND :high',
        ExpressionAttributeValues: { ':pk': signInCountsKeys.partition(saasId), ':low': low, ':high': high },
      }),
    );
    return items.map((item) => {
      const counts = Object.fromEntries(COUNTED_KINDS.map((kind) => [kind, Number(item[kind] ?? 0)])) as Record<CountedKind, number>;
      return { day: String(item.day), ...counts };
    });
  }
}
