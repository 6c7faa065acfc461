/**
 * What each operation costs on AWS, from what it makes DynamoDB and Lambda do here: every DynamoDB request
 * of one call (counted by an interceptor on the service's store client, which asks for
 * ReturnConsumedCapacity INDEXES, so the read and write units come from DynamoDB Local's own consumed-
 * capacity figures, index writes included), and the time inside the function's handler (the billed
 * duration's stand-in). Then a month for 10 000 monthly active users at on-demand list prices, beside
 * Amazon Cognito's price for the same users. docs/deployment.md's "What it costs" is filled from this.
 *   npm run bench -- cost
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { runScheduledWork } from '../functions/scheduled/handler.js';
import { GROUP_HANDLERS } from '../local/handlers.js';
import type { Group } from '../shared/routes.js';
import { dynamo } from '../shared/wiring.js';
import { startHarness } from '../dev-support/harness.js';
import { srpSignIn } from '../dev-support/sign-in.js';
import { expectStatus, PASSWORD, seedSaas, startBenchDynamo } from './fixtures.js';
import { summarize, writeResults } from './support.js';

const CALLS = 50;
const MEMBERS = 20;

/** AWS list prices, us-east-1, on-demand (checked 2025; DynamoDB after its November 2024 price cut). */
const PRICES = {
  region: 'us-east-1',
  dynamoReadPerMillionUnits: 0.125,
  dynamoWritePerMillionUnits: 0.625,
  /** Lambda on Arm (Graviton), per GB-second; the stack's functions have 1024 MB. */
  lambdaPerGbSecond: 0.0000133334,
  lambdaMemoryGb: 1,
  lambdaPerMillionRequests: 0.2,
  /** API Gateway HTTP API, first 300 million requests a month. */
  apiPerMillionRequests: 1.0,
  /** Amazon Cognito user pools, Essentials tier, per monthly active user (beyond its free tier). */
  cognitoPerMau: 0.015,
};

/** The month the issue prices: 10 000 monthly active users, each with 30 sign-ins, 100 refreshes, 50 management calls. */
const MONTH = { activeUsers: 10_000, signIns: 30, refreshes: 100, managementCalls: 50, scheduledRuns: 60 * 24 * 30 };

const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);

interface Capacity {
  CapacityUnits?: number;
}

/** Per call: DynamoDB requests by command, read and write units, and the handlers' time. */
interface CallRecord {
  requests: Record<string, number>;
  readUnits: number;
  writeUnits: number;
  /** Requests that failed (a refused condition): counted, at one write unit, as AWS bills them. */
  failed: number;
  handlerMs: number;
  invocations: number;
}

const newRecord = (): CallRecord => ({ requests: {}, readUnits: 0, writeUnits: 0, failed: 0, handlerMs: 0, invocations: 0 });
let current = newRecord();

const dynamoLocal = await startBenchDynamo();
const h = await startHarness();
try {
  dynamo().intercept(async (command, next) => {
    const name = command.operation;
    current.requests[name] = (current.requests[name] ?? 0) + 1;
    (command.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'INDEXES';
    try {
      const result = await next();
      const consumed = (result as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity;
      const units = [consumed ?? []].flat().reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
      if (READS.has(name)) current.readUnits += units;
      else current.writeUnits += units;
      return result;
    } catch (error) {
      current.failed++;
      if (!READS.has(name)) current.writeUnits += 1;
      throw error;
    }
  });
  for (const group of Object.keys(GROUP_HANDLERS) as Group[]) {
    const handler = GROUP_HANDLERS[group];
    GROUP_HANDLERS[group] = async (event: APIGatewayProxyEventV2, context: Context) => {
      const start = process.hrtime.bigint();
      try {
        return await handler(event, context);
      } finally {
        current.handlerMs += Number(process.hrtime.bigint() - start) / 1e6;
        current.invocations++;
      }
    };
  }

  const { client: api } = await h.newSaas();
  const seeded = await seedSaas(api, { users: MEMBERS, members: MEMBERS, emailPrefix: 'cost' });
  const signedIn = expectStatus(await srpSignIn(api, seeded.users[0]!.email, PASSWORD), 200, 'sign in');
  const refreshToken = signedIn.credentials!.refresh_token as string;
  let created = 0;

  const operations: { name: string; api: boolean; call: () => Promise<unknown> }[] = [
    {
      name: 'Sign in (SRP, both steps)',
      api: true,
      call: async () => expectStatus(await srpSignIn(api, seeded.users[created % MEMBERS]!.email, PASSWORD), 200, 'sign in'),
    },
    {
      name: 'Refresh tokens',
      api: true,
      call: async () =>
        expectStatus(await api.get(`/credentials?auth-flow=refreshTokenAuth&refresh-token=${encodeURIComponent(refreshToken)}`), 200, 'refresh'),
    },
    { name: 'Get tenant', api: true, call: async () => expectStatus(await api.get(`/tenants/${seeded.tenantId}`), 200, 'get tenant') },
    {
      name: 'Create SaaS user',
      api: true,
      call: async () =>
        expectStatus(await api.post('/users', { email: `new-${created++}-${Date.now()}@bench.test`, password: PASSWORD }), 201, 'create user'),
    },
    {
      name: 'Search users (e-mail prefix, 20)',
      api: true,
      call: async () => expectStatus(await api.get('/users/search?email=cost-&limit=20'), 200, 'search'),
    },
    {
      name: `Get tenant users (${MEMBERS} members)`,
      api: true,
      call: async () => expectStatus(await api.get(`/tenants/${seeded.tenantId}/users`), 200, 'tenant users'),
    },
    { name: 'Scheduled run (per SaaS)', api: false, call: () => runScheduledWork() },
  ];

  const rows = [];
  for (const op of operations) {
    const records: CallRecord[] = [];
    for (let i = 0; i < CALLS + 5; i++) {
      current = newRecord();
      const start = process.hrtime.bigint();
      await op.call();
      if (!op.api) [current.handlerMs, current.invocations] = [Number(process.hrtime.bigint() - start) / 1e6, 1];
      if (i >= 5) records.push(current);
    }
    const median = (pick: (r: CallRecord) => number) => summarize(records.map(pick)).median;
    const requests: Record<string, number> = {};
    for (const command of new Set(records.flatMap((r) => Object.keys(r.requests)))) requests[command] = median((r) => r.requests[command] ?? 0);
    const row = {
      operation: op.name,
      requests,
      requestCount: median((r) => Object.values(r.requests).reduce((a, b) => a + b, 0)),
      readUnits: median((r) => r.readUnits),
      writeUnits: median((r) => r.writeUnits),
      failedRequests: median((r) => r.failed),
      invocations: median((r) => r.invocations),
      apiRequests: op.api ? median((r) => r.invocations) : 0,
      lambdaMs: median((r) => r.handlerMs),
      lambdaMsP99: summarize(records.map((r) => r.handlerMs)).p99,
    };
    rows.push({ ...row, costPerMillion: costPerMillion(row) });
  }

  const [signIn, refresh, ...rest] = rows;
  const management = rest.filter((r) => r.apiRequests > 0);
  const scheduled = rest.find((r) => r.apiRequests === 0)!;
  const managementCost = management.reduce((sum, r) => sum + r.costPerMillion, 0) / management.length;
  const calls = {
    signIns: MONTH.activeUsers * MONTH.signIns,
    refreshes: MONTH.activeUsers * MONTH.refreshes,
    managementCalls: MONTH.activeUsers * MONTH.managementCalls,
  };
  const monthly = {
    signIns: (calls.signIns / 1e6) * signIn!.costPerMillion,
    refreshes: (calls.refreshes / 1e6) * refresh!.costPerMillion,
    managementCalls: (calls.managementCalls / 1e6) * managementCost,
    scheduledRuns: (MONTH.scheduledRuns / 1e6) * scheduled.costPerMillion,
  };
  const total = Object.values(monthly).reduce((a, b) => a + b, 0);
  const cognito = MONTH.activeUsers * PRICES.cognitoPerMau;

  const dollars = (value: number) => `$${value < 10 ? value.toFixed(2) : value.toFixed(0)}`;
  const list = (requests: Record<string, number>) =>
    Object.entries(requests)
      .map(([command, n]) => `${command.replace(/Command$/, '')}×${n}`)
      .join(', ');
  process.stdout.write(`DynamoDB requests, capacity units and handler time per call (median of ${CALLS}); prices: ${PRICES.region} on-demand\n`);
  process.stdout.write(
    `${'operation'.padEnd(36)}${'requests'.padStart(9)}${'RRU'.padStart(7)}${'WRU'.padStart(7)}${'Lambda ms'.padStart(11)}${'$/million'.padStart(11)}   requests by command\n`,
  );
  for (const r of rows) {
    process.stdout.write(
      `${r.operation.padEnd(36)}${String(r.requestCount).padStart(9)}${String(r.readUnits).padStart(7)}${String(r.writeUnits).padStart(7)}` +
        `${r.lambdaMs.toFixed(1).padStart(11)}${r.costPerMillion.toFixed(2).padStart(11)}   ${list(r.requests)}${r.failedRequests ? `  (${r.failedRequests} refused)` : ''}\n`,
    );
  }
  process.stdout.write(
    `\nA month of ${MONTH.activeUsers} active users (${MONTH.signIns} sign-ins, ${MONTH.refreshes} refreshes, ${MONTH.managementCalls} management calls each; one SaaS's scheduled runs):\n` +
      `  sign-ins ${dollars(monthly.signIns)} + refreshes ${dollars(monthly.refreshes)} + management ${dollars(monthly.managementCalls)} + scheduled ${dollars(monthly.scheduledRuns)}` +
      ` = ${dollars(total)} a month (${dollars((total / MONTH.activeUsers) * 1000)} per 1 000 users), beside Amazon Cognito Essentials ${dollars(cognito)}\n`,
  );
  process.stdout.write('\nRows for docs/deployment.md:\n');
  for (const r of rows) {
    process.stdout.write(
      `| ${r.operation} | ${r.requestCount} (${list(r.requests)}) | ${r.readUnits} | ${r.writeUnits} | ${r.lambdaMs.toFixed(0)} | $${r.costPerMillion.toFixed(2)} |\n`,
    );
  }
  writeResults('cost', { prices: PRICES, month: MONTH, calls: CALLS, operations: rows, monthly, monthlyTotal: total, cognitoMonthly: cognito });
} finally {
  await h.close();
  await dynamoLocal.stop();
}

/**
 * Dollars per million calls: the units at DynamoDB's prices, each invocation's billed duration (whole
 * milliseconds) and request at Lambda's, each API request at API Gateway's.
 */
function costPerMillion(row: { readUnits: number; writeUnits: number; invocations: number; apiRequests: number; lambdaMs: number }): number {
  const perInvocationMs = row.invocations ? Math.ceil(row.lambdaMs / row.invocations) : 0;
  const lambdaSeconds = (perInvocationMs * row.invocations) / 1000;
  return (
    row.readUnits * PRICES.dynamoReadPerMillionUnits +
    row.writeUnits * PRICES.dynamoWritePerMillionUnits +
    lambdaSeconds * PRICES.lambdaMemoryGb * PRICES.lambdaPerGbSecond * 1e6 +
    row.invocations * PRICES.lambdaPerMillionRequests +
    row.apiRequests * PRICES.apiPerMillionRequests
  );
}
