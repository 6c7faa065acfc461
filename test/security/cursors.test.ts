/**
 * Attack replay: a search cursor was the base64url of a position and nothing else, so a cursor altered by
 * hand to another position still inside the filter's range was accepted (the README said altered cursors
 * answer 400). Cursors now carry a MAC bound to the SaaS and the search.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

let h: Harness;
let api: SignedClient;

beforeAll(async () => {
  h = await startHarness();
  api = (await h.newSaas()).client;
  for (const name of ['amy', 'ben', 'cat', 'dan']) {
    assert.equal((await api.post('/users', { email: `${name}@example.test`, password: 'Correct-horse-9' })).status, 201);
  }
});
afterAll(() => h.close());

describe('an altered search cursor', () => {
  it('is refused even when the position it names is in range, and so is a cursor of another SaaS', async () => {
    const first = await api.get<{ users: { email: string }[]; cursor: string }>('/users/search?limit=1');
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.body.users.map((u) => u.email),
      ['amy@example.test'],
    );
    const [encoded, mac] = first.body.cursor.split('.') as [string, string];
    const position = Buffer.from(encoded, 'base64url').toString('utf8');
    // Skip ahead past ben: a position between ben's and cat's, inside the range of this search.
    const skipped = `${Buffer.from(position.replace('amy@', 'bob@'), 'utf8').toString('base64url')}.${mac}`;
    await expectError(api.get(`/users/search?limit=1&cursor=${skipped}`), 400, 'invalid_cursor', 'cursor');

    const other = (await h.newSaas()).client;
    await expectError(other.get(`/users/search?limit=1&cursor=${first.body.cursor}`), 400, 'invalid_cursor', 'cursor');

    const next = await api.get<{ users: { email: string }[] }>(`/users/search?limit=1&cursor=${first.body.cursor}`);
    assert.deepEqual(
      next.body.users.map((u) => u.email),
      ['ben@example.test'],
    );
  });
});
