/**
 * SCIM's boundaries (issue 41): a tenant's token opens that tenant only, in that SaaS only; a token is never
 * answered again after its creation; malformed filters and bodies are SCIM 400s that change nothing; past the
 * tenant's rate a call is a 429, and calls without a valid token do not use up that rate.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { resetConfigForTests } from '../../shared/config.js';
import { ClaimedCalls, ScimTokenService } from '../../shared/domain/scim/scim-tokens.js';
import { DomainError } from '../../shared/errors.js';
import { scimRepository } from '../../shared/wiring.js';
import { defineEnvsAndRoles } from '../support/definitions.js';
import { countStoreRequests, type StoreRequestCounter } from '../support/store-requests.js';
import { PATCH_OP, scimClient, turnScimOn, USER_SCHEMA, type ScimClient } from '../support/scim.js';

let h: Harness;
let api: SignedClient;
let otherSaas: SignedClient;
let store: StoreRequestCounter;

const newTenant = async (client: SignedClient) => {
  const res = await client.post<{ id: string }>('/tenants', { name: 'T', attributes: {}, back_office_staff_email: 'ops@t.test' });
  assert.equal(res.status, 201);
  return res.body.id;
};
const listed = async (scim: ScimClient) => (await scim.call<{ totalResults: number }>('GET', '/Users')).body.totalResults;

beforeAll(async () => {
  h = await startHarness();
  store = countStoreRequests();
  ({ client: api } = await h.newSaas());
  ({ client: otherSaas } = await h.newSaas());
  await defineEnvsAndRoles(api);
});

afterAll(async () => {
  delete process.env.SCIM_REQUESTS_PER_MINUTE;
  resetConfigForTests();
  await h.close();
});

describe('a SCIM token', () => {
  let a: ScimClient;
  let b: ScimClient;
  let victim: string;
  beforeAll(async () => {
    a = await turnScimOn(api, await newTenant(api));
    b = await turnScimOn(api, await newTenant(api));
    const created = await b.call<{ id: string }>('POST', '/Users', { schemas: [USER_SCHEMA], userName: `victim-${randomUUID().slice(0, 8)}@b.test` });
    assert.equal(created.status, 201);
    victim = created.body.id;
  });

  it("opens no other tenant of the SaaS: tenant A's token on tenant B's URL is a 401 and changes nothing", async () => {
    const aTokenOnB = scimClient(b.base, a.token);
    for (const [method, path, body] of [
      ['GET', '/Users', undefined],
      ['GET', `/Users/${victim}`, undefined],
      ['PATCH', `/Users/${victim}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] }],
      ['DELETE', `/Users/${victim}`, undefined],
      ['POST', '/Users', { schemas: [USER_SCHEMA], userName: 'intruder@b.test' }],
    ] as const) {
      const res = await aTokenOnB.call<Record<string, unknown>>(method, path, body);
      assert.equal(res.status, 401, `${method} ${path}`);
      assert.deepEqual(res.body.schemas, ['urn:ietf:params:scim:api:messages:2.0:Error']);
    }
    const still = await b.call<{ active: boolean }>('GET', `/Users/${victim}`);
    assert.deepEqual([still.status, still.body.active], [200, true]);
    assert.equal(await listed(b), 1);
  });

  it("does not reach another tenant's user through its own URL", async () => {
    assert.equal((await a.call('GET', `/Users/${victim}`)).status, 404);
    assert.equal((await a.call('DELETE', `/Users/${victim}`)).status, 404);
    assert.equal(
      (await a.call('PATCH', `/Users/${victim}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] })).status,
      404,
    );
    assert.equal((await b.call('GET', `/Users/${victim}`)).status, 200);
  });

  it("opens nothing of another SaaS, even under that SaaS's id in the URL", async () => {
    const foreignTenant = await newTenant(otherSaas);
    const foreign = await turnScimOn(otherSaas, foreignTenant);
    // This SaaS's token, sent to the other SaaS's tenant; and the other's token, sent here.
    assert.equal((await scimClient(foreign.base, a.token).call('GET', '/Users')).status, 401);
    assert.equal((await scimClient(b.base, foreign.token).call('GET', '/Users')).status, 401);
    // The SaaS's API cannot mint a token for another SaaS's tenant.
    const res = await api.post(`/tenants/${foreignTenant}/scim/tokens`, {});
    assert.equal(res.status, 404);
  });

  it('is shown once: listing answers ids and times only', async () => {
    const tenantId = await newTenant(api);
    const scim = await turnScimOn(api, tenantId);
    const list = await api.get<{ tokens: Record<string, unknown>[] }>(`/tenants/${tenantId}/scim/tokens`);
    assert.ok(!JSON.stringify(list.body).includes(scim.token));
    assert.deepEqual(Object.keys(list.body.tokens[0] ?? {}).sort(), ['created_at', 'id']);
  });

  it('is refused without the Bearer scheme', async () => {
    const res = await fetch(`${a.base}/Users`, { headers: { authorization: `Basic ${a.token}` } });
    assert.equal(res.status, 401);
  });
});

describe('malformed input', () => {
  let scim: ScimClient;
  let userId: string;
  beforeAll(async () => {
    scim = await turnScimOn(api, await newTenant(api));
    const created = await scim.call<{ id: string }>('POST', '/Users', { schemas: [USER_SCHEMA], userName: `m-${randomUUID().slice(0, 8)}@m.test` });
    userId = created.body.id;
  });

  it('answers a malformed filter with 400 invalidFilter', async () => {
    for (const filter of [
      'userName eq',
      'userName zz "x"',
      '(userName eq "a"',
      'userName eq "a" and',
      '"',
      'x'.repeat(2000),
      'emails[type eq "work"',
    ]) {
      const res = await scim.call<{ scimType?: string; status: string }>('GET', `/Users?filter=${encodeURIComponent(filter)}`);
      assert.equal(res.status, 400, filter.slice(0, 40));
      assert.deepEqual([res.body.status, res.body.scimType], ['400', 'invalidFilter']);
    }
  });

  it('answers bad bodies and paths with SCIM 400s and changes nothing', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/Users', '{not json', 'invalidSyntax'],
      ['POST', '/Users', { schemas: [USER_SCHEMA] }, 'invalidValue'],
      ['POST', '/Users', { schemas: [USER_SCHEMA], userName: 'has spaces and no at' }, 'invalidValue'],
      ['POST', '/Users', { schemas: [USER_SCHEMA], userName: 'x@m.test', active: 'maybe' }, 'invalidValue'],
      ['PATCH', `/Users/${userId}`, { schemas: [PATCH_OP], Operations: [{ op: 'move', path: 'active', value: false }] }, 'invalidSyntax'],
      ['PATCH', `/Users/${userId}`, { schemas: [PATCH_OP], Operations: [{ op: 'remove' }] }, 'noTarget'],
      ['PATCH', `/Users/${userId}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'userName', value: 'other@m.test' }] }, 'mutability'],
      ['PATCH', `/Users/${userId}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: 'nope' }] }, 'invalidValue'],
      ['GET', '/Users?startIndex=abc', undefined, 'invalidValue'],
    ];
    for (const [method, path, body, scimType] of cases) {
      const res = await scim.call<{ scimType?: string }>(method, path, body);
      assert.deepEqual([res.status, res.body.scimType], [400, scimType], `${method} ${path} ${JSON.stringify(body)}`);
    }
    const user = await scim.call<{ active: boolean; userName: string }>('GET', `/Users/${userId}`);
    assert.equal(user.body.active, true);
    assert.equal(await listed(scim), 1);
  });
});

describe('the rate', () => {
  it("refuses calls past the tenant's rate with 429 and Retry-After; bad tokens do not count", async () => {
    process.env.SCIM_REQUESTS_PER_MINUTE = '5';
    resetConfigForTests();
    // Held at the start of a minute, so the window does not turn over mid-test.
    const start = (Math.floor(Date.now() / 60_000) + 1) * 60_000;
    setClockForTests(start);
    try {
      const scim = await turnScimOn(api, await newTenant(api));
      const stranger = scimClient(scim.base, 'scim_wrong');
      for (let i = 0; i < 10; i++) assert.equal((await stranger.call('GET', '/ServiceProviderConfig')).status, 401);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await scim.call('GET', '/ServiceProviderConfig')).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
      const refused = await scim.call<{ status: string }>('GET', '/Users');
      assert.deepEqual([refused.status, refused.body.status, refused.headers.get('retry-after')], [429, '429', '60']);
      // The next minute is a new window.
      setClockForTests(start + 60_000);
      assert.equal((await scim.call('GET', '/ServiceProviderConfig')).status, 200);
    } finally {
      resetClockForTests();
      delete process.env.SCIM_REQUESTS_PER_MINUTE;
      resetConfigForTests();
    }
  });
  it('never admits more than the rate across warm instances that claim the count in blocks, and writes the count once a block', async () => {
    const rate = 250;
    const start = (Math.floor(Date.now() / 60_000) + 1) * 60_000;
    setClockForTests(start);
    try {
      const scim = await turnScimOn(api, await newTenant(api));
      const [saasId, tenantId] = scim.base.split('/').slice(-2).map(decodeURIComponent) as [string, string];
      // Two warm instances of the SCIM function: each its own claims, one count in the store.
      const instances = [new ClaimedCalls(), new ClaimedCalls()].map(
        (claims) =>
          new ScimTokenService(
            scimRepository(),
            async () => true,
            () => rate,
            claims,
          ),
      );
      let admitted = 0;
      let refused = 0;
      const requests = await store.requestsOf(async () => {
        for (let i = 0; i < rate + 20; i++) {
          try {
            await (instances[i % 2] as ScimTokenService).admit(saasId, tenantId, `Bearer ${scim.token}`);
            admitted++;
          } catch (error) {
            assert.ok(error instanceof DomainError && error.kind === 'too_many_requests', String(error));
            refused++;
          }
        }
      });
      // A claim is 2 calls at this rate: at most one number per instance is claimed and never used.
      assert.ok(admitted <= rate && admitted >= rate - 2, `admitted ${admitted}`);
      assert.equal(admitted + refused, rate + 20);
      const countWrites = requests.filter((name) => name === 'UpdateItem').length;
      assert.ok(countWrites <= Math.ceil(admitted / 2) + 2 + 20, `count writes ${countWrites}`);
      assert.ok(countWrites < admitted, `count writes ${countWrites} for ${admitted} calls`);
    } finally {
      resetClockForTests();
    }
  });
});
