/**
 * What must hold once the load and the faults are over, read from the whole table (a strongly consistent
 * scan) and from the SES stand-in's store: the rules the service keeps with transactions and conditions,
 * and everything the service acknowledged to the load (model), present.
 */
import { ScanCommand } from '../../shared/store/dynamo-client.js';
import { lockSeconds } from '../../shared/domain/sign-in/sign-in-lockout.js';
import { dynamo, tableName } from '../../shared/wiring.js';
import { ENTITY, keys, type ItemKey } from '../../shared/store/keys.js';
import { directorySources, layoutOf } from '../../shared/store/directory-shards.js';
import { ENV_ID } from '../../bench/fixtures.js';
import type { ExpectedMail, Model } from './load.js';

type Item = Record<string, unknown>;

/** A rule and what broke it (nothing when it holds). */
export interface Check {
  name: string;
  problems: string[];
  /** What was looked at, for the summary. */
  looked: string;
}

export async function scanTable(): Promise<Item[]> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(new ScanCommand({ TableName: tableName(), ConsistentRead: true, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

const byEntity = (items: Item[], entity: string) => items.filter((item) => item.entity === entity);
const keyOf = (item: Item | ItemKey) => `${item.pk as string}|${item.sk as string}`;
const sameData = (a: Item, b: Item) =>
  JSON.stringify(a.attributes ?? {}) === JSON.stringify(b.attributes ?? {}) &&
  JSON.stringify([...((a.roles as Set<string> | undefined) ?? [])].sort()) ===
    JSON.stringify([...((b.roles as Set<string> | undefined) ?? [])].sort());

/** Every rule over the table, and the model's acknowledged changes against it. */
export function tableChecks(items: Item[], saasId: string, model: Model): Check[] {
  const byKey = new Map(items.map((item) => [keyOf(item), item]));
  const profiles = byEntity(items, ENTITY.user);
  const liveProfiles = profiles.filter((p) => !p.deleting);
  const owners = byEntity(items, ENTITY.loginOwner);
  const tenants = new Map(byEntity(items, ENTITY.tenant).map((t) => [t.id as string, t]));
  const roles = new Set(byEntity(items, ENTITY.role).map((r) => r.role_name as string));
  const envs = new Set(byEntity(items, ENTITY.env).map((e) => e.id as number));
  const memberships = byEntity(items, ENTITY.membership);
  const userMemberships = byEntity(items, ENTITY.userMembership);
  const profileOf = new Map(liveProfiles.map((p) => [p.id as string, p]));

  // One owner item per sign-in name, naming a live profile that has that name; one name per profile.
  const names: string[] = [];
  const ownerPrefix = `SAAS#${saasId}#LOGIN#`;
  const ownersByUser = new Map<string, string[]>();
  for (const owner of owners) {
    const name = String(owner.pk).slice(ownerPrefix.length);
    const user = profileOf.get(owner.user_id as string);
    if (!user) names.push(`owner of ${name} names ${owner.user_id as string}, who is not a live user`);
    else if (user.loginKey !== name) names.push(`owner of ${name} names ${user.id as string}, whose name is ${user.loginKey as string}`);
    ownersByUser.set(owner.user_id as string, [...(ownersByUser.get(owner.user_id as string) ?? []), name]);
  }
  for (const profile of liveProfiles) {
    const held = ownersByUser.get(profile.id as string) ?? [];
    if (held.length !== 1 || held[0] !== profile.loginKey)
      names.push(`user ${profile.id as string} (${profile.loginKey as string}) owns ${held.join(', ') || 'no name'}`);
  }
  const seen = new Map<string, string>();
  for (const profile of liveProfiles) {
    const email = String(profile.email ?? '')
      .trim()
      .toLowerCase();
    if (!email) continue;
    const other = seen.get(email);
    if (other) names.push(`${email} is the address of ${other} and ${profile.id as string}`);
    seen.set(email, profile.id as string);
  }

  // Every live user is in the directory once, under its name: on its shard, or still on the key entries leave. The
  // item the SaaS's reads take is the user's entry, holding what the profile does, or (a SaaS made before entries,
  // until it is moved onto them) the profile itself.
  const directory: string[] = [];
  const layout = layoutOf(byKey.get(keyOf(keys.saas(saasId))));
  const [unsharded] = directorySources(saasId, layout);
  for (const profile of liveProfiles) {
    const id = profile.id as string;
    const listed = layout.entries ? byKey.get(keyOf(keys.userDirectoryItem(saasId, id))) : profile;
    if (!listed) {
      directory.push(`user ${id}: no directory entry`);
      continue;
    }
    if (listed.gsi1sk !== `${profile.loginKey as string} ${id}`) directory.push(`user ${id}: directory entry ${String(listed.gsi1sk)}`);
    if (listed.gsi1pk !== keys.userDirectoryShard(saasId, id, layout.shards) && listed.gsi1pk !== unsharded)
      directory.push(`user ${id}: directory key ${String(listed.gsi1pk)}`);
    if (listed !== profile && (listed.email !== profile.email || listed.sign_in_id !== profile.sign_in_id || !sameData(listed, profile)))
      directory.push(`user ${id}: the entry's names or attributes differ from the profile's`);
  }

  // A membership is two items that name each other, hold the same data, of a live user and tenant, with roles that exist.
  const pairs: string[] = [];
  for (const side of [...memberships, ...userMemberships]) {
    const mirror = side.mirror as { pk: string; sk: string } | undefined;
    const other = mirror ? byKey.get(`${mirror.pk}|${mirror.sk}`) : undefined;
    const label = `${side.entity as string} ${side.user_id as string} in ${side.tenant_id as string}`;
    const back = other?.mirror as { pk: string; sk: string } | undefined;
    if (!other) pairs.push(`${label} has no mirror`);
    else if (!back || `${back.pk}|${back.sk}` !== keyOf(side)) pairs.push(`${label}: its mirror does not name it back`);
    else if (!sameData(side, other)) pairs.push(`${label} differs from its mirror`);
    if (side.entity === ENTITY.membership) {
      if (!profileOf.has(side.user_id as string)) pairs.push(`${label}: the user is not live`);
      const tenant = tenants.get(side.tenant_id as string);
      if (!tenant || tenant.deleting) pairs.push(`${label}: the tenant is not live`);
      for (const role of (side.roles as Set<string> | undefined) ?? []) {
        const [env, name] = role.split('#');
        if (!envs.has(Number(env)) || !roles.has(name as string)) pairs.push(`${label}: role ${role} names no env or role`);
      }
    }
  }

  // A tenant's plan is the last entry of its history; no plan, no history.
  const plans: string[] = [];
  for (const tenant of tenants.values()) {
    const history = (tenant.plan_histories as { plan_id: string }[] | undefined) ?? [];
    const last = history.at(-1)?.plan_id;
    if ((tenant.plan_id as string | undefined) !== last)
      plans.push(`tenant ${tenant.id as string}: plan ${String(tenant.plan_id)}, last history entry ${String(last)}`);
  }
  for (const [tenantId, record] of model.plans) {
    const history = ((tenants.get(tenantId)?.plan_histories as unknown[] | undefined) ?? []).length;
    if (history < record.acknowledged || history > record.attempted) {
      plans.push(`tenant ${tenantId}: ${history} history entries for ${record.acknowledged} acknowledged of ${record.attempted} changes sent`);
    }
    if (record.attempted === record.acknowledged && tenants.get(tenantId)?.plan_id !== record.lastAcknowledged) {
      plans.push(`tenant ${tenantId}: plan ${String(tenants.get(tenantId)?.plan_id)}, last acknowledged ${String(record.lastAcknowledged)}`);
    }
  }

  // An accepted invitation is a membership of the accepting user with the invited roles; each invitation has its pointer.
  const invitations: string[] = [];
  const invitationItems = byEntity(items, ENTITY.invitation);
  for (const invitation of invitationItems) {
    const pointer = byKey.get(keyOf(keys.invitationPointer(saasId, invitation.id as string)));
    if (!pointer || pointer.tenant_id !== invitation.tenant_id)
      invitations.push(`invitation ${invitation.id as string} has no pointer to its tenant`);
    if (invitation.status !== 'accepted') continue;
    const member = byKey.get(keyOf(keys.membership(saasId, invitation.tenant_id as string, invitation.accepted_user_id as string)));
    if (!member) invitations.push(`invitation ${invitation.id as string} is accepted, but ${invitation.accepted_user_id as string} is no member`);
    else if (!((member.roles as Set<string> | undefined) ?? new Set()).has(`${ENV_ID}#viewer`)) {
      invitations.push(`invitation ${invitation.id as string} is accepted without the invited role`);
    }
  }

  // Everything the service acknowledged is there, as acknowledged; what it deleted is gone.
  const lost: string[] = [];
  for (const user of model.liveUsers.values()) {
    const profile = profileOf.get(user.id);
    if (!profile) {
      lost.push(`user ${user.id} (${user.email}) was created and never deleted, but is missing`);
      continue;
    }
    if (String(profile.email).toLowerCase() !== user.email.toLowerCase())
      lost.push(`user ${user.id}: e-mail ${String(profile.email)}, acknowledged ${user.email}`);
    for (const [tenantId, { viewer }] of user.memberships) {
      const member = byKey.get(keyOf(keys.membership(saasId, tenantId, user.id)));
      if (!member) lost.push(`user ${user.id}: membership of ${tenantId} missing`);
      else if (((member.roles as Set<string> | undefined) ?? new Set()).has(`${ENV_ID}#viewer`) !== viewer) {
        lost.push(`user ${user.id} in ${tenantId}: role viewer ${viewer ? 'missing' : 'still there'}`);
      }
    }
    const extra = userMemberships.filter((m) => m.user_id === user.id && !user.memberships.has(m.tenant_id as string));
    for (const m of extra) lost.push(`user ${user.id}: still a member of ${m.tenant_id as string}, which was left`);
  }
  for (const [userId, email] of model.deletedUsers) {
    const partition = keys.userContents(saasId, userId).pk;
    const left = items.filter((item) => item.pk === partition || item.user_id === userId);
    if (left.length > 0) lost.push(`user ${userId} (${email}) was deleted, but ${left.length} of its items remain`);
  }
  for (const accepted of model.acceptedInvitations) {
    const userId = byKey.get(keyOf(keys.loginOwner(saasId, { kind: 'email', value: accepted.email.toLowerCase() })))?.user_id as string | undefined;
    if (!userId || !byKey.has(keyOf(keys.membership(saasId, accepted.tenantId, userId)))) {
      lost.push(`invitation ${accepted.id} was accepted by ${accepted.email}, who is no member of ${accepted.tenantId}`);
    }
  }

  return [
    {
      name: 'unique sign-in names (one owner item per name, one user per owner, one address per user)',
      problems: names,
      looked: `${liveProfiles.length} users, ${owners.length} owner items`,
    },
    {
      name: 'every live user in the user directory, on its shard, under its name',
      problems: directory,
      looked: `${liveProfiles.length} users`,
    },
    {
      name: 'no user left half deleted',
      problems: profiles.filter((p) => p.deleting).map((p) => `user ${p.id as string} is hidden (deleting) but not gone`),
      looked: `${profiles.length} profiles`,
    },
    {
      name: 'memberships: both sides, same roles, live user and tenant, existing roles',
      problems: pairs,
      looked: `${memberships.length} memberships, ${userMemberships.length} user sides`,
    },
    { name: 'plan histories consistent with plan ids', problems: plans, looked: `${tenants.size} tenants` },
    {
      name: 'invitations: each with its pointer; accepted ⇒ membership with the invited role',
      problems: invitations,
      looked: `${invitationItems.length} invitations`,
    },
    {
      name: 'nothing acknowledged lost, nothing deleted left',
      problems: lost,
      looked:
        `${model.liveUsers.size} users, ${model.deletedUsers.size} deleted, ${model.acceptedInvitations.length} accepted invitations ` +
        `(${model.uncertainUsers.size} users left the model: a write on them was answered otherwise than due)`,
    },
  ];
}

interface StoredMail {
  messageId: string;
  destination: { to: string[] };
  subject: string;
  body: { text?: string; html?: string };
}

export interface SesOutage {
  seconds: number;
  /** Sends SES refused while it was failing. */
  sendsRefused: number;
}

/** Every outbox mail sent exactly once, nothing sent that the outbox does not account for, every acknowledged change's mail there. */
export async function mailChecks(items: Item[], sesUrl: string, model: Model, outage: SesOutage): Promise<Check[]> {
  const outbox = byEntity(items, ENTITY.outbox);
  const store = ((await (await fetch(`${sesUrl}/store`)).json()) as { emails: StoredMail[] }).emails;
  const sentIds = new Map<string, number>();
  for (const mail of store) sentIds.set(mail.messageId, (sentIds.get(mail.messageId) ?? 0) + 1);

  const delivery: string[] = [];
  const recorded = new Set<string>();
  for (const mail of outbox) {
    if (mail.status !== 'sent') {
      delivery.push(
        `mail ${mail.id as string} (${mail.template as string}) is ${mail.status as string}${mail.lastError ? `: ${mail.lastError as string}` : ''}`,
      );
      continue;
    }
    recorded.add(mail.messageId as string);
    const copies = sentIds.get(mail.messageId as string) ?? 0;
    if (copies !== 1) delivery.push(`mail ${mail.id as string} recorded as sent (${mail.messageId as string}) reached SES ${copies} times`);
  }
  const strays = store.filter((mail) => !recorded.has(mail.messageId));
  for (const mail of strays)
    delivery.push(`SES received "${mail.subject}" to ${mail.destination.to.join(', ')} that no outbox mail records (sent twice?)`);

  const expected: string[] = [];
  const groups = new Map<string, { count: number; possible: number; holds: string[] }>();
  const groupOf = (mail: ExpectedMail) => {
    const key = `${mail.to.toLowerCase()}|${mail.subject}`;
    const found = groups.get(key) ?? { count: 0, possible: 0, holds: [] };
    groups.set(key, found);
    return found;
  };
  for (const mail of model.expectedMails) {
    const found = groupOf(mail);
    found.count++;
    if (mail.holds) found.holds.push(mail.holds);
  }
  for (const mail of model.possibleMails) groupOf(mail).possible++;
  for (const [key, group] of groups) {
    const [to, subject] = key.split('|') as [string, string];
    const received = store.filter((mail) => mail.subject === subject && mail.destination.to.some((address) => address.toLowerCase() === to));
    if (received.length < group.count || received.length > group.count + group.possible) {
      expected.push(
        `${to}: ${received.length} × "${subject}", ${group.count} expected${group.possible ? ` (and up to ${group.possible} more)` : ''}`,
      );
    }
    for (const holds of group.holds) {
      if (!received.some((mail) => (mail.body.text ?? '').includes(holds))) expected.push(`${to}: no "${subject}" holds ${holds}`);
    }
  }
  return [
    {
      name: 'mail: every outbox mail sent once, nothing sent twice',
      problems: delivery,
      looked: `${outbox.length} outbox mails, ${store.length} mails received by SES; ${outage.sendsRefused} sends refused during its ${outage.seconds} s outage`,
    },
    {
      name: "mail: every acknowledged change's mail received, with its content",
      problems: expected,
      looked: `${model.expectedMails.length} mails expected, ${model.possibleMails.length} more possible (changes answered otherwise than due)`,
    },
  ];
}

/**
 * The most proofs the lockout lets through in `seconds`: the free attempts at once, then one each time a
 * lock ends. Locks are whole seconds counted from a floored clock, so one may end up to a second early.
 */
export function allowedAttempts(seconds: number): number {
  let attempts = 0;
  let at = 0;
  for (;;) {
    attempts++;
    const wait = Math.max(0, lockSeconds(attempts) - 1);
    if (at + wait > seconds) return attempts;
    at += wait;
  }
}
