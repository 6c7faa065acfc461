/**
 * Attack replay: telling who has an account from the sign-in answers. Before the fix, the SECRET_BLOCK of a
 * name nobody has was 16 base64 characters longer (a `fake` member in the sealed facts), 50 times of 50, and
 * a wrong proof of a real user took about twice as long (only real users' attempts were written). Now the
 * two challenges have the same shape and length, and the two refused proofs send the same store requests in
 * the same order; the difference in time is measured by `npm run bench`, not here.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { SignedClient } from '../../client/signed-fetch.js';
import { dynamo } from '../../shared/store/client.js';
import { keys } from '../../shared/store/keys.js';
import { queryAll } from '../../shared/store/query.js';
import { tableName } from '../../shared/store/client.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../support/harness.js';
import { srpSignIn, startSignIn } from '../support/sign-in.js';
import { SrpTestClient } from '../support/srp-client.js';

let h: Harness;
let api: SignedClient;
let saasId: string;

const PASSWORD = 'Correct-horse-9';
const address = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.test`;

/**
 * The store requests a piece of work sent, by command and whether it carried a condition. The API answers in
 * this process but in the server's async context, so the log is a plain variable: one piece of work at a time.
 */
let requestLog: string[] | undefined;

async function requestsOf(work: () => Promise<unknown>): Promise<string[]> {
  requestLog = [];
  try {
    await work();
    return requestLog;
  } finally {
    requestLog = undefined;
  }
}

beforeAll(async () => {
  h = await startHarness();
  ({ client: api, saasId } = await h.newSaas());
  dynamo().intercept((command, next) => {
    const input = command.input as { ConditionExpression?: string };
    requestLog?.push(`${command.operation}${input.ConditionExpression ? ' (conditional)' : ''}`);
    return next();
  });
});
afterAll(() => h.close());

/** Names of one length: the sealed block holds the name given, so only equal names can give equal blocks. */
async function realUser(): Promise<string> {
  const email = address('known');
  const res = await api.post('/users', { email, password: PASSWORD });
  assert.equal(res.status, 201, res.text);
  return email;
}

describe('the sign-in challenge', () => {
  it('has the same members and lengths for a real user and for a name nobody has, every time', async () => {
    const shape = (parameters: Record<string, string>) =>
      Object.fromEntries(
        Object.entries(parameters)
          .filter(([name]) => name !== 'USERNAME' && name !== 'SRP_B')
          .map(([name, value]) => [name, value.length]),
      );
    const real = await realUser();
    for (let i = 0; i < 25; i++) {
      const client = new SrpTestClient();
      const [known, unknown] = await Promise.all([startSignIn(api, real, client.srpA), startSignIn(api, address('nobod'), client.srpA)]);
      assert.equal(known.status, 200, known.text);
      assert.equal(unknown.status, 200, unknown.text);
      assert.deepEqual(shape(unknown.body.challenge_parameters), shape(known.body.challenge_parameters));
      assert.deepEqual(Object.keys(unknown.body).sort(), Object.keys(known.body).sort());
      assert.equal(unknown.body.session?.length, known.body.session?.length);
    }
  });
});

describe('a refused proof', () => {
  it('sends the same store requests for a wrong password and for a name nobody has, and stores nothing for the name', async () => {
    const real = await realUser();
    const nobody = address('nobod');
    const wrong = await requestsOf(() => expectError(srpSignIn(api, real, `${PASSWORD}x`), 401, 'not_authorized'));
    const unknown = await requestsOf(() => expectError(srpSignIn(api, nobody, PASSWORD), 401, 'not_authorized'));
    assert.ok(wrong.length > 0);
    assert.deepEqual(unknown, wrong);

    const started = await startSignIn(api, nobody, new SrpTestClient().srpA);
    const fakeId = started.body.challenge_parameters.USER_ID_FOR_SRP as string;
    assert.deepEqual(await queryAll(dynamo(), tableName(), { pk: keys.userProfile(saasId, fakeId).pk, skPrefix: '' }), []);
  });
});
