/**
 * SCIM 2.0 per tenant (issue 41): Okta's and Microsoft Entra ID's provisioning sequences as their public docs show
 * them, replayed against the local API; what `active: false` and DELETE do to sign-in, memberships and users;
 * groups as roles; token rotation; paging and filters.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { srpSignIn } from '../../dev-support/sign-in.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { ADMIN, defineEnvsAndRoles, VIEWER } from '../support/definitions.js';
import { GROUP_SCHEMA, PATCH_OP, scimClient, turnScimOn, USER_SCHEMA, type ScimClient } from '../support/scim.js';
import { countStoreRequests, type StoreRequestCounter } from '../support/store-requests.js';

let h: Harness;
let api: SignedClient;
let store: StoreRequestCounter;

type Resource = Record<string, unknown> & { id: string };
type List = { totalResults: number; startIndex: number; itemsPerPage: number; Resources: Resource[] };

const address = (name: string) => `${name}-${randomUUID().slice(0, 8)}@acme.test`;
const PASSWORD = 'Correct-horse-9';

async function newTenant(name = 'Acme'): Promise<string> {
  const res = await api.post<{ id: string }>('/tenants', { name, attributes: {}, back_office_staff_email: 'ops@acme.test' });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id;
}

const userInfo = async (userId: string) =>
  (await api.get<{ tenants: { id: string; envs: { roles: { role_name: string }[] }[] }[] }>(`/users/${userId}`)).status;
const tenantsOf = async (userId: string) => {
  const res = await api.get<{ id: string; envs: { id: number; roles: { role_name: string }[] }[] }[]>(`/tenants/all/users/${userId}`);
  return res.status === 200
    ? (res.body as unknown as { users: { tenant_id: string; envs: { id: number; roles: { role_name: string }[] }[] }[] }).users
    : [];
};

beforeAll(async () => {
  h = await startHarness();
  store = countStoreRequests();
  ({ client: api } = await h.newSaas());
  await defineEnvsAndRoles(api);
});

afterAll(async () => {
  await h.close();
});

describe("Okta's provisioning sequence", () => {
  let scim: ScimClient;
  let tenantId: string;
  beforeAll(async () => {
    tenantId = await newTenant();
    scim = await turnScimOn(api, tenantId);
  });

  it('looks up, creates, reads, replaces and deactivates a user; pushes a group, renames it, adds and removes members', async () => {
    const userName = address('okta');
    const lookup = await scim.call<List>('GET', `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}&startIndex=1&count=100`);
    assert.equal(lookup.status, 200);
    assert.equal(lookup.headers.get('content-type'), 'application/scim+json');
    assert.deepEqual(
      { ...lookup.body, Resources: lookup.body.Resources.length },
      {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
        totalResults: 0,
        startIndex: 1,
        itemsPerPage: 0,
        Resources: 0,
      },
    );

    const created = await scim.call<Resource>('POST', '/Users', {
      schemas: [USER_SCHEMA],
      userName,
      name: { givenName: 'John', familyName: 'Doe' },
      emails: [{ primary: true, value: userName, type: 'work' }],
      displayName: 'John Doe',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      password: PASSWORD,
      active: true,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.userName, userName);
    assert.equal(created.body.active, true);
    assert.equal(created.body.password, undefined);
    assert.equal((created.body.meta as { location: string }).location, `${scim.base}/Users/${created.body.id}`);
    const id = created.body.id;
    // The same person in the SaaS: a SaaS user, a member of this tenant.
    assert.equal((await tenantsOf(id)).map((t) => t.tenant_id).join(), tenantId);

    const again = await scim.call<List>('GET', `/Users?filter=${encodeURIComponent(`userName eq "${userName.toUpperCase()}"`)}`);
    assert.equal(again.body.totalResults, 1);
    assert.equal(again.body.Resources[0]?.id, id);
    assert.equal((await scim.call<Resource>('GET', `/Users/${id}`)).body.displayName, 'John Doe');

    const replaced = await scim.call<Resource>('PUT', `/Users/${id}`, {
      ...created.body,
      name: { givenName: 'Jonathan', familyName: 'Doe' },
      displayName: 'Jonathan Doe',
    });
    assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
    assert.deepEqual(replaced.body.name, { givenName: 'Jonathan', familyName: 'Doe' });

    const group = await scim.call<Resource>('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: ADMIN.display_name, members: [] });
    assert.equal(group.status, 201, JSON.stringify(group.body));
    assert.equal(group.body.id, ADMIN.role_name);
    const renamed = await scim.call('PATCH', `/Groups/${group.body.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { id: group.body.id, displayName: 'Acme admins' } }],
    });
    assert.equal(renamed.status, 204, JSON.stringify(renamed.body));
    const added = await scim.call('PATCH', `/Groups/${group.body.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: id, display: userName }] }],
    });
    assert.equal(added.status, 204, JSON.stringify(added.body));
    const read = await scim.call<Resource & { members: { value: string }[] }>('GET', `/Groups/${group.body.id}`);
    assert.equal(read.body.displayName, 'Acme admins');
    assert.deepEqual(
      read.body.members.map((m) => m.value),
      [id],
    );
    // Group membership is the role, as the SaaSus API shows it.
    assert.deepEqual(
      (await tenantsOf(id))[0]?.envs.flatMap((e) => e.roles.map((r) => r.role_name)),
      [ADMIN.role_name],
    );
    assert.deepEqual(
      ((await scim.call<Resource>('GET', `/Users/${id}`)).body.groups as { value: string }[]).map((g) => g.value),
      [ADMIN.role_name],
    );

    const removed = await scim.call('PATCH', `/Groups/${group.body.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'remove', path: `members[value eq "${id}"]` }],
    });
    assert.equal(removed.status, 204);
    assert.deepEqual((await tenantsOf(id))[0]?.envs.flatMap((e) => e.roles.map((r) => r.role_name)) ?? [], []);

    const deactivated = await scim.call<Resource>('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    assert.equal(deactivated.status, 200, JSON.stringify(deactivated.body));
    assert.equal(deactivated.body.active, false);
    // The data stays: the user, the membership, what the directory sent.
    assert.equal(await userInfo(id), 200);
    assert.equal((await scim.call<Resource>('GET', `/Users/${id}`)).body.displayName, 'Jonathan Doe');

    assert.equal((await scim.call('DELETE', `/Groups/${group.body.id}`)).status, 204);
    assert.equal((await scim.call('GET', `/Groups/${group.body.id}`)).status, 404);
  });
});

describe("Microsoft Entra ID's provisioning sequence", () => {
  let scim: ScimClient;
  let tenantId: string;
  beforeAll(async () => {
    tenantId = await newTenant('Contoso');
    scim = await turnScimOn(api, tenantId);
  });

  it('creates, filters, patches with capitalised ops, value paths and string booleans, then deletes', async () => {
    const userName = address('entra');
    const lookup = await scim.call<List>('GET', `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);
    assert.equal(lookup.body.totalResults, 0);
    const created = await scim.call<Resource>('POST', '/Users', {
      schemas: [USER_SCHEMA, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName,
      active: true,
      emails: [{ primary: true, type: 'work', value: userName }],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id;
    const byExternalId = await scim.call<List>('GET', `/Users?filter=${encodeURIComponent('externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"')}`);
    assert.deepEqual(
      byExternalId.body.Resources.map((r) => r.id),
      [id],
    );

    const patched = await scim.call<Resource>('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@acme.test' },
        { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
      ],
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.deepEqual(patched.body.emails, [{ primary: true, type: 'work', value: 'updatedEmail@acme.test' }]);
    assert.equal((patched.body.name as { familyName: string }).familyName, 'updatedFamilyName');

    const off = await scim.call<Resource>('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    assert.equal(off.body.active, false);
    const on = await scim.call<Resource>('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'True' }],
    });
    assert.equal(on.body.active, true);

    const group = await scim.call<Resource>('POST', '/Groups', {
      schemas: [GROUP_SCHEMA],
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: VIEWER.role_name,
      meta: { resourceType: 'Group' },
    });
    assert.equal(group.status, 201, JSON.stringify(group.body));
    const found = await scim.call<List>(
      'GET',
      `/Groups?excludedAttributes=members&filter=${encodeURIComponent(`displayName eq "${VIEWER.role_name}"`)}`,
    );
    assert.equal(found.body.totalResults, 1);
    assert.equal(found.body.Resources[0]?.members, undefined);
    assert.equal(found.body.Resources[0]?.externalId, '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159');
    const add = await scim.call('PATCH', `/Groups/${group.body.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Add', path: 'members', value: [{ value: id }] }],
    });
    assert.equal(add.status, 204, JSON.stringify(add.body));
    assert.deepEqual(
      ((await scim.call<Resource>('GET', `/Users/${id}`)).body.groups as { value: string }[]).map((g) => g.value),
      [VIEWER.role_name],
    );
    const remove = await scim.call('PATCH', `/Groups/${group.body.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Remove', path: 'members', value: [{ value: id }] }],
    });
    assert.equal(remove.status, 204);
    assert.deepEqual((await scim.call<Resource>('GET', `/Users/${id}`)).body.groups, []);

    assert.equal((await scim.call('DELETE', `/Users/${id}`)).status, 204);
    const gone = await scim.call<Record<string, unknown>>('GET', `/Users/${id}`);
    assert.equal(gone.status, 404);
    assert.deepEqual(gone.body.schemas, ['urn:ietf:params:scim:api:messages:2.0:Error']);
    assert.equal(gone.body.status, '404');
    // In no other tenant: the user is gone from the SaaS too.
    assert.equal(await userInfo(id), 404);
  });
});

describe('what deprovisioning does', () => {
  it('active false refuses the next sign-in and the refresh token; active true lets them in again', async () => {
    const tenantId = await newTenant();
    const scim = await turnScimOn(api, tenantId);
    const userName = address('leaver');
    const created = await scim.call<Resource>('POST', '/Users', { schemas: [USER_SCHEMA], userName, password: PASSWORD });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const signedIn = await srpSignIn(api, userName, PASSWORD);
    assert.equal(signedIn.status, 200, signedIn.text);
    const refreshToken = (signedIn.body as { credentials: { refresh_token: string } }).credentials.refresh_token;

    await scim.call('PATCH', `/Users/${created.body.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] });
    const refused = await srpSignIn(api, userName, PASSWORD);
    assert.equal(refused.status, 401);
    assert.equal((refused.body as unknown as { type: string }).type, 'user_disabled');
    const refresh = await api.get(`/credentials?auth-flow=refreshTokenAuth&refresh-token=${encodeURIComponent(refreshToken)}`);
    assert.equal(refresh.status, 401);

    await scim.call('PATCH', `/Users/${created.body.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: true }] });
    assert.equal((await srpSignIn(api, userName, PASSWORD)).status, 200);
  });

  it("one tenant's directory neither disables nor deletes a user another tenant still has", async () => {
    const [a, b] = [await newTenant('A'), await newTenant('B')];
    const scimA = await turnScimOn(api, a);
    const scimB = await turnScimOn(api, b);
    const userName = address('shared');
    const inA = await scimA.call<Resource>('POST', '/Users', { schemas: [USER_SCHEMA], userName, password: PASSWORD });
    const inB = await scimB.call<Resource>('POST', '/Users', { schemas: [USER_SCHEMA], userName });
    assert.equal(inB.status, 201, JSON.stringify(inB.body));
    assert.equal(inB.body.id, inA.body.id);
    const id = inA.body.id;

    await scimA.call('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] });
    const signedIn = await srpSignIn(api, userName, PASSWORD);
    assert.equal(signedIn.status, 200);
    // Signed in for B only: the application's /userinfo no longer names A.
    const idToken = (signedIn.body as { credentials: { id_token: string } }).credentials.id_token;
    const info = await api.get<{ tenants: { id: string }[] }>(`/userinfo?token=${encodeURIComponent(idToken)}`);
    assert.deepEqual(
      info.body.tenants.map((t) => t.id),
      [b],
    );
    await scimB.call('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] });
    assert.equal((await srpSignIn(api, userName, PASSWORD)).status, 401);

    // Tenant B lets go of them: A still has them (suspended), so the user stays, still disabled.
    assert.equal((await scimB.call('DELETE', `/Users/${id}`)).status, 204);
    assert.equal(await userInfo(id), 200);
    assert.equal((await srpSignIn(api, userName, PASSWORD)).status, 401);
    assert.equal((await scimA.call('DELETE', `/Users/${id}`)).status, 204);
    assert.equal(await userInfo(id), 404);
  });

  it('a second POST of the same userName is a 409 uniqueness', async () => {
    const scim = await turnScimOn(api, await newTenant());
    const userName = address('twice');
    assert.equal((await scim.call('POST', '/Users', { schemas: [USER_SCHEMA], userName })).status, 201);
    const again = await scim.call<Record<string, unknown>>('POST', '/Users', { schemas: [USER_SCHEMA], userName });
    assert.equal(again.status, 409);
    assert.equal(again.body.scimType, 'uniqueness');
  });
});

describe('what an initial sync costs the store', () => {
  it('a lookup of a new name is one read and its create one transaction; a held name is still found and adopted', async () => {
    // Held still, so the minute's claimed calls and the kept token hashes last the whole test.
    setClockForTests(Date.now());
    try {
      const [a, b] = [await newTenant('A'), await newTenant('B')];
      const [scimA, scimB] = [await turnScimOn(api, a), await turnScimOn(api, b)];
      // The first call of the minute claims calls and reads the token; the ones after it ask the store for neither.
      assert.equal((await scimA.call('GET', '/ServiceProviderConfig')).status, 200);
      assert.equal((await scimB.call('GET', '/ServiceProviderConfig')).status, 200);
      const userName = address('synced');
      const filter = `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`;

      const counted = async <T>(work: () => Promise<T>): Promise<[string[], T]> => {
        let answer: T | undefined;
        const requests = await store.requestsOf(async () => (answer = await work()));
        return [requests, answer as T];
      };
      const [lookup, found] = await counted(() => scimA.call<List>('GET', filter));
      assert.deepEqual([lookup, found.body.totalResults], [['GetItem'], 0]);
      const [write, created] = await counted(() => scimA.call<Resource>('POST', '/Users', { schemas: [USER_SCHEMA], userName, password: PASSWORD }));
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual(write, ['TransactWriteItems']);
      assert.deepEqual(
        (await scimA.call<List>('GET', filter)).body.Resources.map((r) => r.id),
        [created.body.id],
      );

      // Tenant B's directory pushes the same person with a password the policy refuses: they are A's user already and
      // keep their own, so B adopts them; a new name with that password is refused.
      const adopted = await scimB.call<Resource>('POST', '/Users', { schemas: [USER_SCHEMA], userName: userName.toUpperCase(), password: 'x' });
      assert.equal(adopted.status, 201, JSON.stringify(adopted.body));
      assert.equal(adopted.body.id, created.body.id);
      assert.deepEqual(
        (await scimB.call<List>('GET', filter)).body.Resources.map((r) => r.id),
        [created.body.id],
      );
      const weak = await scimB.call<Record<string, unknown>>('POST', '/Users', { schemas: [USER_SCHEMA], userName: address('weak'), password: 'x' });
      assert.equal(weak.status, 400, JSON.stringify(weak.body));
      assert.equal((await srpSignIn(api, userName, PASSWORD)).status, 200);
    } finally {
      resetClockForTests();
    }
  });
});

describe('queries', () => {
  let scim: ScimClient;
  beforeAll(async () => {
    scim = await turnScimOn(api, await newTenant());
    for (const [i, given] of ['Ann', 'Bob', 'Bea', 'Cid', 'Dot'].entries()) {
      const res = await scim.call('POST', '/Users', {
        schemas: [USER_SCHEMA],
        userName: `${given.toLowerCase()}-${i}@query.test`,
        name: { givenName: given },
        title: i % 2 === 0 ? 'Engineer' : undefined,
        active: i !== 4,
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
  });

  const names = async (filter: string) => {
    const res = await scim.call<List>('GET', `/Users?filter=${encodeURIComponent(filter)}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.Resources.map((r) => (r.name as { givenName: string }).givenName).sort();
  };

  it('filters with sw, co, pr, and, or', async () => {
    assert.deepEqual(await names('name.givenName sw "B"'), ['Bea', 'Bob']);
    assert.deepEqual(await names('userName co "-3@"'), ['Cid']);
    assert.deepEqual(await names('title pr'), ['Ann', 'Bea', 'Dot']);
    assert.deepEqual(await names('title pr and active eq true'), ['Ann', 'Bea']);
    assert.deepEqual(await names('name.givenName eq "Ann" or name.givenName eq "Dot"'), ['Ann', 'Dot']);
  });

  it('pages by startIndex and count', async () => {
    const first = await scim.call<List>('GET', '/Users?startIndex=1&count=2');
    const third = await scim.call<List>('GET', '/Users?startIndex=5&count=2');
    assert.deepEqual([first.body.totalResults, first.body.itemsPerPage, third.body.startIndex, third.body.itemsPerPage], [5, 2, 5, 1]);
    const all = await scim.call<List>('GET', '/Users?count=10');
    assert.deepEqual(
      [...first.body.Resources, ...third.body.Resources].map((r) => r.id),
      [...all.body.Resources.slice(0, 2), ...all.body.Resources.slice(4)].map((r) => r.id),
    );
  });

  it('answers the discovery documents', async () => {
    const config = await scim.call<{ patch: { supported: boolean }; filter: { supported: boolean } }>('GET', '/ServiceProviderConfig');
    assert.deepEqual([config.body.patch.supported, config.body.filter.supported], [true, true]);
    assert.equal((await scim.call<List>('GET', '/ResourceTypes')).body.totalResults, 2);
    const schemas = await scim.call<List>('GET', '/Schemas');
    assert.deepEqual(
      schemas.body.Resources.map((s) => s.id),
      [USER_SCHEMA, GROUP_SCHEMA],
    );
  });

  it('refuses a group that names no role of the SaaS, and a PATCH without the PatchOp schema', async () => {
    const group = await scim.call<Record<string, unknown>>('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Marketing' });
    assert.deepEqual([group.status, group.body.scimType], [400, 'invalidValue']);
    const users = await scim.call<List>('GET', '/Users?count=1');
    const patch = await scim.call<Record<string, unknown>>('PATCH', `/Users/${users.body.Resources[0]?.id}`, {
      Operations: [{ op: 'replace', value: {} }],
    });
    assert.deepEqual([patch.status, patch.body.scimType], [400, 'invalidSyntax']);
  });
});

describe('tokens', () => {
  it('rotates with two live, revokes one, and lists neither tokens nor hashes', async () => {
    const tenantId = await newTenant();
    const first = await turnScimOn(api, tenantId);
    const second = await turnScimOn(api, tenantId);
    assert.equal((await first.call('GET', '/ServiceProviderConfig')).status, 200);
    assert.equal((await second.call('GET', '/ServiceProviderConfig')).status, 200);
    const listed = await api.get<{ base_url: string; tokens: Record<string, unknown>[] }>(`/tenants/${tenantId}/scim/tokens`);
    assert.equal(listed.body.base_url, first.base);
    assert.deepEqual(
      listed.body.tokens.map((t) => Object.keys(t).sort().join()),
      ['created_at,id', 'created_at,id'],
    );
    assert.equal((await api.delete(`/tenants/${tenantId}/scim/tokens/${first.tokenId}`)).status, 200);
    assert.equal((await first.call('GET', '/ServiceProviderConfig')).status, 401);
    assert.equal((await second.call('GET', '/ServiceProviderConfig')).status, 200);
    // A third token pushes out the oldest live one.
    const third = await turnScimOn(api, tenantId);
    const fourth = await turnScimOn(api, tenantId);
    assert.equal((await second.call('GET', '/ServiceProviderConfig')).status, 401);
    assert.equal((await third.call('GET', '/ServiceProviderConfig')).status, 200);
    assert.equal((await fourth.call('GET', '/ServiceProviderConfig')).status, 200);
    assert.equal((await scimClient(first.base, 'scim_nope').call('GET', '/Users')).status, 401);
  });
});
