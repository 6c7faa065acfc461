/** Contract of the DynamoDB repositories against DynamoDB Local: what the domain relies on. */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { ScanCommand } from '../../shared/store/dynamo-client.js';
import { DynamoDefinitionRepository } from '../../shared/store/definition-repository.js';
import { DynamoSignInCountsRepository } from '../../shared/store/sign-in-counts-repository.js';
import { dynamo, tableName } from '../../shared/wiring.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

let h: Harness;
let repo: DynamoDefinitionRepository;

beforeAll(async () => {
  h = await startHarness();
  repo = new DynamoDefinitionRepository(dynamo(), tableName());
});
afterAll(() => h.close());

describe('definition repository', () => {
  it('creates once and reports the duplicate', async () => {
    assert.equal(await repo.createRole('s1', { role_name: 'r', display_name: 'one' }), 'created');
    assert.equal(await repo.createRole('s1', { role_name: 'r', display_name: 'two' }), 'exists');
    assert.deepEqual(await repo.listRoles('s1'), [{ role_name: 'r', display_name: 'one' }]);
  });

  it('updates and deletes only what exists', async () => {
    assert.equal(await repo.updateRole('s1', { role_name: 'missing', display_name: 'x' }), false);
    assert.equal(await repo.deleteRole('s1', 'missing'), false);
    assert.deepEqual(await repo.listRoles('s1'), [{ role_name: 'r', display_name: 'one' }], 'no item appeared');
    assert.equal(await repo.updateEnv('s1', { id: 5, name: 'x' }), false);
    assert.equal(await repo.getEnv('s1', 5), undefined);
  });

  it('deletes an attribute only through its own kind', async () => {
    await repo.createAttribute('s1', 'saas_user', { attribute_name: 'a', display_name: 'A', attribute_type: 'date' });
    assert.equal(await repo.deleteAttribute('s1', 'user', 'a'), false);
    assert.equal((await repo.listAttributes('s1', 'saas_user')).length, 1);
    assert.equal(await repo.deleteAttribute('s1', 'saas_user', 'a'), true);
    assert.equal((await repo.listAttributes('s1', 'saas_user')).length, 0);
  });

  it('keeps SaaS apart: same names in two SaaS are two items', async () => {
    assert.equal(await repo.createEnv('s1', { id: 1, name: 'one', display_name: '' }), 'created');
    assert.equal(await repo.createEnv('s2', { id: 1, name: 'two', display_name: '' }), 'created');
    assert.deepEqual(await repo.getEnv('s1', 1), { id: 1, name: 'one', display_name: '' });
    assert.deepEqual(await repo.getEnv('s2', 1), { id: 1, name: 'two', display_name: '' });
    assert.equal(await repo.deleteEnv('s2', 1), true);
    assert.deepEqual(await repo.getEnv('s1', 1), { id: 1, name: 'one', display_name: '' });
  });

  it('lists envs in numeric order across pages of many items', async () => {
    const ids = [1000, 2, 30, 7, 100000, 45];
    for (const id of ids) await repo.createEnv('s3', { id, name: `e${id}`, display_name: '' });
    assert.deepEqual(
      (await repo.listEnvs('s3')).map((e) => e.id),
      [...ids].sort((a, b) => a - b),
    );
  });

  it('tags every item with its entity and version, under a partition that starts with its SaaS id', async () => {
    const out = await dynamo().send(new ScanCommand({ TableName: tableName() }));
    assert.ok((out.Items ?? []).length > 5);
    for (const item of out.Items ?? []) {
      assert.equal(typeof item.entity, 'string', JSON.stringify(item));
      assert.equal(item.v, 1);
      assert.match(item.pk as string, /^SAAS#[^#]+/);
    }
  });
});

describe('sign-in counts repository', () => {
  it('adds concurrent counts atomically and reads a range of days, per SaaS', async () => {
    const counts = new DynamoSignInCountsRepository(dynamo(), tableName(), 86_400);
    await Promise.all(Array.from({ length: 20 }, (_, i) => counts.add('s1', '2026-11-25', { sign_in_succeeded: 1, sign_in_failed: i % 2 })));
    await counts.add('s1', '2026-11-26', { locked_out: 2 });
    await counts.add('s1', '2026-11-27', {});
    await counts.add('s2', '2026-11-26', { sign_in_succeeded: 7 });
    assert.deepEqual(await counts.days('s1', '2026-11-20', '2026-11-30'), [
      { day: '2026-11-25', sign_in_succeeded: 20, sign_in_failed: 10, locked_out: 0 },
      { day: '2026-11-26', sign_in_succeeded: 0, sign_in_failed: 0, locked_out: 2 },
    ]);
    assert.deepEqual(await counts.days('s1', '2026-11-26', '2026-11-26'), [
      { day: '2026-11-26', sign_in_succeeded: 0, sign_in_failed: 0, locked_out: 2 },
    ]);
    const [item] =
      (
        await dynamo().send(
          new ScanCommand({
            TableName: tableName(),
            FilterExpression: 'sk = :sk AND pk = :pk',
            ExpressionAttributeValues: { ':sk': 'DAY#2026-11-26', ':pk': 'SAAS#s2#SIGNINCOUNTS' },
          }),
        )
      ).Items ?? [];
    assert.equal(item?.expiresAt, Date.parse('2026-11-27T00:00:00Z') / 1000 + 86_400, 'kept the retention past the end of its day');
  });
});
