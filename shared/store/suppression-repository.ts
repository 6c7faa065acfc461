import { GetCommand, type DynamoClient } from './dynamo-client.js';
import type { MailSuppression, SuppressionRepository } from '../domain/mail/mail-suppression.js';
import { putIfAbsent } from './conditional.js';
import { ENTITY, keys, withoutKeys } from './keys.js';

export class DynamoSuppressionRepository implements SuppressionRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  async remember(suppression: MailSuppression): Promise<void> {
    const address = suppression.address.toLowerCase();
    await putIfAbsent(this.db, this.table, {
      ...keys.mailSuppression(suppression.saasId, address),
      entity: ENTITY.mailSuppression,
      v: 1,
      ...suppression,
      address,
    });
  }

  async find(saasId: string, address: string): Promise<MailSuppression | undefined> {
    const out = await this.db.send(new GetCommand({ TableName: this.table, Key: keys.mailSuppression(saasId, address) }));
    return out.Item ? withoutKeys<MailSuppression>(out.Item) : undefined;
  }
}
