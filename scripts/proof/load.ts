/**
 * The proof's load: workers that each loop over a weighted mix of sign-ins, refreshes, management reads
 * and writes, recording every answer (status, time, whether an error has the spec's shape), and a model of
 * what the service acknowledged: users and their e-mail addresses, memberships and roles, plan changes,
 * accepted invitations, the mails those changes must cause. The checks compare the model with the table.
 *
 * Each user or tenant a write touches is taken out of the pool while the write runs, so two workers never
 * race on one entity and every answer has one right status. A write answered otherwise (5xx, none at all, or
 * a 4xx while the network to the store was being cut) may or may not have happened: its entity leaves the
 * model (the table-wide invariants still cover it), and a delete answered so is sent again later, as a
 * client would.
 */
import { randomUUID } from 'node:crypto';
import type { SignedClient, SignedResponse } from '../../client/signed-fetch.js';
import { DEFAULT_TEMPLATES } from '../../shared/domain/mail/default-templates.js';
import type { TemplateName } from '../../shared/schemas/configuration.js';
import { isErrorBody } from '../../dev-support/route-requests.js';
import { answerChallenge, startSignIn } from '../../dev-support/sign-in.js';
import { SrpTestClient } from '../../dev-support/srp-client.js';
import { ENV_ID, expectStatus, PASSWORD, seedSaas } from '../../bench/fixtures.js';

/** No answer within this long counts as a hang. */
export const REQUEST_BOUND_MS = 10_000;
const TENANTS = 3;
const SIGN_IN_USERS = 20;
const REFRESH_TOKENS_KEPT = 200;

export interface Answer {
  op: string;
  /** The HTTP status; 0 when no answer came within REQUEST_BOUND_MS, -1 when the connection failed. */
  status: number;
  /** The statuses that are right for this request. */
  expected: readonly number[];
  startedAt: number;
  ms: number;
  /** For 4xx and 5xx: a JSON body {type: string, message: string, data: object}. */
  errorShapeOk: boolean;
  text: string;
}

export interface ExpectedMail {
  to: string;
  subject: string;
  /** Text the mail must hold (a reset password, an invitation id). */
  holds: string;
}

export interface ChurnUser {
  id: string;
  email: string;
  /** Tenant id → whether the member has the role `viewer` in env ENV_ID. */
  memberships: Map<string, { viewer: boolean }>;
}

export interface PlanRecord {
  attempted: number;
  acknowledged: number;
  lastAcknowledged?: string;
}

/** What the service said yes to, for the checks. */
export interface Model {
  liveUsers: Map<string, ChurnUser>;
  /** Users whose last write has no known outcome: neither asserted present nor absent. */
  uncertainUsers: Set<string>;
  deletedUsers: Map<string, string>;
  plans: Map<string, PlanRecord>;
  acceptedInvitations: { id: string; tenantId: string; email: string }[];
  expectedMails: ExpectedMail[];
  /** Mails of changes answered otherwise than due: each may have happened, and mailed, or not. */
  possibleMails: ExpectedMail[];
  signInUsers: { id: string; email: string }[];
  tenantIds: string[];
}

const isError = (status: number) => status >= 400;

function errorShapeOk(text: string): boolean {
  try {
    return isErrorBody(JSON.parse(text));
  } catch {
    return false;
  }
}

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)] as T;

export class Load {
  readonly answers: Answer[] = [];
  readonly model: Model = {
    liveUsers: new Map(),
    uncertainUsers: new Set(),
    deletedUsers: new Map(),
    plans: new Map(),
    acceptedInvitations: [],
    expectedMails: [],
    possibleMails: [],
    signInUsers: [],
    tenantIds: [],
  };
  private readonly idleUsers: ChurnUser[] = [];
  private readonly idleTenants: string[] = [];
  private readonly pendingDeletes: ChurnUser[] = [];
  private readonly refreshTokens: string[] = [];
  private readonly accessTokens = new Map<string, string>();
  private readonly run = randomUUID().slice(0, 8);
  private emails = 0;

  /** The weighted mix: reads and sign-in traffic most, every kind of write some. */
  private readonly mix: [number, () => Promise<void>][] = [
    [25, () => this.signIn()],
    [20, () => this.refresh()],
    [5, () => this.read('get tenant', () => this.api.get(`/tenants/${pick(this.model.tenantIds)}`))],
    [5, () => this.read('search users', () => this.api.get('/users/search?email=proof-&limit=20'))],
    [5, () => this.read('get tenant users', () => this.api.get(`/tenants/${pick(this.model.tenantIds)}/users`))],
    [4, () => this.read('get user', () => this.api.get(`/users/${pick(this.model.signInUsers).id}`))],
    [8, () => this.createUser()],
    [5, () => this.joinTenant()],
    [4, () => this.addRole()],
    [2, () => this.removeRole()],
    [2, () => this.leaveTenant()],
    [3, () => this.changeEmail()],
    [3, () => this.resetPassword()],
    [3, () => this.deleteUser()],
    [3, () => this.changePlan()],
    [3, () => this.invite()],
  ];
  private readonly totalWeight = this.mix.reduce((sum, [weight]) => sum + weight, 0);

  constructor(private readonly api: SignedClient) {}

  /** The SaaS the load works on: env, roles, tenants, users who sign in (members of every tenant). */
  async prepare(): Promise<void> {
    const seeded = await seedSaas(this.api, { users: SIGN_IN_USERS, members: SIGN_IN_USERS, emailPrefix: 'proof-signin' });
    this.model.tenantIds.push(seeded.tenantId);
    for (let i = 1; i < TENANTS; i++) {
      const tenant = expectStatus(
        await this.api.post<{ id: string }>('/tenants', { name: `Proof ${i}`, attributes: {}, back_office_staff_email: `ops${i}@proof.test` }),
        201,
        'create tenant',
      );
      this.model.tenantIds.push(tenant.id);
      for (const user of seeded.users) {
        expectStatus(await this.api.post(`/tenants/${tenant.id}/users`, { email: user.email, attributes: {} }), 201, 'join tenant');
      }
    }
    this.model.signInUsers.push(...seeded.users);
    this.idleTenants.push(...this.model.tenantIds);
    for (const id of this.model.tenantIds) this.model.plans.set(id, { attempted: 0, acknowledged: 0 });
    for (const user of seeded.users) await this.signIn(user);
    for (let i = 0; i < 20; i++) await this.createUser();
  }

  /** `workers` loops of the mix, each starting operations while `going()` says so. */
  async runWhile(going: () => boolean, workers: number): Promise<void> {
    await Promise.all(
      Array.from({ length: workers }, async () => {
        while (going()) await this.next();
      }),
    );
  }

  private next(): Promise<void> {
    let roll = Math.random() * this.totalWeight;
    for (const [weight, op] of this.mix) {
      roll -= weight;
      if (roll < 0) return op();
    }
    return this.signIn();
  }

  /** Sends one request (bounded by REQUEST_BOUND_MS) and records its answer; the response when it is `expected`. */
  async send<T>(
    op: string,
    expected: number | readonly number[],
    request: () => Promise<SignedResponse<T>>,
  ): Promise<{ status: number; res?: SignedResponse<T>; text: string }> {
    const right = typeof expected === 'number' ? [expected] : expected;
    const startedAt = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), REQUEST_BOUND_MS)));
    let res: SignedResponse<T> | undefined;
    let status: number;
    try {
      res = await Promise.race([request(), bound]);
      status = res?.status ?? 0;
    } catch {
      status = -1;
    } finally {
      clearTimeout(timer);
    }
    const text = res?.text ?? '';
    this.answers.push({
      op,
      status,
      expected: right,
      startedAt,
      ms: Date.now() - startedAt,
      errorShapeOk: !isError(status) || errorShapeOk(text),
      text: text.slice(0, 300),
    });
    return right.includes(status) && res ? { status, res, text } : { status, text };
  }

  private async read(op: string, request: () => Promise<SignedResponse<unknown>>): Promise<void> {
    await this.send(op, 200, request);
  }

  async signIn(user = pick(this.model.signInUsers)): Promise<void> {
    const client = new SrpTestClient();
    const started = await this.send('sign in', 200, () => startSignIn(this.api, user.email, client.srpA));
    if (!started.res) return;
    const answer = client.passwordAnswer(started.res.body.challenge_parameters, PASSWORD);
    const session = started.res.body.session;
    const done = await this.send('sign in: answer', 200, () => answerChallenge(this.api, 'PASSWORD_VERIFIER', answer, session));
    const credentials = done.res?.body.credentials;
    if (!credentials) return;
    this.accessTokens.set(user.id, credentials.access_token);
    if (credentials.refresh_token) this.refreshTokens.push(credentials.refresh_token);
    if (this.refreshTokens.length > REFRESH_TOKENS_KEPT) this.refreshTokens.shift();
  }

  private async refresh(): Promise<void> {
    if (this.refreshTokens.length === 0) return this.signIn();
    const token = encodeURIComponent(pick(this.refreshTokens));
    await this.send('refresh', 200, () => this.api.get(`/credentials?auth-flow=refreshTokenAuth&refresh-token=${token}`));
  }

  private newEmail(): string {
    return `proof-${this.run}-${String(this.emails++).padStart(6, '0')}@proof.test`;
  }

  /** The mail a change causes: expected when the change was acknowledged, else possible. */
  private mailOf(acknowledged: boolean, to: string, template: TemplateName, holds = ''): void {
    const mail = { to, subject: DEFAULT_TEMPLATES[template].subject, holds };
    if (acknowledged) this.model.expectedMails.push(mail);
    else this.model.possibleMails.push(mail);
  }

  private async createUser(): Promise<void> {
    const email = this.newEmail();
    // E-mail users without a password get a temporary one by mail (create_user).
    const withPassword = Math.random() < 0.5;
    const created = await this.send('create user', 201, () =>
      this.api.post<{ id: string }>('/users', withPassword ? { email, password: PASSWORD } : { email }),
    );
    if (!withPassword) this.mailOf(Boolean(created.res), email, 'create_user');
    if (!created.res) return;
    const user: ChurnUser = { id: created.res.body.id, email, memberships: new Map() };
    this.model.liveUsers.set(user.id, user);
    this.idleUsers.push(user);
  }

  /** Takes an idle user (one that `fits`) out of the pool for one write; undefined when there is none. */
  private take(fits: (user: ChurnUser) => boolean = () => true): ChurnUser | undefined {
    const candidates = this.idleUsers.filter(fits);
    if (candidates.length === 0) return undefined;
    const user = pick(candidates);
    this.idleUsers.splice(this.idleUsers.indexOf(user), 1);
    return user;
  }

  /**
   * After a write on `user`: back to the pool when it was answered as due, else out of the model, as its
   * outcome is unknown (a 5xx; or a 4xx after a cut connection, when the store's retry of a write that had
   * already happened is refused by its own condition).
   */
  private async withUser(fits: (user: ChurnUser) => boolean, write: (user: ChurnUser) => Promise<{ res?: unknown }>): Promise<void> {
    const user = this.take(fits);
    if (!user) return this.createUser();
    if ((await write(user)).res) {
      this.idleUsers.push(user);
    } else {
      this.model.liveUsers.delete(user.id);
      this.model.uncertainUsers.add(user.id);
    }
  }

  private joinTenant(): Promise<void> {
    return this.withUser(
      (user) => user.memberships.size < this.model.tenantIds.length,
      async (user) => {
        const tenantId = pick(this.model.tenantIds.filter((id) => !user.memberships.has(id)));
        const joined = await this.send('join tenant', 201, () => this.api.post(`/tenants/${tenantId}/users`, { email: user.email, attributes: {} }));
        if (joined.res) user.memberships.set(tenantId, { viewer: false });
        return joined;
      },
    );
  }

  private addRole(): Promise<void> {
    return this.withUser(
      (user) => user.memberships.size > 0,
      async (user) => {
        const tenantId = pick([...user.memberships.keys()]);
        const added = await this.send('add role', 201, () =>
          this.api.post(`/tenants/${tenantId}/users/${user.id}/envs/${ENV_ID}/roles`, { role_names: ['viewer'] }),
        );
        if (added.res) user.memberships.set(tenantId, { viewer: true });
        return added;
      },
    );
  }

  private removeRole(): Promise<void> {
    return this.withUser(
      (user) => [...user.memberships.values()].some((m) => m.viewer),
      async (user) => {
        const tenantId = pick([...user.memberships.entries()].filter(([, m]) => m.viewer).map(([id]) => id));
        const removed = await this.send('remove role', 200, () =>
          this.api.delete(`/tenants/${tenantId}/users/${user.id}/envs/${ENV_ID}/roles/viewer`),
        );
        if (removed.res) user.memberships.set(tenantId, { viewer: false });
        return removed;
      },
    );
  }

  private leaveTenant(): Promise<void> {
    return this.withUser(
      (user) => user.memberships.size > 0,
      async (user) => {
        const tenantId = pick([...user.memberships.keys()]);
        const left = await this.send('leave tenant', 200, () => this.api.delete(`/tenants/${tenantId}/users/${user.id}`));
        if (left.res) user.memberships.delete(tenantId);
        return left;
      },
    );
  }

  private changeEmail(): Promise<void> {
    return this.withUser(
      () => true,
      async (user) => {
        const email = this.newEmail();
        const changed = await this.send('change e-mail', 200, () => this.api.patch(`/users/${user.id}/email`, { email }));
        if (changed.res) user.email = email;
        return changed;
      },
    );
  }

  private resetPassword(): Promise<void> {
    return this.withUser(
      () => true,
      async (user) => {
        const reset = await this.send('reset password', 200, () => this.api.post<{ password: string }>(`/users/${user.id}/password/reset`));
        this.mailOf(Boolean(reset.res), user.email, 'forgot_password', reset.res?.body.password);
        return reset;
      },
    );
  }

  private async deleteUser(): Promise<void> {
    const user = this.take();
    if (!user) return this.createUser();
    const deleted = await this.send('delete user', 200, () => this.api.delete(`/users/${user.id}`));
    this.model.liveUsers.delete(user.id);
    // Any other answer leaves the user half there or gone: the delete is sent again later.
    if (deleted.res) this.model.deletedUsers.set(user.id, user.email);
    else this.pendingDeletes.push(user);
  }

  private async changePlan(): Promise<void> {
    const tenantId = this.idleTenants.pop();
    if (!tenantId) return this.signIn();
    const record = this.model.plans.get(tenantId) as PlanRecord;
    const planId = randomUUID();
    record.attempted++;
    const changed = await this.send('change plan', 200, () => this.api.put(`/tenants/${tenantId}/plans`, { next_plan_id: planId }));
    if (changed.res) {
      record.acknowledged++;
      record.lastAcknowledged = planId;
    }
    this.idleTenants.push(tenantId);
  }

  /** A member invites a new address to a tenant (a mail with the link); the invitee accepts as a new user. */
  private async invite(): Promise<void> {
    const inviter = pick(this.model.signInUsers.filter((user) => this.accessTokens.has(user.id)));
    if (!inviter) return this.signIn();
    const tenantId = pick(this.model.tenantIds);
    const email = this.newEmail();
    const invited = await this.send('invite', 201, () =>
      this.api.post<{ id: string }>(`/tenants/${tenantId}/invitations`, {
        email,
        access_token: this.accessTokens.get(inviter.id),
        envs: [{ id: ENV_ID, role_names: ['viewer'] }],
      }),
    );
    this.mailOf(Boolean(invited.res), email, 'invite_tenant_user', invited.res?.body.id);
    if (!invited.res) return;
    const id = invited.res.body.id;
    const accepted = await this.send('accept invitation', 200, () => this.api.patch(`/invitations/${id}/validate`, { email, password: PASSWORD }));
    if (accepted.res) this.model.acceptedInvitations.push({ id, tenantId, email });
  }

  /**
   * Deletes answered otherwise than 200 are sent again until the service says done (200) or gone (404), as a
   * client retries them. Answers the number of deletes that did not end so.
   */
  async retryUncertainDeletes(): Promise<number> {
    let unfinished = 0;
    for (const user of this.pendingDeletes.splice(0)) {
      let finished = false;
      for (let attempt = 0; attempt < 5 && !finished; attempt++) {
        const { status } = await this.send('delete user (retried)', [200, 404], () => this.api.delete(`/users/${user.id}`));
        finished = status === 200 || status === 404;
      }
      if (finished) this.model.deletedUsers.set(user.id, user.email);
      else unfinished++;
    }
    return unfinished;
  }
}
