/**
 * Sign-in on the Lambda path: full SRP sign-ins (POST /sign-in, then PASSWORD_VERIFIER, ending with tokens)
 * with the sign-in function's handler called in this process as Lambda calls it (bench/lambda-client.ts: the
 * API Gateway v2 event local/server.ts builds, no HTTP server), against DynamoDB Local. What a Lambda pays per
 * sign-in is the handler's CPU time: it is printed beside the crypto floor measured in the same run, between
 * the sign-ins (three 3072-bit modular exponentiations through OpenSSL, g^b, v^u and (A·v^u)^b with 256-bit
 * exponents, and two RS256 signatures, the ID and the access token). Target: ≤ 1.5× the floor. The client's
 * SRP work runs outside the handler and is not counted.
 * Twice: with the default sign-in settings (devices offered at the user's choice) and with devices off.
 * The API log's records and the sign-in count leave the handler as lines (shared/domain/apilog/shipped-lines.ts):
 * here each is written to /dev/null with a write(2), as a Lambda writes it to its stdout pipe, and kept; after the
 * sign-ins, the API log writer's cost for them is measured apart (its CPU and store requests per sign-in), as
 * the writer function would pay it for CloudWatch Logs' batches. Every other sign-in writes its calls' records
 * the way it did before, one PutItem per call awaited by the handler, so the two are compared in the same
 * process on the same load (the machine is shared: runs apart differ by a millisecond).
 * Last, the least a sign-in can cost on this path whatever its own code does (leastOfThisPath), beside the target.
 *   npm run bench -- sign-in-lambda
 */
import { createDiffieHellman, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import { G, N } from '../shared/crypto/srp.js';
import { toBig, toBytes, N_BIG } from '../shared/crypto/srp-server.js';
import { dynamo, groupHandler, recordApiCall, sendShippedLinesTo, tableName, writeShippedLines } from '../shared/wiring.js';
import { apiLogKeys, keys, type ItemKey } from '../shared/store/keys.js';
import { DynamoApiLogRepository } from '../shared/store/api-log-repository.js';
import { readShippedLine } from '../shared/domain/apilog/shipped-lines.js';
import { startHarness } from '../dev-support/harness.js';
import { srpSignIn, startSignIn } from '../dev-support/sign-in.js';
import { operation } from '../shared/schemas/operation.js';
import { signInSchemas } from '../shared/schemas/sign-in.js';
import { GetCommand, UpdateCommand } from '../shared/store/dynamo-client.js';
import { SrpTestClient } from '../dev-support/srp-client.js';
import { expectStatus, patientStoreClient, startBenchDynamo } from './fixtures.js';
import { LambdaClient } from './lambda-client.js';
import { cpuPerCall, ms, summarize, writeResults } from './support.js';

const USERS = 20;
const WARMUP = 50;
// BENCH_SIGN_INS shortens a run (a CPU profile, a quick comparison); the figures in docs/proof.md are of 300.
const SIGN_INS = Number(process.env.BENCH_SIGN_INS ?? 300);
const PASSWORD = 'Lambda-pass-1';
const TARGET = 1.5;
/** Lines per writer invocation: CloudWatch Logs hands a subscription what arrived in a moment, often tens of lines. */
const WRITER_BATCH = 60;
const TELLS = 5000;

const floorContext = createDiffieHellman(N, G);
const verifier = randomBytes(384);
const A = new SrpTestClient().A;
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const claims = Buffer.from(`${'x'.repeat(300)}.${'y'.repeat(600)}`);

/** The floor's CPU time, in ms: what a sign-in cannot do without. */
function floor(): number {
  const [b, u] = [randomBytes(32), randomBytes(32)];
  const start = process.cpuUsage();
  floorContext.setPrivateKey(b);
  floorContext.generateKeys();
  floorContext.setPrivateKey(u);
  const vToU = floorContext.computeSecret(verifier);
  floorContext.setPrivateKey(b);
  floorContext.computeSecret(toBytes((A * toBig(vToU)) % N_BIG));
  sign('sha256', claims, privateKey);
  sign('sha256', claims, privateKey);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/**
 * What a sign-in costs on this path at the least, whatever the sign-in's own code does: both invocations through
 * the functions' pipeline (signature, routing, JSON and schema, the answer, the API log line) with stand-in
 * operations that answer what a sign-in answers and do nothing else, and the store requests a sign-in makes,
 * each alone (the login owner's item, the profile, and a conditional UpdateItem of one attribute). Measured
 * interleaved with real sign-ins, so the caches are as cold as in the figures above; beside the floor. What the
 * target leaves for the sign-in's own work (the session's sealing, the proof's inputs, the token claims, the
 * lockout, replay, activity and device rules, and their items' size) is the target less this.
 */
async function leastOfThisPath(api: LambdaClient, saasId: string, emails: string[], userIds: string[]) {
  const first = expectStatus(await srpSignIn(api, emails[0] as string, PASSWORD), 200, 'a sign-in');
  const started = expectStatus(await startSignIn(api, emails[0] as string, new SrpTestClient().srpA), 200, 'a challenge');
  const standIn = new LambdaClient(api.baseUrl, api.credentials);
  standIn.handlers['sign-in'] = groupHandler('sign-in', () => undefined, {
    signIn: operation(signInSchemas.signIn, async () => started),
    respondToSignInChallenge: operation(signInSchemas.respondToSignInChallenge, async () => first),
  });
  // One call's CPU, no warm-up of its own: the loop's earlier rounds are the warm-up.
  const cpuOf = (call: () => Promise<unknown>) => cpuPerCall(1, call, 0);
  const parts = { pipeline: [] as number[], ownerRead: [] as number[], profileRead: [] as number[], write: [] as number[], floor: [] as number[] };
  for (let i = 0; i < WARMUP + SIGN_INS; i++) {
    const [email, userId] = [emails[i % USERS] as string, userIds[i % USERS] as string];
    expectStatus(await srpSignIn(api, email, PASSWORD), 200, 'a sign-in');
    const before = standIn.handlerCpuMs;
    // The stand-ins answer the first user's challenge whatever the proof: the client's answer is not checked.
    expectStatus(await srpSignIn(standIn, email, PASSWORD), 200, 'a stand-in sign-in');
    const pipeline = standIn.handlerCpuMs - before;
    const read = (key: ItemKey) => dynamo().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
    const ownerRead = await cpuOf(() => read(keys.loginOwner(saasId, { kind: 'email', value: email })));
    const profileRead = await cpuOf(() => read(keys.userProfile(saasId, userId)));
    const write = await cpuOf(() =>
      dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.userProfile(saasId, userId),
          UpdateExpression: 'SET #at = :at',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#at': 'last_login_at' },
          ExpressionAttributeValues: { ':at': Math.floor(Date.now() / 1000) },
        }),
      ),
    );
    const floorMs = floor();
    if (i < WARMUP) continue;
    Object.entries({ pipeline, ownerRead, profileRead, write, floor: floorMs }).forEach(([name, value]) =>
      parts[name as keyof typeof parts].push(value),
    );
  }
  const m = Object.fromEntries(Object.entries(parts).map(([name, values]) => [name, summarize(values).median])) as Record<keyof typeof parts, number>;
  // As made (the profile carries its activity events and offers: 4-8 KB), with a profile as small as the login
  // owner's item (1 KB: what a profile without them would be), and without the profile's read.
  const totals = {
    threeRequests: m.floor + m.pipeline + m.ownerRead + m.profileRead + m.write,
    threeRequestsLeanProfile: m.floor + m.pipeline + 2 * m.ownerRead + m.write,
    twoRequests: m.floor + m.pipeline + m.ownerRead + m.write,
  };
  const least = { ...m, ...totals, leftAtTarget: Object.fromEntries(Object.entries(totals).map(([k, total]) => [k, TARGET * m.floor - total])) };
  const line = (what: string, total: number) =>
    `  ${what.padEnd(44)} ${ms(total)} = ${(total / m.floor).toFixed(2)}× the floor; left for the sign-in's own work at ${TARGET}×: ${ms(TARGET * m.floor - total)}\n`;
  process.stdout.write(
    `The least a sign-in costs on this path (n = ${SIGN_INS}, medians; floor ${ms(m.floor)})\n` +
      `  pipeline, both invocations, stand-in operations: ${ms(m.pipeline)}\n` +
      `  store: login owner read ${ms(m.ownerRead)}, profile read ${ms(m.profileRead)}, conditional UpdateItem ${ms(m.write)}\n` +
      line('three requests, the profile as it is', totals.threeRequests) +
      line('three requests, a profile of 1 KB', totals.threeRequestsLeanProfile) +
      line('two requests (no read of the profile)', totals.twoRequests),
  );
  return least;
}

const dynamoLocal = await startBenchDynamo();
const h = await startHarness();
patientStoreClient();
try {
  // The API log writer's writes are counted apart from the sign-in's (none is made on the sign-in's path).
  let [requests, logWrites] = [0, 0];
  // BENCH_STORE_CPU=1 also reads the CPU time spent from each store request's start to its answer (reading the
  // clock costs a little CPU of its own, so it is off for the figures of record).
  let storeCpuMs = 0;
  const timeStore = process.env.BENCH_STORE_CPU === '1';
  dynamo().intercept((command, next) => {
    if (apiLogKeys.isRecordWrite(command.operation, command.input)) logWrites++;
    else requests++;
    if (!timeStore) return next();
    const before = process.cpuUsage();
    return next().finally(() => {
      const used = process.cpuUsage(before);
      storeCpuMs += (used.user + used.system) / 1000;
    });
  });
  const saas = await h.newSaas();
  const api = new LambdaClient('https://api.lambda.test/v1/auth', saas);
  const emails: string[] = [];
  const userIds: string[] = [];
  for (let i = 0; i < USERS; i++) {
    const email = `lambda-${i}@bench.test`;
    userIds.push(expectStatus(await api.post<{ id: string }>('/users', { email, password: PASSWORD }), 201, 'create user').id);
    emails.push(email);
  }

  await h.flush();
  const devNull = openSync('/dev/null', 'w');
  let told: string[] = [];
  /** The path before the lines: the call's own PutItem of its record, awaited before it answers. */
  let storeWrites = false;
  const records = new DynamoApiLogRepository(dynamo(), tableName(), 8);
  const localSink = sendShippedLinesTo((line) => {
    if (storeWrites) {
      const shipped = readShippedLine(line);
      return shipped?.kind === 'api-log' ? records.put(shipped.record) : undefined;
    }
    writeSync(devNull, `${line}\n`);
    told.push(line);
    return undefined;
  });

  const runs: Record<string, unknown> = {};
  const linesOf = new Map<string, string[]>();
  for (const [label, settings] of [
    ['default settings (devices: userOptIn)', undefined],
    ['devices off', { device_configuration: { device_remembering: 'no' } }],
  ] as const) {
    if (settings) expectStatus(await api.put('/sign-in-settings', settings), 200, 'sign-in settings');
    const cpu: number[] = [];
    const system: number[] = [];
    const storeCpu: number[] = [];
    const elapsed: number[] = [];
    const storeRequests: number[] = [];
    const apiLogWrites: number[] = [];
    const floors: number[] = [];
    const linesTold: number[] = [];
    const measuredLines: string[] = [];
    const before = { cpu: [] as number[], logWrites: [] as number[] };
    for (let i = 0; i < WARMUP + 2 * SIGN_INS; i++) {
      const [cpuBefore, systemBefore, msBefore] = [api.handlerCpuMs, api.handlerSystemMs, api.handlerMs];
      [requests, logWrites, storeCpuMs, told] = [0, 0, 0, []];
      storeWrites = i % 2 === 1;
      const res = await srpSignIn(api, emails[i % USERS] as string, PASSWORD);
      if (res.status !== 200 || !res.body.credentials) throw new Error(`a sign-in failed: ${res.status} ${res.text}`);
      const floorMs = floor();
      if (i < WARMUP) continue;
      if (storeWrites) {
        before.cpu.push(api.handlerCpuMs - cpuBefore);
        before.logWrites.push(logWrites);
        continue;
      }
      cpu.push(api.handlerCpuMs - cpuBefore);
      system.push(api.handlerSystemMs - systemBefore);
      storeCpu.push(storeCpuMs);
      elapsed.push(api.handlerMs - msBefore);
      storeRequests.push(requests);
      apiLogWrites.push(logWrites);
      linesTold.push(told.length);
      measuredLines.push(...told);
      floors.push(floorMs);
    }
    linesOf.set(label, measuredLines);
    const figures = {
      handlerCpu: summarize(cpu),
      // The kernel's share as a mean: Linux splits a thread's CPU time between user and system by ticks.
      handlerSystemMean: system.reduce((a, b) => a + b, 0) / system.length,
      handlerCpuMean: cpu.reduce((a, b) => a + b, 0) / cpu.length,
      ...(timeStore ? { storeCpu: summarize(storeCpu) } : {}),
      handlerElapsed: summarize(elapsed),
      floor: summarize(floors),
      ratio: summarize(cpu).median / summarize(floors).median,
      storeRequests: summarize(storeRequests).median,
      apiLogWrites: summarize(apiLogWrites).median,
      linesTold: summarize(linesTold).median,
      before: {
        handlerCpu: summarize(before.cpu),
        ratio: summarize(before.cpu).median / summarize(floors).median,
        apiLogWrites: summarize(before.logWrites).median,
      },
      target: TARGET,
    };
    runs[label] = figures;
    process.stdout.write(
      `Full SRP sign-in on the Lambda path, ${label} (n = ${SIGN_INS})\n` +
        `  handler CPU per sign-in     median ${ms(figures.handlerCpu.median)}   p99 ${ms(figures.handlerCpu.p99)}   (both invocations; mean ${ms(figures.handlerCpuMean)}, of which system ${ms(figures.handlerSystemMean)})\n` +
        (figures.storeCpu
          ? `  of which store requests     median ${ms(figures.storeCpu.median)}   (signing, JSON, the socket; API log writes included)\n`
          : '') +
        `  handler elapsed             median ${ms(figures.handlerElapsed.median)}   p99 ${ms(figures.handlerElapsed.p99)}   (DynamoDB Local's answers included)\n` +
        `  crypto floor, same run      median ${ms(figures.floor.median)}   (3 × 3072-bit modexp + 2 × RS256)\n` +
        `  handler / floor: ${figures.ratio.toFixed(2)}× (target ≤ ${TARGET}×); ${figures.storeRequests} store requests per sign-in` +
        ` (and ${figures.apiLogWrites} API log writes on its path; ${figures.linesTold} lines told for the writer)\n` +
        `  the same, each call writing its record (before), interleaved: median ${ms(figures.before.handlerCpu.median)}` +
        `   p99 ${ms(figures.before.handlerCpu.p99)}   ${figures.before.ratio.toFixed(2)}× the floor (${figures.before.apiLogWrites} API log writes)\n`,
    );
  }
  // After both runs, so that neither disturbs a run's figures: the API log writer's share, apart, for each run's
  // lines in CloudWatch-sized batches as the writer function gets them; then what telling one record costs.
  for (const [label, lines] of linesOf) {
    [requests, logWrites] = [0, 0];
    const writerCpu = process.cpuUsage();
    for (let i = 0; i < lines.length; i += WRITER_BATCH) await writeShippedLines(lines.slice(i, i + WRITER_BATCH));
    const writerUsed = process.cpuUsage(writerCpu);
    const writer = { cpuPerSignIn: (writerUsed.user + writerUsed.system) / 1000 / SIGN_INS, storeRequestsPerSignIn: logWrites / SIGN_INS };
    Object.assign(runs[label] as object, { writer });
    process.stdout.write(
      `API log writer for the lines of "${label}": ${ms(writer.cpuPerSignIn)} CPU and ` +
        `${writer.storeRequestsPerSignIn.toFixed(3)} store requests per sign-in (batches of ${WRITER_BATCH} lines)\n`,
    );
  }
  // The record built and redacted, its line made and written (the new path: the sign-ins' loop may have left the old one on).
  storeWrites = false;
  const call = { saasId: saas.saasId, apiKey: saas.apiKey, requestId: 'bench', method: 'POST', rawPath: '/v1/auth/sign-in/challenge' };
  const tellCpu = process.cpuUsage();
  for (let i = 0; i < TELLS; i++) {
    recordApiCall({ ...call, rawQuery: '', status: 200, sourceIp: '192.0.2.1', referer: undefined, at: Date.now(), latencyMs: 3 });
  }
  const tellUsed = process.cpuUsage(tellCpu);
  const tellMs = (tellUsed.user + tellUsed.system) / 1000 / TELLS;
  for (const label of linesOf.keys()) Object.assign(runs[label] as object, { tellOneRecordMs: tellMs });
  process.stdout.write(`Telling one record: ${(tellMs * 1000).toFixed(1)} µs of the handler's CPU (record, line, write to /dev/null)\n`);
  runs.least = await leastOfThisPath(api, saas.saasId, emails, userIds);
  writeResults('sign-in-lambda', runs);
  sendShippedLinesTo(localSink);
  closeSync(devNull);
} finally {
  await h.close();
  await dynamoLocal.stop();
}
