/**
 * What the API log costs a signed call: the same read (Get Roles) through the request pipeline in-process,
 * without the API log, with it as it is (the record told as a line, written to /dev/null as a Lambda writes it to
 * its stdout; the writer function writes it later), and with the call writing its record itself (one PutItem,
 * the path before the lines), against DynamoDB Local. Figures: store requests per call (counted at the store
 * client), the service's own CPU per call (DynamoDB Local runs in its own JVM), and latency. Local figures
 * compare the three, not what AWS will answer in.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { randomBytes } from 'node:crypto';
import { freePort, startDynamoLocal } from '../local/engines.js';
import { createLocalTable, useLocalEngines } from '../local/runtime.js';
import { createSaasAccount, findActiveApiKey, issueApiKey } from '../shared/domain/accounts/accounts.js';
import { createGroupHandler, type CallRecorder } from '../shared/http/pipeline.js';
import { authorizationHeader } from '../shared/http/signature.js';
import { definitionSchemas } from '../shared/schemas/definitions.js';
import { operation } from '../shared/schemas/operation.js';
import { DynamoAccountRepository } from '../shared/store/account-repository.js';
import {
  accountRepository,
  definitionService,
  dynamo,
  pipelineSettings,
  recordApiCall,
  secretBox,
  sendShippedLinesTo,
  tableName,
} from '../shared/wiring.js';
import { apiLogRecord } from '../shared/domain/apilog/api-log.js';
import { DynamoApiLogRepository } from '../shared/store/api-log-repository.js';
import { closeSync, openSync, writeSync } from 'node:fs';
import { cpuPerCall, ms, sample, summarize, writeResults } from './support.js';

const CALLS = 300;
const engine = await startDynamoLocal({ port: await freePort(), sharedDb: false });
try {
  useLocalEngines({ dynamoUrl: engine.url, masterKey: randomBytes(32).toString('base64') });
  await createLocalTable(engine.url, tableName());
  const saas = await createSaasAccount(new DynamoAccountRepository(dynamo(), tableName()), 'bench');
  const key = await issueApiKey(accountRepository(), secretBox(), saas.id, ['*']);
  await definitionService().createRole(saas.id, { role_name: 'admin', display_name: 'Admin' });

  const operations = {
    getRoles: operation(definitionSchemas.getRoles, async (_, ctx) => ({ roles: await definitionService().listRoles(ctx.saasId) })),
  };
  const keys = (saasId: string, apiKey: string) => findActiveApiKey(accountRepository(), secretBox(), saasId, apiKey);
  const devNull = openSync('/dev/null', 'w');
  sendShippedLinesTo((line) => void writeSync(devNull, `${line}\n`));
  const records = new DynamoApiLogRepository(dynamo(), tableName(), 8);
  const handlers: Record<string, ReturnType<typeof createGroupHandler>> = {
    withoutLog: createGroupHandler('definitions', operations, keys, pipelineSettings()),
    withLog: createGroupHandler('definitions', operations, keys, pipelineSettings(), recordApiCall satisfies CallRecorder),
    storeWrite: createGroupHandler('definitions', operations, keys, pipelineSettings(), (call) => records.put(apiLogRecord(call, 90 * 86400))),
  };

  const path = '/v1/auth/roles';
  const event = (): APIGatewayProxyEventV2 => ({
    version: '2.0',
    routeKey: `GET ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: {
      host: 'localhost',
      authorization: authorizationHeader(key.secret, saas.id, key.apiKey, {
        method: 'GET',
        host: 'localhost',
        path,
        query: '',
        body: Buffer.alloc(0),
      }),
    },
    requestContext: {
      accountId: 'bench',
      apiId: 'bench',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
      requestId: randomBytes(8).toString('hex'),
      routeKey: `GET ${path}`,
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
    isBase64Encoded: false,
  });

  const requests = new Map<string, number>();
  let counting = false;
  dynamo().intercept((command, next) => {
    if (counting) requests.set(command.operation, (requests.get(command.operation) ?? 0) + 1);
    return next();
  });

  // Rounds alternate between the two so JIT warm-up and the neighbours' load fall on both alike.
  const ROUNDS = 5;
  const callOf = (name: string) => async () => {
    const answer = await (handlers[name] as (typeof handlers)[string])(event(), {} as Context);
    if (answer.statusCode !== 200) throw new Error(`${name}: status ${answer.statusCode}`);
  };
  const cpu: Record<string, number[]> = { withoutLog: [], withLog: [], storeWrite: [] };
  const latencies: Record<string, number[]> = { withoutLog: [], withLog: [], storeWrite: [] };
  for (const name of Object.keys(handlers)) for (let i = 0; i < 100; i++) await callOf(name)();
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of round % 2 ? ['storeWrite', 'withLog', 'withoutLog'] : ['withoutLog', 'withLog', 'storeWrite']) {
      cpu[name]?.push(await cpuPerCall(CALLS / ROUNDS, callOf(name), 0));
      latencies[name]?.push(...(await sample(CALLS / ROUNDS, callOf(name), 0)));
    }
  }
  const figures: Record<string, unknown> = {};
  for (const name of Object.keys(handlers)) {
    requests.clear();
    counting = true;
    for (let i = 0; i < 100; i++) await callOf(name)();
    counting = false;
    const perCall = Object.fromEntries([...requests].map(([op, n]) => [op, n / 100]));
    const cpuMs = summarize(cpu[name] ?? []).median;
    const latency = summarize(latencies[name] ?? []);
    figures[name] = { cpuMsPerCall: cpuMs, storeRequestsPerCall: perCall, latency };
    process.stdout.write(
      `${name.padEnd(11)} cpu/call ${ms(cpuMs)} (median of ${ROUNDS} rounds)  store requests/call ${JSON.stringify(perCall)}  median ${ms(latency.median)}  p99 ${ms(latency.p99)}\n`,
    );
  }
  writeResults('apilog', { calls: CALLS, ...figures });
  closeSync(devNull);
} finally {
  dynamo().destroy();
  await engine.stop();
}
