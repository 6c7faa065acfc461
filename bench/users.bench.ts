/**
 * Users against DynamoDB Local: what one create costs (SRP verifier included), and one page of each search.
 * Local figures say how the store work compares between operations, not what AWS will answer in.
 */
import { randomBytes } from 'node:crypto';
import { freePort, startDynamoLocal } from '../local/engines.js';
import { createLocalTable, useLocalEngines } from '../local/runtime.js';
import { createPasswordVerifier } from '../shared/crypto/srp.js';
import { createSaasAccount } from '../shared/domain/accounts/accounts.js';
import { DynamoAccountRepository } from '../shared/store/account-repository.js';
import { definitionService, tenantService, tenantUserService, userService, dynamo, tableName } from '../shared/wiring.js';
import { ms, sample, summarize, writeResults } from './support.js';

const USERS = 300;
const engine = await startDynamoLocal({ port: await freePort(), sharedDb: false });
try {
  useLocalEngines({ dynamoUrl: engine.url, masterKey: randomBytes(32).toString('base64') });
  await createLocalTable(engine.url, tableName());
  const saas = await createSaasAccount(new DynamoAccountRepository(dynamo(), tableName()), 'bench');
  await definitionService().createEnv(saas.id, { id: 1, name: 'prod' });
  await definitionService().createRole(saas.id, { role_name: 'admin', display_name: 'Admin' });
  const tenant = await tenantService().create(saas.id, { name: 'Bench', attributes: {}, back_office_staff_email: 'ops@bench.test' });

  const users = userService();
  const tenantUsers = tenantUserService();
  let n = 0;
  const create = () => users.create(saas.id, { email: `user-${String(n++).padStart(5, '0')}@bench.test`, password: 'Bench-pass-1' });
  const creates = await sample(USERS, create, 0);
  for (let i = 0; i < USERS; i += 2) {
    await tenantUsers.create(saas.id, tenant.id, { email: `user-${String(i).padStart(5, '0')}@bench.test`, attributes: {} });
  }

  let odd = 1;
  const joinOdd = () => {
    const email = `user-${String(odd).padStart(5, '0')}@bench.test`;
    odd += 2;
    return tenantUsers.create(saas.id, tenant.id, { email, attributes: {} });
  };
  const figures = {
    srpVerifier: summarize(await sample(100, () => createPasswordVerifier('PoolBench', 'user', 'Bench-pass-1'))),
    createUser: summarize(creates),
    joinTenant: summarize(await sample(50, joinOdd, 0)),
    searchUsersPage100: summarize(await sample(20, () => users.search(saas.id, { limit: 100 }))),
    searchUsersByEmailPrefix20: summarize(await sample(20, () => users.search(saas.id, { email: 'user-001', limit: 20 }))),
    searchTenantUsersAllPage100: summarize(await sample(20, () => tenantUsers.search(saas.id, { limit: 100 }))),
    searchTenantUsersByTenantPage100: summarize(await sample(20, () => tenantUsers.search(saas.id, { tenant_id: tenant.id, limit: 100 }))),
    searchTenantUsersByEmailPrefix20: summarize(await sample(20, () => tenantUsers.search(saas.id, { email: 'user-001', limit: 20 }))),
  };
  for (const [name, s] of Object.entries(figures)) process.stdout.write(`${name.padEnd(34)} median ${ms(s.median)}  p99 ${ms(s.p99)}  (n=${s.n})\n`);
  writeResults('users', { users: USERS, ...figures });
} finally {
  dynamo().destroy();
  await engine.stop();
}
