/**
 * Sign-in on the Lambda path: full SRP sign-ins (POST /sign-in, then PASSWORD_VERIFIER, ending with tokens)
 * with the sign-in function's handler called in this process as Lambda calls it (bench/lambda-client.ts: the
 * API Gateway v2 event local/server.ts builds, no HTTP server), against DynamoDB Local. What a Lambda pays per
 * sign-in is the handler's CPU time: it is printed beside the crypto floor measured in the same run, between
 * the sign-ins (three 3072-bit modular exponentiations through OpenSSL, g^b, v^u and (A·v^u)^b with 256-bit
 * exponents, and two RS256 signatures, the ID and the access token). Target: ≤ 1.5× the floor. The client's
 * SRP work runs outside the handler and is not counted.
 * Twice: with the default sign-in settings (devices offered at the user's choice) and with devices off.
 *   npm run bench -- sign-in-lambda
 */
import { createDiffieHellman, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { G, N } from '../shared/crypto/srp.js';
import { toBig, toBytes, N_BIG } from '../shared/crypto/srp-server.js';
import { dynamo } from '../shared/wiring.js';
import { apiLogKeys } from '../shared/store/keys.js';
import { startHarness } from '../dev-support/harness.js';
import { srpSignIn } from '../dev-support/sign-in.js';
import { SrpTestClient } from '../dev-support/srp-client.js';
import { expectStatus, patientStoreClient, startBenchDynamo } from './fixtures.js';
import { LambdaClient } from './lambda-client.js';
import { ms, summarize, writeResults } from './support.js';

const USERS = 20;
const WARMUP = 50;
// BENCH_SIGN_INS shortens a run (a CPU profile, a quick comparison); the figures in docs/proof.md are of 300.
const SIGN_INS = Number(process.env.BENCH_SIGN_INS ?? 300);
const PASSWORD = 'Lambda-pass-1';
const TARGET = 1.5;

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

const dynamoLocal = await startBenchDynamo();
const h = await startHarness();
patientStoreClient();
try {
  // The API log's own write (one per signed call, bench/apilog.bench.ts) is counted apart from the sign-in's.
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
  for (let i = 0; i < USERS; i++) {
    const email = `lambda-${i}@bench.test`;
    expectStatus(await api.post('/users', { email, password: PASSWORD }), 201, 'create user');
    emails.push(email);
  }

  const runs: Record<string, unknown> = {};
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
    for (let i = 0; i < WARMUP + SIGN_INS; i++) {
      const [cpuBefore, systemBefore, msBefore] = [api.handlerCpuMs, api.handlerSystemMs, api.handlerMs];
      [requests, logWrites, storeCpuMs] = [0, 0, 0];
      const res = await srpSignIn(api, emails[i % USERS] as string, PASSWORD);
      if (res.status !== 200 || !res.body.credentials) throw new Error(`a sign-in failed: ${res.status} ${res.text}`);
      const floorMs = floor();
      if (i < WARMUP) continue;
      cpu.push(api.handlerCpuMs - cpuBefore);
      system.push(api.handlerSystemMs - systemBefore);
      storeCpu.push(storeCpuMs);
      elapsed.push(api.handlerMs - msBefore);
      storeRequests.push(requests);
      apiLogWrites.push(logWrites);
      floors.push(floorMs);
    }
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
        ` (and ${figures.apiLogWrites} API log writes, one per call)\n`,
    );
  }
  writeResults('sign-in-lambda', runs);
} finally {
  await h.close();
  await dynamoLocal.stop();
}
