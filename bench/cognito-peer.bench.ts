/**
 * Side by side with cognito-local (npm, the usual local stand-in for Amazon Cognito), in one run on one
 * machine: each server in a process of its own, loaded the same way (the same number of clients at once).
 *   - sign-in, each at its best: our full SRP sign-in (two round trips, a proof checked, tokens signed) against
 *     its plaintext USER_PASSWORD_AUTH;
 *   - sign-in, the same flow on both sides: InitiateAuth USER_PASSWORD_AUTH (ours: a SaaS that turned it on,
 *     the password checked against its SRP verifier, one g^x mod N; its: a plaintext comparison), tokens at once;
 *   - create user: POST /users (the password's SRP verifier computed) against AdminCreateUser;
 *   - get user: GET /users/{id} against AdminGetUser (its users sit in memory, ours in a database engine).
 *
 * Built to hold still on a shared, noisy machine: each side is first warmed up (calls not counted, so
 * DynamoDB Local's JIT and V8's have compiled their hot paths), then measured in short rounds taken in turn
 * (ours, its, its, ours, ours, its, ...), so a neighbour's burst falls on both sides alike. Each side's rate
 * is the median of its rounds, the ratio the median of the rounds' ratios (each round against its neighbour).
 * CPU per call is all the CPU each side's processes used over its rounds, read from /proc (every thread, and
 * every process it spawned), divided by its calls:
 *   ours: the service process AND DynamoDB Local's JVM (our store);
 *   its:  cognito-local's process (its users in memory, a JSON file behind) and anything it spawns.
 * The clients (the AWS SDK, our signed client) run in this process on both sides and count on neither.
 * The ratios are ours over its: above 1, we answer more per second (or spend less CPU per operation).
 *   npm run bench -- cognito-peer
 *   PEER_ONLY=both npm run bench -- cognito-peer     only the operations whose name holds it (here, the same flow)
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AdminCreateUserCommand,
  AdminGetUserCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  InitiateAuthCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { SignedClient } from '../client/signed-fetch.js';
import { startHarness } from '../dev-support/harness.js';
import { srpSignIn } from '../dev-support/sign-in.js';
import type { SignInResult } from '../shared/schemas/sign-in.js';
import { expectStatus, PASSWORD, seedSaas, startBenchDynamo } from './fixtures.js';
import { processTreeCpuMs, startServiceProcess } from './service-process.js';
import { writeResults } from './support.js';

const USERS = 40;
const CLIENTS = 4;
/**
 * Warm-up, per side and operation, not counted: rounds until one costs no less CPU per call than the cheapest
 * before it, less 5% (the JITs have compiled what the calls run), WARMUP_MIN calls at least, WARMUP_MAX at most.
 */
const WARMUP_MIN = Number(process.env.PEER_WARMUP ?? 300);
const WARMUP_MAX = 1200;
const ROUNDS = 6;
const ROUND_CALLS = 60;
const only = process.env.PEER_ONLY;

const here = dirname(fileURLToPath(import.meta.url));
const dynamoLocal = await startBenchDynamo();
const h = await startHarness();
const ours = await startServiceProcess();
const peer = await startServiceProcess({ childScript: join(here, 'cognito-local-child.ts'), basePath: '' });
try {
  // Ours: a SaaS with users, devices not offered.
  const { client: setup, ...credentials } = await h.newSaas();
  const seeded = await seedSaas(setup, { users: USERS, members: 0, emailPrefix: 'peer' });
  expectStatus(await setup.put('/sign-in-settings', { password_sign_in: { user_password_auth: true } }), 200, 'USER_PASSWORD_AUTH on');
  const api = new SignedClient(ours.baseUrl, credentials);

  // Its: a pool, a client, the same number of users with permanent passwords.
  const cognito = new CognitoIdentityProviderClient({
    endpoint: peer.baseUrl,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const pool = (await cognito.send(new CreateUserPoolCommand({ PoolName: 'bench' }))).UserPool?.Id as string;
  const clientId = (
    await cognito.send(new CreateUserPoolClientCommand({ UserPoolId: pool, ClientName: 'bench', ExplicitAuthFlows: ['USER_PASSWORD_AUTH'] }))
  ).UserPoolClient?.ClientId as string;
  const peerUsers: string[] = [];
  for (let i = 0; i < USERS; i++) {
    const username = `peer-${i}-${randomUUID().slice(0, 8)}@bench.test`;
    await cognito.send(new AdminCreateUserCommand({ UserPoolId: pool, Username: username, TemporaryPassword: PASSWORD, MessageAction: 'SUPPRESS' }));
    await cognito.send(new AdminSetUserPasswordCommand({ UserPoolId: pool, Username: username, Password: PASSWORD, Permanent: true }));
    peerUsers.push(username);
  }

  let n = 0;
  const pick = <T>(list: readonly T[]) => list[n++ % list.length] as T;
  const peerPasswordSignIn = async () => {
    const out = await cognito.send(
      new InitiateAuthCommand({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: clientId, AuthParameters: { USERNAME: pick(peerUsers), PASSWORD } }),
    );
    if (!out.AuthenticationResult?.IdToken) throw new Error('a cognito-local sign-in failed');
  };
  const pairs: Record<string, { ours: () => Promise<unknown>; peer: () => Promise<unknown> }> = {
    'sign-in (ours: SRP; its: USER_PASSWORD_AUTH)': {
      ours: async () => {
        const res = await srpSignIn(api, pick(seeded.users).email, PASSWORD);
        if (!res.body.credentials) throw new Error(`a sign-in failed: ${res.status} ${res.text}`);
      },
      peer: peerPasswordSignIn,
    },
    // After the SRP pair: DynamoDB Local's JVM is still compiling its hot paths during the first pair.
    'sign-in (both: USER_PASSWORD_AUTH)': {
      // What ServiceAsCognito sends for InitiateAuth (dev-support/sign-in.ts): amazon-cognito-identity-js's path.
      ours: async () => {
        const body = { sign_in_flow: 'USER_PASSWORD_AUTH', sign_in_parameters: { USERNAME: pick(seeded.users).email, PASSWORD } };
        const res = await api.post<SignInResult>('/sign-in', body);
        if (!res.body.credentials) throw new Error(`a sign-in failed: ${res.status} ${res.text}`);
      },
      peer: peerPasswordSignIn,
    },
    'create user (POST /users; AdminCreateUser)': {
      ours: async () =>
        expectStatus(await api.post('/users', { email: `created-${n++}-${process.pid}@bench.test`, password: PASSWORD }), 201, 'create user'),
      peer: () =>
        cognito.send(
          new AdminCreateUserCommand({
            UserPoolId: pool,
            Username: `created-${n++}-${process.pid}@bench.test`,
            TemporaryPassword: PASSWORD,
            MessageAction: 'SUPPRESS',
          }),
        ),
    },
    'get user (GET /users/{id}; AdminGetUser)': {
      ours: async () => expectStatus(await api.get(`/users/${pick(seeded.users).id}`), 200, 'get user'),
      peer: () => cognito.send(new AdminGetUserCommand({ UserPoolId: pool, Username: pick(peerUsers) })),
    },
  };

  const sides = {
    ours: { service: ours.pid, dynamoLocal: dynamoLocal.pid as number },
    peer: { cognitoLocal: peer.pid },
  };
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
  const loadBefore = load();
  process.stdout.write(
    `Side by side with cognito-local ${peerVersion()}: ${CLIENTS} clients at once; each side warmed up until its CPU per call settles, ` +
      `then ${ROUNDS} rounds of ${ROUND_CALLS} calls each, in turn (load average before: ${loadBefore})\n` +
      `${'operation'.padEnd(46)}${'ours/s'.padStart(9)}${'its/s'.padStart(9)}${'ratio (range)'.padStart(20)}` +
      `${'our CPU (service + DDB)'.padStart(28)}${'its CPU'.padStart(10)}${'CPU ratio'.padStart(11)}\n`,
  );
  const figures: Record<string, PairFigures> = {};
  for (const [name, pair] of Object.entries(pairs)) {
    if (only && !name.includes(only)) continue;
    const warmed = { ours: await warmUp(sides.ours, pair.ours), peer: await warmUp(sides.peer, pair.peer) };
    const rounds: { ours: Round; peer: Round }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // ABBA: whichever goes first in one round goes second in the next, so a trend in the load favours neither.
      if (r % 2 === 0) {
        const o = await round(sides.ours, pair.ours);
        rounds.push({ ours: o, peer: await round(sides.peer, pair.peer) });
      } else {
        const p = await round(sides.peer, pair.peer);
        rounds.push({ ours: await round(sides.ours, pair.ours), peer: p });
      }
    }
    const row: PairFigures = { ...summarise(rounds), warmed };
    figures[name] = row;
    const range = `${row.ratioMin.toFixed(2)}–${row.ratioMax.toFixed(2)}`;
    process.stdout.write(
      `${name.padEnd(46)}${row.ours.perSecond.toFixed(0).padStart(9)}${row.peer.perSecond.toFixed(0).padStart(9)}` +
        `${`${row.rateRatio.toFixed(2)}× (${range})`.padStart(20)}` +
        `${`${row.ours.cpuMs.toFixed(2)} ms (${row.ours.parts.service.toFixed(2)} + ${row.ours.parts.dynamoLocal.toFixed(2)})`.padStart(28)}` +
        `${`${row.peer.cpuMs.toFixed(2)} ms`.padStart(10)}${`${row.cpuRatio.toFixed(2)}×`.padStart(11)}\n`,
    );
  }
  const loadAfter = load();
  process.stdout.write(
    "  ours/s, its/s: the median of the rounds; ratio: the median of the rounds' ratios (ours over its), and their range;\n" +
      "  CPU per call, from /proc: ours = the service process + DynamoDB Local's JVM; its = cognito-local's process and any it spawned;\n" +
      `  CPU ratio: its over ours (above 1: ours is cheaper). Warm-up calls (ours/its): ` +
      `${Object.values(figures)
        .map((f) => `${f.warmed?.ours}/${f.warmed?.peer}`)
        .join(', ')}. Load average after: ${loadAfter}\n`,
  );
  writeResults('cognito-peer', {
    clients: CLIENTS,
    warmup: { min: WARMUP_MIN, max: WARMUP_MAX },
    rounds: ROUNDS,
    roundCalls: ROUND_CALLS,
    users: USERS,
    loadBefore,
    loadAfter,
    operations: figures,
  });
} finally {
  await peer.stop();
  await ours.stop();
  await h.close();
  await dynamoLocal.stop();
}

function peerVersion(): string {
  return (JSON.parse(readFileSync(join(here, '..', 'node_modules', 'cognito-local', 'package.json'), 'utf8')) as { version: string }).version;
}

/** `total` calls, CLIENTS at a time. */
async function calls(total: number, call: () => Promise<unknown>): Promise<void> {
  let remaining = total;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (remaining-- > 0) await call();
    }),
  );
}

/** Rounds until the CPU per call settles (WARMUP_MIN, WARMUP_MAX); the calls it took. */
async function warmUp(processes: Record<string, number>, call: () => Promise<unknown>): Promise<number> {
  let cheapest = Number.POSITIVE_INFINITY;
  for (let done = ROUND_CALLS; ; done += ROUND_CALLS) {
    const spent = Object.values((await round(processes, call)).cpuMs).reduce((x, y) => x + y, 0) / ROUND_CALLS;
    if ((done >= WARMUP_MIN && spent >= 0.95 * cheapest) || done >= WARMUP_MAX) return done;
    cheapest = Math.min(cheapest, spent);
  }
}

interface Round {
  perSecond: number;
  /** CPU time in ms of each named process (and what it spawned) over the round. */
  cpuMs: Record<string, number>;
}

/** One round of ROUND_CALLS calls: the rate, and the CPU time each of the side's processes used meanwhile. */
async function round(processes: Record<string, number>, call: () => Promise<unknown>): Promise<Round> {
  const cpu = () => Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, processTreeCpuMs(pid) ?? Number.NaN]));
  const before = cpu();
  const started = process.hrtime.bigint();
  await calls(ROUND_CALLS, call);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const after = cpu();
  return {
    perSecond: ROUND_CALLS / seconds,
    cpuMs: Object.fromEntries(Object.keys(processes).map((name) => [name, (after[name] ?? 0) - (before[name] ?? 0)])),
  };
}

interface SideFigures {
  /** The median of the rounds' rates. */
  perSecond: number;
  /** All the side's CPU over its rounds, per call, in ms; `parts` per process. */
  cpuMs: number;
  parts: Record<string, number>;
}

interface PairFigures {
  ours: SideFigures & { parts: { service: number; dynamoLocal: number } };
  peer: SideFigures;
  rateRatio: number;
  ratioMin: number;
  ratioMax: number;
  cpuRatio: number;
  rounds: { ours: Round; peer: Round }[];
  /** The warm-up calls each side took before its CPU per call settled. */
  warmed?: { ours: number; peer: number };
}

function summarise(rounds: { ours: Round; peer: Round }[]): PairFigures {
  const side = (of: (r: { ours: Round; peer: Round }) => Round): SideFigures => {
    const parts: Record<string, number> = {};
    for (const r of rounds) for (const [name, ms] of Object.entries(of(r).cpuMs)) parts[name] = (parts[name] ?? 0) + ms / (ROUNDS * ROUND_CALLS);
    return { perSecond: median(rounds.map((r) => of(r).perSecond)), cpuMs: Object.values(parts).reduce((x, y) => x + y, 0), parts };
  };
  const ratios = rounds.map((r) => r.ours.perSecond / r.peer.perSecond);
  const [ours, peer] = [side((r) => r.ours), side((r) => r.peer)];
  return {
    ours: ours as PairFigures['ours'],
    peer,
    rateRatio: median(ratios),
    ratioMin: Math.min(...ratios),
    ratioMax: Math.max(...ratios),
    cpuRatio: peer.cpuMs / ours.cpuMs,
    rounds,
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
