/**
 * Side by side with cognito-local (npm, the usual local stand-in for Amazon Cognito), in one run on one
 * machine: each server in a process of its own, loaded the same way (the same number of clients at once),
 * its CPU time per operation read from its own process.
 *   - sign-in, each at its best: our full SRP sign-in (two round trips, a proof checked, tokens signed) against
 *     its plaintext USER_PASSWORD_AUTH;
 *   - sign-in, the same flow on both sides: InitiateAuth USER_PASSWORD_AUTH (ours: a SaaS that turned it on,
 *     the password checked against its SRP verifier, one g^x mod N; its: a plaintext comparison), tokens at once;
 *   - create user: POST /users (the password's SRP verifier computed) against AdminCreateUser;
 *   - get user: GET /users/{id} against AdminGetUser (its users sit in memory, ours in a database engine).
 * The ratios are ours over its: above 1, we answer more per second (or spend less CPU per operation).
 *   npm run bench -- cognito-peer
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
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
import { measureThroughput, startServiceProcess, type Throughput } from './service-process.js';
import { sample, writeResults } from './support.js';

const USERS = 40;
const CLIENTS = 4;
const CALLS = 400;
const WARMUP = 100;

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

  const figures: Record<string, { ours: Throughput; peer: Throughput; rateRatio: number; cpuRatio: number }> = {};
  process.stdout.write(
    `Side by side with cognito-local ${peerVersion()}: ${CLIENTS} clients at once, ${CALLS} calls of each (after ${WARMUP} to warm up)\n` +
      `${'operation'.padEnd(46)}${'ours/s'.padStart(9)}${'its/s'.padStart(9)}${'ratio'.padStart(8)}${'our CPU'.padStart(11)}${'its CPU'.padStart(11)}${'CPU ratio'.padStart(11)}\n`,
  );
  for (const [name, pair] of Object.entries(pairs)) {
    await sample(WARMUP, pair.ours, 0);
    await sample(WARMUP, pair.peer, 0);
    const oursMeasured = await measureThroughput(ours, dynamoLocal.pid, CLIENTS, CALLS, pair.ours);
    const peerMeasured = await measureThroughput(peer, undefined, CLIENTS, CALLS, pair.peer);
    const row = {
      ours: oursMeasured,
      peer: peerMeasured,
      rateRatio: oursMeasured.perSecond / peerMeasured.perSecond,
      cpuRatio: peerMeasured.serviceCpuMs / oursMeasured.serviceCpuMs,
    };
    figures[name] = row;
    process.stdout.write(
      `${name.padEnd(46)}${row.ours.perSecond.toFixed(0).padStart(9)}${row.peer.perSecond.toFixed(0).padStart(9)}${`${row.rateRatio.toFixed(2)}×`.padStart(8)}` +
        `${`${row.ours.serviceCpuMs.toFixed(2)} ms`.padStart(11)}${`${row.peer.serviceCpuMs.toFixed(2)} ms`.padStart(11)}${`${row.cpuRatio.toFixed(2)}×`.padStart(11)}\n`,
    );
  }
  process.stdout.write(
    '  ratio: our calls per second over its; CPU ratio: its CPU time per call over ours (above 1: ours is cheaper).\n' +
      '  Our figures leave out DynamoDB Local (its JVM works on the same cores); its users live in memory.\n',
  );
  writeResults('cognito-peer', { clients: CLIENTS, calls: CALLS, users: USERS, operations: figures });
} finally {
  await peer.stop();
  await ours.stop();
  await h.close();
  await dynamoLocal.stop();
}

function peerVersion(): string {
  return (JSON.parse(readFileSync(join(here, '..', 'node_modules', 'cognito-local', 'package.json'), 'utf8')) as { version: string }).version;
}
