/**
 * Full SRP sign-ins (POST /sign-in, then POST /sign-in/challenge with PASSWORD_VERIFIER, ending with
 * credentials) through the local HTTP server against DynamoDB Local, with the fast test client:
 *   - the server-side time of one sign-in: the two operations inside the sign-in handler (the SRP work, the
 *     store requests, token signing), measured around the handler the local server calls, one client at a time;
 *   - sign-ins per second with 1, 4 and 16 clients at once, against the local API in a process of its own
 *     (bench/service-process.ts), so its CPU time per sign-in is the service's alone: sign-ins per second per
 *     core = 1000 / that. DynamoDB Local's CPU time per sign-in (its JVM) is reported beside it, not in it.
 *   - what the hosted screen's session costs: store requests, latency and the login function's CPU of an
 *     authorization answered from a live session (the SaaS's entry with its state, and an OpenID Connect client's
 *     GET /authorize followed to the screen), beside a sign-in's store requests.
 * Store requests are the operation's: the API log writer's records (written after the call) are counted apart.
 * The clients, the service and DynamoDB Local share this machine, so sign-ins per second here are a floor
 * for one machine, not a figure for AWS.
 *   npm run bench -- sign-in-http
 */
import { createHash, randomUUID } from 'node:crypto';
import { GetCommand } from '../shared/store/dynamo-client.js';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { SignedClient } from '../client/signed-fetch.js';
import { ENTRY_HANDLERS, GROUP_HANDLERS } from '../local/handlers.js';
import { apiLogKeys } from '../shared/store/keys.js';
import { tokenService, dynamo, tableName } from '../shared/wiring.js';
import { startHarness } from '../dev-support/harness.js';
import { srpSignIn, startSignIn } from '../dev-support/sign-in.js';
import { SrpTestClient } from '../dev-support/srp-client.js';
import { SrpClient, verifierResponses } from '../client/srp.js';
import { measureThroughput, startServiceProcess, type Throughput } from './service-process.js';
import { PASSWORD, seedSaas, startBenchDynamo } from './fixtures.js';
import { cpuPerCall, ms, sample, summarize, writeResults } from './support.js';

const USERS = 40;
const SEQUENTIAL = 200;
const PER_CONCURRENCY = 300;
/** Sign-ins the service process answers before it is measured: its JIT warms up as a busy Lambda's has. */
const SERVICE_WARMUP = 150;
const CONCURRENCY = [1, 4, 16];
/** Refused proofs of each kind (a real user's wrong password, a name nobody has), interleaved. */
const REFUSALS = 100;

const dynamoLocal = await startBenchDynamo();
const h = await startHarness();
const service = await startServiceProcess();
try {
  const { client: api, ...credentials } = await h.newSaas();
  const emails = (await seedSaas(api, { users: USERS, members: 0 })).users.map((user) => user.email);

  // The store requests a sign-in makes and the time they take: DynamoDB Local's share of the handler's time.
  // The API log writer's records are the writer's, written after the call: counted apart.
  let storeRequests = 0;
  let storeMs = 0;
  let logWrites = 0;
  dynamo().intercept(async (command, next) => {
    if (apiLogKeys.isRecordWrite(command.operation, command.input)) {
      logWrites++;
      return next();
    }
    const start = process.hrtime.bigint();
    storeRequests++;
    try {
      return await next();
    } finally {
      storeMs += Number(process.hrtime.bigint() - start) / 1e6;
    }
  });

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
  const signInThrough = (client: SignedClient) => async () => {
    const res = await srpSignIn(client, emails[next++ % USERS] as string, PASSWORD);
    if (res.status !== 200 || !res.body.credentials) throw new Error(`a sign-in failed: ${res.status} ${res.text}`);
  };

  // Server-side time per sign-in, one at a time, inside this process's handler.
  const handlerSamples: number[] = [];
  const storeSamples: number[] = [];
  const requestCounts: number[] = [];
  const signIn = signInThrough(api);
  const logWritesBefore = logWrites;
  const latency = await sample(SEQUENTIAL, async () => {
    [handlerMs, storeMs, storeRequests] = [0, 0, 0];
    await signIn();
    handlerSamples.push(handlerMs);
    storeSamples.push(storeMs);
    requestCounts.push(storeRequests);
  });
  const logWritesPerSignIn = (logWrites - logWritesBefore) / handlerSamples.length;
  const measured = (samples: number[]) => samples.slice(-SEQUENTIAL);
  const serverSide = summarize(measured(handlerSamples));
  const storeSide = summarize(measured(storeSamples));
  const withoutStore = summarize(measured(handlerSamples).map((total, i) => total - (measured(storeSamples)[i] as number)));

  // What a client computes per sign-in (A, then the proof): the load driver's own share, for scale.
  const probe = await startSignIn(api, emails[0] as string, new SrpTestClient().srpA);
  const clientCompute = summarize(await sample(50, () => new SrpTestClient().passwordAnswer(probe.body.challenge_parameters, PASSWORD)));

  // Refused proofs, a real user's wrong password and a name nobody has, interleaved: the time the handler
  // takes for each must not tell them apart (same store requests, same crypto).
  const refusedMs = { wrongPassword: [] as number[], nobody: [] as number[] };
  const refusedRequests = { wrongPassword: [] as number[], nobody: [] as number[] };
  for (let i = 0; i < REFUSALS; i++) {
    // Each user is refused at most three times, below the lockout's free attempts.
    for (const [kind, username] of [
      ['wrongPassword', emails[i % USERS] as string],
      ['nobody', `nobody-${i}@bench.test`],
    ] as const) {
      [handlerMs, storeRequests] = [0, 0];
      const res = await srpSignIn(api, username, `${PASSWORD}x`);
      if (res.status !== 401) throw new Error(`a refused proof answered ${res.status}`);
      refusedMs[kind].push(handlerMs);
      refusedRequests[kind].push(storeRequests);
    }
  }
  const refused = { wrongPassword: summarize(refusedMs.wrongPassword), nobody: summarize(refusedMs.nobody) };

  // What the token check costs a call that takes a user's token: /userinfo with a fresh ID token.
  const user = await srpSignIn(api, emails[0] as string, PASSWORD);
  const idToken = user.body.credentials?.id_token as string;
  storeRequests = 0;
  const userInfo = await api.get(`/userinfo?token=${encodeURIComponent(idToken)}`);
  if (userInfo.status !== 200) throw new Error(`/userinfo answered ${userInfo.status}`);
  const userInfoRequests = storeRequests;

  // The hosted screen: a sign-in there (its steps) opens a session, whose item rides in the code's write; an
  // authorization answered from that session (the SaaS's entry with its state, the session cookie) after it.
  const screenFigures = await screenSession(api, credentials.saasId, emails[1] as string, {
    count: () => storeRequests,
    reset: () => (storeRequests = 0),
  });

  // Throughput against the service in its own process.
  const remote = signInThrough(new SignedClient(service.baseUrl, credentials));
  await sample(SERVICE_WARMUP, remote, 0);
  const throughput: Record<string, Throughput & { perCore: number }> = {};
  for (const clients of CONCURRENCY) {
    const measured = await measureThroughput(service, dynamoLocal.pid, clients, PER_CONCURRENCY, remote);
    throughput[`${clients} client${clients === 1 ? '' : 's'}`] = { ...measured, perCore: 1000 / measured.serviceCpuMs };
  }
  // Where the service's CPU goes, measured in this process once warm: one store request through the store client
  // (a GetItem of a missing item), and the tokens of one sign-in (ID and access token, RS256).
  const storeRequestCpuMs = await cpuPerCall(500, () => dynamo().send(new GetCommand({ TableName: tableName(), Key: { pk: 'BENCH', sk: 'NONE' } })));
  const tokensCpuMs = await cpuPerCall(200, () =>
    tokenService().issue({ saasId: credentials.saasId, userId: randomUUID(), email: 'a@bench.test', sessionVersion: 0 }),
  );

  const best = Math.min(...Object.values(throughput).map((t) => t.serviceCpuMs));

  const figures = {
    users: USERS,
    fullSignInLatency: summarize(latency),
    serverSidePerSignIn: serverSide,
    storeWaitPerSignIn: storeSide,
    serverSideWithoutStore: withoutStore,
    storeRequestsPerSignIn: summarize(requestCounts).median,
    apiLogWritesPerSignIn: logWritesPerSignIn,
    clientPerSignIn: clientCompute,
    throughput,
    serviceCpuMsPerSignIn: best,
    storeRequestCpuMs,
    tokensCpuMs,
    signInsPerSecondPerCore: 1000 / best,
    perCoreTarget: 150,
    refusedProof: refused,
    refusedProofRatio: refused.wrongPassword.median / refused.nobody.median,
    refusedProofStoreRequests: { wrongPassword: summarize(refusedRequests.wrongPassword).median, nobody: summarize(refusedRequests.nobody).median },
    userInfoStoreRequests: userInfoRequests,
    screen: screenFigures,
  };
  const perSignIn = (value: number | undefined) => (value === undefined ? 'n/a' : ms(value));
  process.stdout.write(
    'Full SRP sign-in through the local HTTP API (POST /sign-in + PASSWORD_VERIFIER → credentials), DynamoDB Local\n' +
      `  latency, one client            median ${ms(figures.fullSignInLatency.median)}   p99 ${ms(figures.fullSignInLatency.p99)}   (n = ${figures.fullSignInLatency.n})\n` +
      `  inside the sign-in handler     median ${ms(serverSide.median)}   p99 ${ms(serverSide.p99)}   (both operations, store included)\n` +
      `    of which store requests      median ${ms(storeSide.median)}   (${figures.storeRequestsPerSignIn} requests to DynamoDB Local;` +
      ` the API log writer's ${logWritesPerSignIn.toFixed(1)} writes per sign-in apart)\n` +
      `    the rest (SRP, tokens, HTTP)  median ${ms(withoutStore.median)}   p99 ${ms(withoutStore.p99)}\n` +
      `  the client's SRP work          median ${ms(clientCompute.median)}   (the load driver's, not counted as the service's)\n` +
      `  refused proof, inside the handler: wrong password median ${ms(refused.wrongPassword.median)}, name nobody has median` +
      ` ${ms(refused.nobody.median)}: ratio ${figures.refusedProofRatio.toFixed(2)} (n = ${REFUSALS} each;` +
      ` ${figures.refusedProofStoreRequests.wrongPassword} and ${figures.refusedProofStoreRequests.nobody} store requests)\n` +
      `  GET /userinfo with an ID token: ${userInfoRequests} store requests (the token check takes the session version from the profile the answer reads)\n` +
      `  the hosted screen's session: a sign-in's steps ${screenFigures.signInStoreRequests} store requests (the session's item in the code's write);` +
      ` an authorization answered from a live session (n = ${screenFigures.ownEntry.latency.n} each):\n` +
      screenLine("the SaaS's entry with its state     ", screenFigures.ownEntry) +
      screenLine('OpenID Connect GET /authorize + screen', screenFigures.openIdConnect) +
      '  Throughput, the service in its own process (CPU time per sign-in: the service process; DynamoDB Local apart)\n',
  );
  for (const [label, t] of Object.entries(throughput)) {
    process.stdout.write(
      `  ${label.padEnd(11)} ${t.perSecond.toFixed(1).padStart(7)} sign-ins/s   service CPU ${ms(t.serviceCpuMs)}` +
        ` (${t.perCore.toFixed(0)} per core)   DynamoDB Local CPU ${perSignIn(t.dynamoLocalCpuMs)}\n`,
    );
  }
  process.stdout.write(
    `  service CPU per sign-in, best: ${ms(best)} → ${figures.signInsPerSecondPerCore.toFixed(0)} sign-ins/s per core (target ≥ ${figures.perCoreTarget})\n` +
      `    of which, measured apart: ${figures.storeRequestsPerSignIn} store requests × ${ms(storeRequestCpuMs)} in the store client` +
      ` = ${ms(figures.storeRequestsPerSignIn * storeRequestCpuMs)}; ID + access token ${ms(tokensCpuMs)}; SRP: see srp.bench\n`,
  );
  writeResults('sign-in-http', figures);
} finally {
  await service.stop();
  await h.close();
  await dynamoLocal.stop();
}

interface Resumed {
  storeRequests: number;
  latency: ReturnType<typeof summarize>;
  /** The login function's CPU time per authorization (its handler or handlers), median. */
  handlerCpuMs: number;
}

function screenLine(label: string, figures: Resumed): string {
  return (
    `    ${label}  ${figures.storeRequests} store requests   median ${ms(figures.latency.median)}   p99 ${ms(figures.latency.p99)}` +
    `   login function CPU ${ms(figures.handlerCpuMs)}\n`
  );
}

/**
 * Store requests of a sign-in on the hosted screen (its `api/start` and `api/answer` steps, the code saved and
 * the session opened), and what an authorization answered from that session costs, one at a time: the page
 * opened again with the session cookie (the SaaS's entry with its state), and an OpenID Connect client's
 * GET /authorize followed to the screen, each answered by a redirect to the callback with a code. Settings and the
 * client check are read once beforehand (a warm function keeps them). The login function's CPU is measured around
 * its handler (process.cpuUsage: nothing else runs in this process meanwhile but the API log writer's timer).
 */
async function screenSession(api: SignedClient, saasId: string, email: string, store: { count: () => number; reset: () => void }) {
  const callback = 'https://app.bench.test/callback';
  if ((await api.put('/auth-info', { callback_url: callback })).status !== 200) throw new Error('PUT /auth-info failed');
  const screen = `${h.api.baseUrl}/login/${saasId}/`;
  const signIn = async () => {
    const page = await fetch(`${screen}?state=bench`);
    const csrf = (page.headers.getSetCookie().find((c) => c.startsWith('login_csrf=')) ?? '').split(';')[0] ?? '';
    const data = JSON.parse(/<script id="page-data" type="application\/json">([\s\S]*?)<\/script>/.exec(await page.text())?.[1] ?? '{}') as {
      csrf: string;
    };
    const step = async (name: string, body: object) => {
      const res = await fetch(`${screen}api/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: csrf, 'x-csrf-token': data.csrf },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`the screen's ${name} answered ${res.status}`);
      return { body: (await res.json()) as Record<string, unknown>, cookies: res.headers.getSetCookie() };
    };
    const srp = new SrpClient();
    store.reset();
    const started = await step('start', { username: email, srp_a: await srp.srpA() });
    const claim = await srp.passwordClaim(started.body.challenge as Parameters<SrpClient['passwordClaim']>[0], PASSWORD);
    const answered = await step('answer', {
      challenge_name: 'PASSWORD_VERIFIER',
      session: claim.session,
      responses: verifierResponses(claim),
      state: 'bench',
    });
    const requests = store.count();
    const session = (answered.cookies.find((c) => c.startsWith('login_session=')) ?? '').split(';')[0];
    if (!session) throw new Error('the screen opened no session');
    return { requests, session };
  };
  await signIn();
  const { requests: signInStoreRequests, session } = await signIn();

  let handlerCpuMs = 0;
  const loginHandler = ENTRY_HANDLERS.login;
  ENTRY_HANDLERS.login = async (event, context) => {
    const before = process.cpuUsage();
    try {
      return await loginHandler(event, context);
    } finally {
      const used = process.cpuUsage(before);
      handlerCpuMs += (used.user + used.system) / 1000;
    }
  };
  const get = (url: string) => fetch(url, { redirect: 'manual', headers: { cookie: session } });
  const expectCode = (res: Response, what: string) => {
    if (res.status !== 302 || !(res.headers.get('location') ?? '').startsWith(`${callback}?code=`)) {
      throw new Error(`${what} answered ${res.status} ${res.headers.get('location') ?? ''}`);
    }
  };
  const measure = async (authorize: () => Promise<void>): Promise<Resumed> => {
    const counts: number[] = [];
    const cpu: number[] = [];
    const latency = summarize(
      await sample(
        40,
        async () => {
          store.reset();
          handlerCpuMs = 0;
          await authorize();
          counts.push(store.count());
          cpu.push(handlerCpuMs);
        },
        5,
      ),
    );
    return { storeRequests: summarize(counts.slice(-40)).median, latency, handlerCpuMs: summarize(cpu.slice(-40)).median };
  };
  try {
    const ownEntry = await measure(async () => expectCode(await get(`${screen}?state=again`), 'an authorization from the session'));
    const openIdConnect = await measure(async () => {
      const verifier = randomUUID() + randomUUID();
      const authorize = new URL(`${h.api.baseUrl}/oauth2/authorize`);
      for (const [name, value] of Object.entries({
        client_id: saasId,
        redirect_uri: callback,
        response_type: 'code',
        scope: 'openid email',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        state: randomUUID(),
        nonce: randomUUID(),
      })) {
        authorize.searchParams.set(name, value);
      }
      const sent = await get(authorize.toString());
      const onScreen = sent.headers.get('location') ?? '';
      if (sent.status !== 302 || !onScreen.startsWith(screen)) throw new Error(`GET /authorize answered ${sent.status} ${onScreen}`);
      expectCode(await get(onScreen), "the screen's answer to an OpenID Connect authorization");
    });
    return { signInStoreRequests, ownEntry, openIdConnect };
  } finally {
    ENTRY_HANDLERS.login = loginHandler;
  }
}
