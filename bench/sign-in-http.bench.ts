/**
 * Full SRP sign-ins (POST /sign-in, then POST /sign-in/challenge with PASSWORD_VERIFIER, ending with
 * credentials) through the local HTTP server against DynamoDB Local, with the fast test client:
 *   - sign-ins per second with 1, 4 and 16 clients at once;
 *   - the server-side time of one sign-in: the two operations inside the sign-in handler (the SRP work, the
 *     store requests, token signing), measured around the handler the local server calls, one client at a time;
 *   - the CPU this process spends per sign-in under load (the server, and the clients' HTTP; the clients'
 *     SRP work taken out).
 * The client and the server share this process (and DynamoDB Local runs beside it), so throughput here is a
 * floor for one machine, not a figure for AWS.
 *   npm run bench -- sign-in-http
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { GROUP_HANDLERS } from '../local/handlers.js';
import { srpSignIn, startSignIn } from '../test/support/sign-in.js';
import { SrpTestClient } from '../test/support/srp-client.js';
import { startHarness } from '../test/support/harness.js';
import { dynamo } from '../shared/store/client.js';
import { ms, sample, summarize, writeResults } from './support.js';

const USERS = 40;
const SEQUENTIAL = 200;
const PER_CONCURRENCY = 300;
const CONCURRENCY = [1, 4, 16];
const PASSWORD = 'Bench-pass-1';

const h = await startHarness();
try {
  const { client: api } = await h.newSaas();
  // Devices are not offered: a sign-in here is the SRP exchange and its credentials.
  await api.put('/sign-in-settings', { device_configuration: { device_remembering: 'no' } });
  const emails = Array.from({ length: USERS }, (_, i) => `bench-${i}-${randomUUID().slice(0, 6)}@bench.test`);
  for (const email of emails) {
    const created = await api.post('/users', { email, password: PASSWORD });
    if (created.status !== 201) throw new Error(`creating a user failed: ${created.text}`);
  }

  // The store requests a sign-in makes and the time they take: DynamoDB Local's share of the handler's time.
  let storeRequests = 0;
  let storeMs = 0;
  const db = dynamo();
  const send = db.send.bind(db) as (...args: unknown[]) => Promise<unknown>;
  (db as unknown as { send: typeof send }).send = async (...args: unknown[]) => {
    const start = process.hrtime.bigint();
    storeRequests++;
    try {
      return await send(...args);
    } finally {
      storeMs += Number(process.hrtime.bigint() - start) / 1e6;
    }
  };

  let handlerMs = 0;
  const signInHandler = GROUP_HANDLERS['sign-in'];
  GROUP_HANDLERS['sign-in'] = async (event: APIGatewayProxyEventV2, context: Context) => {
    const start = process.hrtime.bigint();
    try {
      return await signInHandler(event, context);
    } finally {
      handlerMs += Number(process.hrtime.bigint() - start) / 1e6;
    }
  };

  let next = 0;
  const signIn = async () => {
    const res = await srpSignIn(api, emails[next++ % USERS] as string, PASSWORD);
    if (res.status !== 200 || !res.body.credentials) throw new Error(`a sign-in failed: ${res.status} ${res.text}`);
  };

  // Server-side time per sign-in, one at a time.
  const handlerSamples: number[] = [];
  const storeSamples: number[] = [];
  const requestCounts: number[] = [];
  const latency = await sample(SEQUENTIAL, async () => {
    [handlerMs, storeMs, storeRequests] = [0, 0, 0];
    await signIn();
    handlerSamples.push(handlerMs);
    storeSamples.push(storeMs);
    requestCounts.push(storeRequests);
  });
  const serverSide = summarize(handlerSamples.slice(-SEQUENTIAL));
  const storeSide = summarize(storeSamples.slice(-SEQUENTIAL));
  const withoutStore = summarize(handlerSamples.slice(-SEQUENTIAL).map((total, i) => total - (storeSamples.slice(-SEQUENTIAL)[i] as number)));

  // What a client computes per sign-in (A, then the proof), so the process's CPU can be split.
  const probe = await startSignIn(api, emails[0] as string, new SrpTestClient().srpA);
  const clientCompute = summarize(await sample(50, () => new SrpTestClient().passwordAnswer(probe.body.challenge_parameters, PASSWORD)));

  const throughput: Record<string, { signInsPerSecond: number; cpuMsPerSignIn: number }> = {};
  for (const clients of CONCURRENCY) {
    const cpuBefore = process.cpuUsage();
    const started = process.hrtime.bigint();
    let remaining = PER_CONCURRENCY;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (remaining-- > 0) await signIn();
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000 / PER_CONCURRENCY;
    throughput[`${clients} clients`] = {
      signInsPerSecond: PER_CONCURRENCY / seconds,
      cpuMsPerSignIn: cpuMs - clientCompute.median,
    };
  }

  const figures = {
    users: USERS,
    fullSignInLatency: summarize(latency),
    serverSidePerSignIn: serverSide,
    storeWaitPerSignIn: storeSide,
    serverSideWithoutStore: withoutStore,
    storeRequestsPerSignIn: summarize(requestCounts).median,
    clientPerSignIn: clientCompute,
    throughput,
  };
  process.stdout.write(
    'Full SRP sign-in through the local HTTP API (POST /sign-in + PASSWORD_VERIFIER → credentials), DynamoDB Local\n' +
      `  latency, one client            median ${ms(figures.fullSignInLatency.median)}   p99 ${ms(figures.fullSignInLatency.p99)}   (n = ${figures.fullSignInLatency.n})\n` +
      `  inside the sign-in handler     median ${ms(serverSide.median)}   p99 ${ms(serverSide.p99)}   (both operations, store included)\n` +
      `    of which store requests      median ${ms(storeSide.median)}   (${figures.storeRequestsPerSignIn} requests to DynamoDB Local)\n` +
      `    the rest (SRP, tokens, HTTP)  median ${ms(withoutStore.median)}   p99 ${ms(withoutStore.p99)}\n` +
      `  the client's SRP work          median ${ms(clientCompute.median)}   (not counted as the server's)\n`,
  );
  process.stdout.write("  CPU: this process's, per sign-in (server and the clients' HTTP; the clients' SRP work taken out)\n");
  for (const [label, t] of Object.entries(throughput)) {
    process.stdout.write(`  ${label.padEnd(11)} ${t.signInsPerSecond.toFixed(1).padStart(7)} sign-ins/s   CPU ≈ ${ms(t.cpuMsPerSignIn)} per sign-in\n`);
  }
  writeResults('sign-in-http', figures);
} finally {
  await h.close();
}
