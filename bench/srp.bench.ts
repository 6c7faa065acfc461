/**
 * Server-side cost of one SRP sign-in (the USER_SRP_AUTH challenge plus the PASSWORD_VERIFIER check, with
 * the secret block sealed and opened), beside, in the same run: the same work with a BigInt loop for the
 * exponentiations, and OpenSSL's floor (the three 3072-bit exponentiations alone: g^b, v^u, (A·v^u)^b with
 * 256-bit exponents). Target: within 1.2× of the floor. The client's share is computed between the two
 * timed steps by the fast test client and is not counted.
 * Each step is measured twice: as CPU time (what it costs; the cost figures and the ratio) and as elapsed
 * time (what a caller waits). On a machine other work shares, elapsed time also holds the moments this
 * process was not running, which CPU time leaves out.
 *   npm run bench -- srp
 */
import { createDiffieHellman, randomBytes } from 'node:crypto';
import { createPasswordVerifier, G, N } from '../shared/crypto/srp.js';
import { claimSignature, K_BIG, N_BIG, scrambler, sessionKey, toBig, toBytes } from '../shared/crypto/srp-server.js';
import { SrpSignIn } from '../shared/domain/sign-in/srp-sign-in.js';
import { bigIntModPow, SrpTestClient } from '../dev-support/srp-client.js';
import { ms, summarize, writeResults } from './support.js';

const ROUNDS = 300;
const WARMUP = 30;
const BIGINT_ROUNDS = 200;

const POOL = 'PoolBench';
const SAAS = 'bench-saas';
const password = 'Bench#Password1';
const user = { userId: 'bench-user', ...createPasswordVerifier(POOL, 'bench-user', password) };
const engine = new SrpSignIn({ srpSecret: async () => randomBytes(32) }, { sessionSeconds: 180 });

/** A timed step: its CPU time and its elapsed time, in ms. */
interface Spent {
  cpu: number;
  wall: number;
}

const begin = () => ({ cpu: process.cpuUsage(), wall: process.hrtime.bigint() });
function spentSince(start: ReturnType<typeof begin>): Spent {
  const cpu = process.cpuUsage(start.cpu);
  return { cpu: (cpu.user + cpu.system) / 1000, wall: Number(process.hrtime.bigint() - start.wall) / 1e6 };
}
const plus = (a: Spent, b: Spent): Spent => ({ cpu: a.cpu + b.cpu, wall: a.wall + b.wall });

type Challenge = Awaited<ReturnType<typeof engine.passwordChallenge>>;

/**
 * Sign-ins as the server sees them, in three passes so the client's work (and its garbage) never falls
 * inside a timed step: every challenge (timed), every client answer (not timed), every proof check (timed).
 * `beside` runs after each timed step, so what it measures shares the same conditions.
 */
async function serverSignIns(count: number, beside: () => void): Promise<Spent[]> {
  const clients = Array.from({ length: count }, () => new SrpTestClient());
  const challenges: Challenge[] = [];
  const spent: Spent[] = [];
  for (const client of clients) {
    const start = begin();
    challenges.push(await engine.passwordChallenge({ saasId: SAAS, username: 'ann@example.test', srpA: client.srpA, poolName: POOL, user }));
    spent.push(spentSince(start));
    beside();
  }
  const answers = clients.map((client, i) => client.passwordAnswer((challenges[i] as Challenge).parameters, password));
  for (const [i, answer] of answers.entries()) {
    const start = begin();
    const claim = await engine.openPasswordClaim(SAAS, answer, (challenges[i] as Challenge).session);
    const ok = claim.verify(user.verifier);
    spent[i] = plus(spent[i] as Spent, spentSince(start));
    if (!ok) throw new Error('the benchmark sign-in was refused');
    beside();
  }
  return spent;
}

const floorContext = createDiffieHellman(N, G);
const A = new SrpTestClient().A;

/** OpenSSL's floor: the three exponentiations of a sign-in and nothing else. */
function floor(): Spent {
  const [b, u] = [randomBytes(32), randomBytes(32)];
  const start = begin();
  floorContext.setPrivateKey(b);
  floorContext.generateKeys();
  floorContext.setPrivateKey(u);
  const vToU = floorContext.computeSecret(Buffer.from(user.verifier, 'hex'));
  floorContext.setPrivateKey(b);
  floorContext.computeSecret(toBytes((A * toBig(vToU)) % N_BIG));
  return spentSince(start);
}

/**
 * The server's work with BigInt exponentiation: what the engine would cost without OpenSSL. Everything but
 * the three exponentiations is the engine's own (srp-server.ts), so only they differ.
 */
function bigIntSignIn(): Spent {
  const start = begin();
  const v = BigInt(`0x${user.verifier}`);
  const b = toBig(randomBytes(32));
  const B = (K_BIG * v + bigIntModPow(2n, b)) % N_BIG;
  const u = scrambler(A, B);
  const S = bigIntModPow((A * bigIntModPow(v, toBig(u))) % N_BIG, b);
  claimSignature(sessionKey(S, u), POOL, user.userId, Buffer.alloc(0), '');
  return spentSince(start);
}

await serverSignIns(WARMUP, floor);
// The floor is measured between the timed steps of the sign-ins, so a busy moment weighs on both alike.
const floors: Spent[] = [];
const server = await serverSignIns(ROUNDS, () => void floors.push(floor()));
const floorSamples = floors.filter((_, i) => i % 2 === 0);
const bigInt = Array.from({ length: BIGINT_ROUNDS }, bigIntSignIn);

const cpu = (samples: Spent[]) => summarize(samples.map((s) => s.cpu));
const wall = (samples: Spent[]) => summarize(samples.map((s) => s.wall));
const figures = {
  serverSignIn: cpu(server),
  openSslFloor: cpu(floorSamples),
  bigIntBaseline: cpu(bigInt),
  ratioToFloor: cpu(server).median / cpu(floorSamples).median,
  bigIntRatioToFloor: cpu(bigInt).median / cpu(floorSamples).median,
  elapsed: {
    serverSignIn: wall(server),
    openSslFloor: wall(floorSamples),
    bigIntBaseline: wall(bigInt),
    ratioToFloor: wall(server).median / wall(floorSamples).median,
  },
  target: 1.2,
};

const line = (label: string, s: { median: number; p99: number; n: number }, elapsed: { median: number }) =>
  `  ${label.padEnd(44)} median ${ms(s.median)}   p99 ${ms(s.p99)}   (n = ${s.n}; elapsed median ${ms(elapsed.median)})\n`;
process.stdout.write(
  'SRP sign-in, server side (challenge + proof check), CPU time\n' +
    line('engine (OpenSSL exponentiation)', figures.serverSignIn, figures.elapsed.serverSignIn) +
    line("OpenSSL's floor (three exponentiations)", figures.openSslFloor, figures.elapsed.openSslFloor) +
    line('BigInt loop, same work', figures.bigIntBaseline, figures.elapsed.bigIntBaseline) +
    `  engine / floor: ${figures.ratioToFloor.toFixed(2)}× (target ≤ ${figures.target}×; elapsed ${figures.elapsed.ratioToFloor.toFixed(2)}×)` +
    `   BigInt / floor: ${figures.bigIntRatioToFloor.toFixed(1)}×\n`,
);
writeResults('srp', figures);
