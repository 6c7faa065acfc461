/**
 * Invitations in their tenant's partition (Delete Tenant takes them, and their pointers as `mirror`s), and
 * one pointer item per invitation naming its tenant, for Validate Invitation, whose path has no tenant id.
 * Both carry the TTL attribute at the invitation's `remove_at`; reads check it too.
 */
import { GetCommand, UpdateCommand, type DynamoClient } from './dynamo-client.js';
import { atomicWrite, RULE, type AtomicWrite } from '../domain/atomic.js';
import { INVITATION_RULE, type InvitationLookup, type InvitationRecord, type InvitationRepository } from '../domain/tenants/invitations.js';
import type { CountedMail } from '../domain/mail/mail.js';
import type { VerificationCode } from '../domain/users/verification-codes.js';
import { unlessConditionFails } from './conditional.js';
import { ENTITY, keys, TTL_ATTRIBUTE, withoutKeys, type ItemKey } from './keys.js';
import { mailWrites } from './outbox-repository.js';
import { queryAll } from './query.js';
import { both, check, EXISTS, LIVE, putNew, remove, update, updateRequest, type Condition } from './transact.js';
import { Update } from './update.js';

/** Still pending, and `now` before it expires. */
const pendingAt = (now: number): Condition => ({
  expression: '#status = :pending AND #expiredAt > :now',
  names: { '#status': 'status', '#expiredAt': 'expired_at' },
  values: { ':pending': 'pending', ':now': now },
});

function toRecord(item: Record<string, unknown>): InvitationRecord {
  const { mirror: _mirror, [TTL_ATTRIBUTE]: _ttl, ...record } = withoutKeys<InvitationRecord & { mirror: ItemKey; [TTL_ATTRIBUTE]: number }>(item);
  return record;
}

export class DynamoInvitationRepository implements InvitationRepository {
  constructor(
    private readonly db: DynamoClient,
    private readonly table: string,
  ) {}

  private async item(key: ItemKey): Promise<Record<string, unknown> | undefined> {
    return (await this.db.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }))).Item;
  }

  createWrite(saasId: string, invitation: InvitationRecord, mail: CountedMail): AtomicWrite {
    const { tenant_id: tenantId, inviter_id: inviterId } = invitation;
    return atomicWrite(
      check(this.table, keys.tenant(saasId, tenantId), LIVE, RULE.tenantLive),
      check(this.table, keys.membership(saasId, tenantId, inviterId), EXISTS, INVITATION_RULE.inviterMember),
      ...this.newInvitation(saasId, invitation),
      ...mailWrites(this.table, mail),
    );
  }

  importWrite(saasId: string, invitation: InvitationRecord): AtomicWrite {
    // No mail (it was mailed by the old stack) and no check of the inviter: the member who invited may have left since.
    return atomicWrite(
      check(this.table, keys.tenant(saasId, invitation.tenant_id), LIVE, RULE.tenantLive),
      ...this.newInvitation(saasId, invitation),
    );
  }

  /** The invitation and its pointer, both new. */
  private newInvitation(saasId: string, invitation: InvitationRecord) {
    const { id, tenant_id: tenantId, remove_at: removeAt } = invitation;
    const pointer = keys.invitationPointer(saasId, id);
    return [
      putNew(
        this.table,
        { ...keys.invitation(saasId, tenantId, id), entity: ENTITY.invitation, v: 1, ...invitation, mirror: pointer, [TTL_ATTRIBUTE]: removeAt },
        RULE.newItem,
      ),
      putNew(
        this.table,
        { ...pointer, entity: ENTITY.invitationPointer, v: 1, tenant_id: tenantId, remove_at: removeAt, [TTL_ATTRIBUTE]: removeAt },
        RULE.newItem,
      ),
    ];
  }

  async get(saasId: string, tenantId: string, invitationId: string): Promise<InvitationRecord | undefined> {
    const item = await this.item(keys.invitation(saasId, tenantId, invitationId));
    return item ? toRecord(item) : undefined;
  }

  async list(saasId: string, tenantId: string): Promise<InvitationRecord[]> {
    return (await queryAll(this.db, this.table, keys.tenantInvitations(saasId, tenantId))).map(toRecord);
  }

  async find(saasId: string, invitationId: string, now: number): Promise<InvitationLookup> {
    const pointer = await this.item(keys.invitationPointer(saasId, invitationId));
    if (!pointer || (pointer.remove_at as number) <= now) return { state: 'missing' };
    if (pointer.deleted) return { state: 'deleted' };
    const invitation = await this.get(saasId, pointer.tenant_id as string, invitationId);
    return invitation && invitation.remove_at > now ? { state: 'found', invitation } : { state: 'missing' };
  }

  deleteWrite(saasId: string, tenantId: string, invitationId: string): AtomicWrite {
    return atomicWrite(
      remove(this.table, keys.invitation(saasId, tenantId, invitationId), EXISTS, INVITATION_RULE.invitationExists),
      update(this.table, keys.invitationPointer(saasId, invitationId), new Update().set('deleted', true), EXISTS, INVITATION_RULE.invitationExists),
    );
  }

  acceptWrite(saasId: string, invitation: InvitationRecord, userId: string, now: number): AtomicWrite {
    const change = new Update().set('status', 'accepted').set('accepted_at', now).set('accepted_user_id', userId).remove('join_code');
    const key = keys.invitation(saasId, invitation.tenant_id, invitation.id);
    return atomicWrite(update(this.table, key, change, both(EXISTS, pendingAt(now)), INVITATION_RULE.invitationPending));
  }

  joinCodeWrite(saasId: string, invitation: InvitationRecord, code: VerificationCode, mail: CountedMail, now: number): AtomicWrite {
    const key = keys.invitation(saasId, invitation.tenant_id, invitation.id);
    return atomicWrite(
      update(this.table, key, new Update().set('join_code', code), both(EXISTS, pendingAt(now)), INVITATION_RULE.invitationPending),
      ...mailWrites(this.table, mail),
    );
  }

  spendJoinCodeAttempt(saasId: string, invitation: InvitationRecord, code: VerificationCode, maxAttempts: number): Promise<boolean> {
    const key = keys.invitation(saasId, invitation.tenant_id, invitation.id);
    const sameAndLeft: Condition = {
      expression: '#code.#digest = :digest AND #code.#attempts < :max',
      names: { '#code': 'join_code', '#digest': 'digest', '#attempts': 'attempts' },
      values: { ':digest': code.digest, ':max': maxAttempts },
    };
    const change = new Update().add(['join_code', 'attempts'], 1);
    return unlessConditionFails(() => this.db.send(new UpdateCommand(updateRequest(this.table, key, change, sameAndLeft))));
  }
}
