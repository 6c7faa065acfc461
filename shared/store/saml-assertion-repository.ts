/** SAML assertions already used (replay protection), each kept until it could no longer be accepted. */
import type { DynamoClient } from './dynamo-client.js';
import { putIfAbsent } from './conditional.js';
import { ENTITY, keys, TTL_ATTRIBUTE } from './keys.js';

export class DynamoSamlAssertionRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  /** true the first time an assertion is presented; false ever after (until `expiresAt`, Unix seconds). */
  async claim(saasId: string, issuer: string, assertionId: string, expiresAt: number): Promise<boolean> {
    const item = { ...keys.usedSamlAssertion(saasId, issuer, assertionId), entity: ENTITY.usedSamlAssertion, v: 1, [TTL_ATTRIBUTE]: expiresAt };
    return (await putIfAbsent(this.db, this.table, item)) === 'created';
  }

  /** true the first time the screen's ticket for an assertion is used; false ever after (until `expiresAt`). */
  async claimTicket(saasId: string, issuer: string, assertionId: string, expiresAt: number): Promise<boolean> {
    const item = { ...keys.usedSamlTicket(saasId, issuer, assertionId), entity: ENTITY.usedSamlAssertion, v: 1, [TTL_ATTRIBUTE]: expiresAt };
    return (await putIfAbsent(this.db, this.table, item)) === 'created';
  }
}
