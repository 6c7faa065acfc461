/**
 * The SRP engine against the unmodified reference clients, with no HTTP: amazon-cognito-identity-js's
 * CognitoUser (through an adapter that plays Cognito's InitiateAuth / RespondToAuthChallenge /
 * ConfirmDevice on the engine) and cognito-srp-helper. Then every way an answer must be refused.
 */
import { afterEach, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  createDeviceVerifier,
  createSrpSession,
  signSrpSession,
  signSrpSessionWithDevice,
  wrapAuthChallenge,
  wrapInitiateAuth,
} from 'cognito-srp-helper';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { createPasswordVerifier, N } from '../../shared/crypto/srp.js';
import { deviceVerifierFromClient, parseSrpTimestamp, srpTimestamp } from '../../shared/crypto/srp-server.js';
import { SrpSignIn, type SrpUser } from '../../shared/domain/sign-in/srp-sign-in.js';
import { DomainError } from '../../shared/errors.js';
import {
  authenticate,
  cognitoUser,
  newBrowserStorage,
  signedInSubject,
  type CognitoParams,
  type CognitoTransport,
} from '../../dev-support/cognito-client.js';
import { newDeviceSecret, SrpTestClient } from '../../dev-support/srp-client.js';

const SAAS = randomUUID();
const POOL = `Pool${randomBytes(8).toString('hex')}`;
const POOL_ID = `us-east-1_${POOL}`;
const secret = randomBytes(32);
const engine = new SrpSignIn({ srpSecret: async () => secret }, { sessionSeconds: 180 });

interface Account extends SrpUser {
  email: string;
  password: string;
}

const accounts = new Map<string, Account>();

function newAccount(password = `Correct#Horse${randomBytes(3).toString('hex')}`): Account {
  const userId = randomUUID();
  const account = { userId, email: `${userId.slice(0, 8)}@example.test`, password, ...createPasswordVerifier(POOL, userId, password) };
  accounts.set(account.email, account);
  return account;
}
const byId = (userId: string) => [...accounts.values()].find((a) => a.userId === userId);

afterEach(() => resetClockForTests());

type Params = Record<string, string>;

/**
 * Cognito's side of the three calls the client makes, done with the engine. The hooks alter what goes
 * over the (absent) wire, to show each alteration is refused.
 */
class EngineAsCognito implements CognitoTransport {
  readonly devices = new Map<string, { userId: string; groupKey: string; salt: string; verifier: string }>();
  private readonly deviceSessions = new Map<string, string>();
  rememberDevices = false;
  alterSignIn?: (parameters: Params) => void;
  alterChallenge?: (parameters: Params) => void;
  alterAnswer?: (responses: Params) => void;
  alterSession?: (session: string) => string;

  async handle(operation: string, params: CognitoParams): Promise<unknown> {
    if (operation === 'InitiateAuth') {
      const parameters = { ...(params.AuthParameters as Params) };
      this.alterSignIn?.(parameters);
      const challenge = await engine.passwordChallenge({
        saasId: SAAS,
        username: parameters.USERNAME as string,
        srpA: parameters.SRP_A as string,
        poolName: POOL,
        user: accounts.get(parameters.USERNAME as string),
      });
      const challengeParameters = { ...challenge.parameters };
      this.alterChallenge?.(challengeParameters);
      return { ChallengeName: 'PASSWORD_VERIFIER', ChallengeParameters: challengeParameters, Session: challenge.session };
    }
    if (operation === 'RespondToAuthChallenge') return this.respond(params);
    if (operation === 'ConfirmDevice') {
      const config = params.DeviceSecretVerifierConfig as { PasswordVerifier: string; Salt: string };
      const stored = deviceVerifierFromClient({ password_verifier: config.PasswordVerifier, salt: config.Salt });
      const pending = this.devices.get(params.DeviceKey as string);
      assert.ok(stored && pending, 'a usable verifier for a device we offered');
      this.devices.set(params.DeviceKey as string, { ...pending, ...stored });
      return { UserConfirmationNecessary: false };
    }
    throw new Error(`the adapter does not play ${operation}`);
  }

  private async respond(params: Record<string, unknown>): Promise<unknown> {
    const responses = { ...(params.ChallengeResponses as Params) };
    this.alterAnswer?.(responses);
    const session = this.alterSession ? this.alterSession(params.Session as string) : (params.Session as string);
    switch (params.ChallengeName) {
      case 'PASSWORD_VERIFIER': {
        const claim = await engine.openPasswordClaim(SAAS, responses, session);
        if (!claim.verify(byId(claim.userId)?.verifier))
          throw new DomainError('unauthenticated', 'not_authorized', 'Incorrect username or password.');
        const device = responses.DEVICE_KEY ? this.devices.get(responses.DEVICE_KEY) : undefined;
        if (device?.userId === claim.userId && device.verifier) {
          const deviceSession = randomUUID();
          this.deviceSessions.set(deviceSession, claim.userId);
          return { ChallengeName: 'DEVICE_SRP_AUTH', Session: deviceSession, ChallengeParameters: {} };
        }
        return {
          AuthenticationResult: {
            ...tokensFor(claim.userId),
            ...(this.rememberDevices ? { NewDeviceMetadata: this.offerDevice(claim.userId) } : {}),
          },
        };
      }
      case 'DEVICE_SRP_AUTH': {
        const userId = this.deviceSessions.get(session);
        const device = this.devices.get(responses.DEVICE_KEY as string);
        assert.ok(userId && device?.verifier && device.userId === userId);
        const challenge = await engine.deviceChallenge({
          saasId: SAAS,
          username: responses.USERNAME as string,
          userId,
          srpA: responses.SRP_A as string,
          deviceKey: responses.DEVICE_KEY as string,
          deviceGroupKey: device.groupKey,
          device: { salt: device.salt, verifier: device.verifier },
        });
        return { ChallengeName: 'DEVICE_PASSWORD_VERIFIER', ChallengeParameters: challenge.parameters, Session: challenge.session };
      }
      case 'DEVICE_PASSWORD_VERIFIER': {
        const claim = await engine.openDeviceClaim(SAAS, responses, session);
        const device = this.devices.get(claim.deviceKey as string);
        if (!claim.verify(device?.verifier)) throw new DomainError('unauthenticated', 'not_authorized', 'Incorrect device proof.');
        return { AuthenticationResult: tokensFor(claim.userId) };
      }
      default:
        throw new Error(`unexpected challenge ${String(params.ChallengeName)}`);
    }
  }

  private offerDevice(userId: string) {
    const device = { DeviceKey: `us-east-1_${randomUUID()}`, DeviceGroupKey: `-${randomBytes(6).toString('base64url')}` };
    this.devices.set(device.DeviceKey, { userId, groupKey: device.DeviceGroupKey, salt: '', verifier: '' });
    return device;
  }
}

/** Token-shaped strings: the client only decodes them. */
function tokensFor(userId: string) {
  const jwt = (claims: object) => `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;
  const exp = Math.floor(Date.now() / 1000) + 3600;
  return { IdToken: jwt({ sub: userId, exp }), AccessToken: jwt({ sub: userId, username: userId, exp }), RefreshToken: 'opaque' };
}

/** One browser per adapter: the device a sign-in remembers is there for the next one. */
const browsers = new WeakMap<EngineAsCognito, ReturnType<typeof newBrowserStorage>>();

/** authenticateUser of the reference client; resolves with the subject of the session it got. */
async function cognitoSignIn(adapter: EngineAsCognito, email: string, password: string): Promise<string> {
  if (!browsers.has(adapter)) browsers.set(adapter, newBrowserStorage());
  const user = cognitoUser(adapter, { poolId: POOL_ID, clientId: SAAS, username: email, storage: browsers.get(adapter) });
  return signedInSubject(await authenticate(user, password));
}

/** base64 with one bit of one byte changed. */
function flipByte(base64: string, index: number): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[index] = (bytes[index] as number) ^ 1;
  return bytes.toString('base64');
}

async function refusedWith(promise: Promise<unknown>, code: string, field?: string) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof DomainError, `a domain error, not ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (field) assert.ok(error.message.startsWith(`${field}:`), error.message);
    return true;
  });
}

describe('SRP sign-in with amazon-cognito-identity-js', () => {
  it('accepts the right password', async () => {
    const account = newAccount();
    assert.equal(await cognitoSignIn(new EngineAsCognito(), account.email, account.password), account.userId);
  });

  it('refuses a wrong password', async () => {
    const account = newAccount();
    await refusedWith(cognitoSignIn(new EngineAsCognito(), account.email, `${account.password}x`), 'not_authorized');
  });

  it('refuses a tampered signature', async () => {
    const account = newAccount();
    const adapter = new EngineAsCognito();
    adapter.alterAnswer = (r) => (r.PASSWORD_CLAIM_SIGNATURE = flipByte(r.PASSWORD_CLAIM_SIGNATURE as string, 0));
    await refusedWith(cognitoSignIn(adapter, account.email, account.password), 'not_authorized');
  });

  for (const [name, value] of [
    ['0', '0'],
    ['N', N.toString('hex')],
    ['2N', (2n * BigInt(`0x${N.toString('hex')}`)).toString(16)],
    ['1', '1'],
    ['N - 1', (BigInt(`0x${N.toString('hex')}`) - 1n).toString(16)],
    ['not hex', 'xyz'],
    ['too long', 'f'.repeat(2000)],
  ] as const) {
    it(`refuses SRP_A = ${name} before any proof`, async () => {
      const account = newAccount();
      const adapter = new EngineAsCognito();
      adapter.alterSignIn = (p) => (p.SRP_A = value);
      await refusedWith(cognitoSignIn(adapter, account.email, account.password), 'invalid_parameter', 'SRP_A');
    });
  }

  it('refuses a TIMESTAMP minutes away from the server clock', async () => {
    const account = newAccount();
    setClockForTests(Date.now() - 6 * 60_000);
    await refusedWith(cognitoSignIn(new EngineAsCognito(), account.email, account.password), 'invalid_parameter', 'TIMESTAMP');
  });

  it('refuses a malformed TIMESTAMP', async () => {
    const account = newAccount();
    const adapter = new EngineAsCognito();
    adapter.alterAnswer = (r) => (r.TIMESTAMP = new Date().toISOString());
    await refusedWith(cognitoSignIn(adapter, account.email, account.password), 'invalid_parameter', 'TIMESTAMP');
  });

  it('refuses an altered secret block, even one the client signed', async () => {
    const account = newAccount();
    const adapter = new EngineAsCognito();
    adapter.alterChallenge = (p) => (p.SECRET_BLOCK = flipByte(p.SECRET_BLOCK as string, 40));
    await refusedWith(cognitoSignIn(adapter, account.email, account.password), 'invalid_session', 'PASSWORD_CLAIM_SECRET_BLOCK');
  });

  it('refuses an answer naming another user', async () => {
    const account = newAccount();
    const other = newAccount();
    const adapter = new EngineAsCognito();
    adapter.alterAnswer = (r) => (r.USERNAME = other.userId);
    await refusedWith(cognitoSignIn(adapter, account.email, account.password), 'invalid_session', 'USERNAME');
  });

  it("refuses another challenge's session", async () => {
    const account = newAccount();
    const adapter = new EngineAsCognito();
    adapter.alterSession = () => randomBytes(24).toString('base64url');
    await refusedWith(cognitoSignIn(adapter, account.email, account.password), 'invalid_session', 'session');
  });

  it('refuses an answer after the challenge expired', async () => {
    const account = newAccount();
    const adapter = new EngineAsCognito();
    // The challenge is issued 200 s ago (past its 180 s), the answer signed now.
    adapter.alterSignIn = () => setClockForTests(Date.now() - 200_000);
    adapter.alterAnswer = () => resetClockForTests();
    await refusedWith(cognitoSignIn(adapter, account.email, account.password), 'invalid_session', 'session');
  });

  it('remembers a device, then signs in with DEVICE_SRP_AUTH and DEVICE_PASSWORD_VERIFIER', async () => {
    const account = newAccount();
    const adapter = new EngineAsCognito();
    adapter.rememberDevices = true;
    assert.equal(await cognitoSignIn(adapter, account.email, account.password), account.userId);
    const [deviceKey, device] = [...adapter.devices.entries()].find(([, d]) => d.userId === account.userId) ?? [];
    assert.ok(deviceKey && device?.verifier, 'the client confirmed its device');

    adapter.rememberDevices = false;
    const seen: string[] = [];
    adapter.alterAnswer = (r) => void seen.push(r.DEVICE_KEY ? `answer with ${r.DEVICE_KEY}` : 'answer');
    assert.equal(await cognitoSignIn(adapter, account.email, account.password), account.userId);
    assert.deepEqual(seen, [`answer with ${deviceKey}`, `answer with ${deviceKey}`, `answer with ${deviceKey}`]);
  });

  it('refuses a device proof made with another device secret', async () => {
    const account = newAccount();
    const adapter = new EngineAsCognito();
    adapter.rememberDevices = true;
    await cognitoSignIn(adapter, account.email, account.password);
    adapter.rememberDevices = false;
    const [deviceKey, device] = [...adapter.devices.entries()].find(([, d]) => d.userId === account.userId) ?? [];
    assert.ok(deviceKey && device);
    const impostor = newDeviceSecret(device.groupKey, deviceKey);
    adapter.devices.set(deviceKey, { ...device, ...deviceVerifierFromClient(impostor.deviceSecretVerifierConfig) });
    await refusedWith(cognitoSignIn(adapter, account.email, account.password), 'not_authorized');
  });
});

describe('SRP sign-in with cognito-srp-helper', () => {
  async function initiate(account: Account, session = createSrpSession(account.email, account.password, POOL_ID, false)) {
    const request = wrapInitiateAuth(session, { ClientId: SAAS, AuthFlow: 'USER_SRP_AUTH', AuthParameters: { USERNAME: account.email } });
    const challenge = await engine.passwordChallenge({
      saasId: SAAS,
      username: account.email,
      srpA: (request.AuthParameters as Record<string, string>).SRP_A as string,
      poolName: POOL,
      user: account,
    });
    return { session, challenge, signed: signSrpSession(session, { ChallengeParameters: challenge.parameters }) };
  }

  const answerOf = (signed: ReturnType<typeof signSrpSession>, username: string) =>
    wrapAuthChallenge(signed, { ClientId: SAAS, ChallengeName: 'PASSWORD_VERIFIER', ChallengeResponses: { USERNAME: username } })
      .ChallengeResponses as Record<string, string>;

  it('accepts the right password, answered with the e-mail as USERNAME', async () => {
    const account = newAccount();
    const { challenge, signed } = await initiate(account);
    const claim = await engine.openPasswordClaim(SAAS, answerOf(signed, account.email), challenge.session);
    assert.equal(claim.userId, account.userId);
    assert.equal(claim.sessionId, challenge.session);
    assert.ok(claim.verify(account.verifier));
  });

  it('refuses a wrong password and another SaaS', async () => {
    const account = newAccount();
    const wrong = await initiate(account, createSrpSession(account.email, 'not it', POOL_ID, false));
    assert.equal((await engine.openPasswordClaim(SAAS, answerOf(wrong.signed, account.email))).verify(account.verifier), false);
    const right = await initiate(account);
    await refusedWith(engine.openPasswordClaim(randomUUID(), answerOf(right.signed, account.email)), 'invalid_session');
  });

  it('signs in with a device verifier from createDeviceVerifier', async () => {
    const account = newAccount();
    const deviceKey = `us-east-1_${randomUUID()}`;
    const deviceGroupKey = `-${randomBytes(6).toString('base64url')}`;
    const { DeviceSecretVerifierConfig, DeviceRandomPassword } = createDeviceVerifier(deviceKey, deviceGroupKey);
    const stored = deviceVerifierFromClient({
      password_verifier: DeviceSecretVerifierConfig.PasswordVerifier as string,
      salt: DeviceSecretVerifierConfig.Salt as string,
    });
    assert.ok(stored);
    const session = createSrpSession(account.email, account.password, POOL_ID, false);
    const challenge = await engine.deviceChallenge({
      saasId: SAAS,
      username: account.email,
      userId: account.userId,
      srpA: session.largeA,
      deviceKey,
      deviceGroupKey,
      device: stored,
    });
    const signed = signSrpSessionWithDevice(session, { ChallengeParameters: challenge.parameters }, deviceGroupKey, DeviceRandomPassword);
    const responses = wrapAuthChallenge(signed, {
      ClientId: SAAS,
      ChallengeName: 'DEVICE_PASSWORD_VERIFIER',
      ChallengeResponses: { USERNAME: account.email, DEVICE_KEY: deviceKey },
    }).ChallengeResponses as Record<string, string>;
    const claim = await engine.openDeviceClaim(SAAS, responses, challenge.session);
    assert.equal(claim.userId, account.userId);
    assert.equal(claim.deviceKey, deviceKey);
    assert.ok(claim.verify(stored.verifier));
    // The same block is not a password claim, and names one device only.
    await refusedWith(engine.openPasswordClaim(SAAS, responses), 'invalid_session');
    await refusedWith(engine.openDeviceClaim(SAAS, { ...responses, DEVICE_KEY: `us-east-1_${randomUUID()}` }), 'invalid_session', 'DEVICE_KEY');
  });
});

describe('SRP sign-in for a username that names nobody', () => {
  const challengeFor = (username: string, user?: SrpUser) =>
    engine.passwordChallenge({ saasId: SAAS, username, srpA: new SrpTestClient().srpA, poolName: POOL, user });

  it('answers like a user would: the same parameters, a salt and an id that stay put', async () => {
    const real = newAccount();
    const known = await challengeFor(real.email, real);
    const first = await challengeFor('nobody@example.test');
    const again = await challengeFor('  NOBODY@example.test ');
    assert.deepEqual(Object.keys(first.parameters).sort(), Object.keys(known.parameters).sort());
    assert.equal(first.parameters.SALT, again.parameters.SALT);
    assert.equal(first.parameters.USER_ID_FOR_SRP, again.parameters.USER_ID_FOR_SRP);
    assert.match(first.parameters.USER_ID_FOR_SRP as string, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(first.parameters.SALT?.length, known.parameters.SALT?.length);
    assert.notEqual(first.parameters.SRP_B, again.parameters.SRP_B);
    const elsewhere = await engine.passwordChallenge({
      saasId: randomUUID(),
      username: 'nobody@example.test',
      srpA: new SrpTestClient().srpA,
      poolName: POOL,
      user: undefined,
    });
    assert.notEqual(elsewhere.parameters.SALT, first.parameters.SALT, 'another SaaS, another salt');
  });

  it('then fails the proof like a wrong password, whatever verifier is tried', async () => {
    const client = new SrpTestClient();
    const challenge = await engine.passwordChallenge({
      saasId: SAAS,
      username: 'ghost@example.test',
      srpA: client.srpA,
      poolName: POOL,
      user: undefined,
    });
    const claim = await engine.openPasswordClaim(SAAS, client.passwordAnswer(challenge.parameters, 'any'), challenge.session);
    const guess = createPasswordVerifier(POOL, claim.userId, 'any', Buffer.from(challenge.parameters.SALT as string, 'hex'));
    assert.equal(claim.verify(undefined), false);
    assert.equal(claim.verify(guess.verifier), false);
  });
});

describe('malformed answers', () => {
  it('are 400s naming the field, and the real answer still passes after them', async () => {
    const account = newAccount();
    const client = new SrpTestClient();
    const challenge = await engine.passwordChallenge({ saasId: SAAS, username: account.email, srpA: client.srpA, poolName: POOL, user: account });
    const good = client.passwordAnswer(challenge.parameters, account.password);
    for (const [field, answer] of [
      ['USERNAME', { ...good, USERNAME: '' }],
      ['PASSWORD_CLAIM_SECRET_BLOCK', { ...good, PASSWORD_CLAIM_SECRET_BLOCK: undefined }],
      ['PASSWORD_CLAIM_SECRET_BLOCK', { ...good, PASSWORD_CLAIM_SECRET_BLOCK: 'not base64!' }],
      ['PASSWORD_CLAIM_SECRET_BLOCK', { ...good, PASSWORD_CLAIM_SECRET_BLOCK: 'A'.repeat(9000) }],
      ['PASSWORD_CLAIM_SIGNATURE', { ...good, PASSWORD_CLAIM_SIGNATURE: 'AAAA' }],
      ['TIMESTAMP', { ...good, TIMESTAMP: undefined }],
    ] as const) {
      await refusedWith(engine.openPasswordClaim(SAAS, answer), 'invalid_parameter', field);
    }
    assert.ok((await engine.openPasswordClaim(SAAS, good, challenge.session)).verify(account.verifier));
  });

  it('refuses a secret block that is cut short or of another version', async () => {
    const account = newAccount();
    const client = new SrpTestClient();
    const challenge = await engine.passwordChallenge({ saasId: SAAS, username: account.email, srpA: client.srpA, poolName: POOL, user: account });
    const good = client.passwordAnswer(challenge.parameters, account.password);
    const block = Buffer.from(good.PASSWORD_CLAIM_SECRET_BLOCK, 'base64');
    for (const altered of [block.subarray(0, 100), Buffer.concat([Buffer.from([2]), block.subarray(1)])]) {
      const answer = { ...good, PASSWORD_CLAIM_SECRET_BLOCK: altered.toString('base64') };
      await refusedWith(engine.openPasswordClaim(SAAS, answer), 'invalid_session', 'PASSWORD_CLAIM_SECRET_BLOCK');
    }
  });
});

describe('the test client', () => {
  it('answers as amazon-cognito-identity-js does: the engine accepts its proofs and refuses its wrong ones', async () => {
    const account = newAccount();
    for (const [password, expected] of [
      [account.password, true],
      ['wrong', false],
    ] as const) {
      const client = new SrpTestClient();
      const challenge = await engine.passwordChallenge({ saasId: SAAS, username: account.email, srpA: client.srpA, poolName: POOL, user: account });
      const claim = await engine.openPasswordClaim(SAAS, client.passwordAnswer(challenge.parameters, password), challenge.session);
      assert.equal(claim.verify(account.verifier), expected);
    }
  });

  it("makes device verifiers the reference client's device flow accepts", async () => {
    const account = newAccount();
    const deviceKey = `us-east-1_${randomUUID()}`;
    const device = newDeviceSecret('-group', deviceKey);
    const stored = deviceVerifierFromClient(device.deviceSecretVerifierConfig);
    assert.ok(stored);
    const client = new SrpTestClient();
    const challenge = await engine.deviceChallenge({
      saasId: SAAS,
      username: account.userId,
      userId: account.userId,
      srpA: client.srpA,
      deviceKey,
      deviceGroupKey: '-group',
      device: stored,
    });
    const claim = await engine.openDeviceClaim(
      SAAS,
      client.deviceAnswer(challenge.parameters, { deviceGroupKey: '-group', ...device }),
      challenge.session,
    );
    assert.ok(claim.verify(stored.verifier));
  });
});

describe('TIMESTAMP', () => {
  it("is written like amazon-cognito-identity-js's DateHelper: English, day not zero-padded", () => {
    assert.equal(srpTimestamp(new Date(Date.UTC(2025, 2, 4, 9, 5, 7))), 'Tue Mar 4 09:05:07 UTC 2025');
    assert.equal(srpTimestamp(new Date(Date.UTC(2024, 11, 31, 23, 59, 59))), 'Tue Dec 31 23:59:59 UTC 2024');
  });

  it('is read back exactly, and only in that form', () => {
    assert.equal(parseSrpTimestamp('Tue Mar 4 09:05:07 UTC 2025'), Date.UTC(2025, 2, 4, 9, 5, 7) / 1000);
    assert.equal(parseSrpTimestamp('Thu Feb 29 00:00:00 UTC 2024'), Date.UTC(2024, 1, 29) / 1000);
    for (const bad of [
      'Tue Mar 04 09:05:07 UTC 2025', // zero-padded day
      'Wed Mar 4 09:05:07 UTC 2025', // the wrong weekday
      'Sat Feb 29 00:00:00 UTC 2025', // no such day
      'Tue Mar 4 9:05:07 UTC 2025',
      'Tue Mar 4 24:00:00 UTC 2025',
      'Tue Mar 4 09:05:07 GMT 2025',
      'tue mar 4 09:05:07 UTC 2025',
      'Tue Mar 4 09:05:07 UTC 2025 ',
      '2025-03-04T09:05:07Z',
      '',
    ]) {
      assert.equal(parseSrpTimestamp(bad), undefined, bad);
    }
  });
});

describe('device verifiers from clients', () => {
  it('takes base64 salt and verifier, and refuses what cannot be one', () => {
    assert.deepEqual(deviceVerifierFromClient({ password_verifier: Buffer.from('0abc', 'hex').toString('base64'), salt: 'AQI=' }), {
      salt: '0102',
      verifier: '0abc',
    });
    for (const bad of [
      { password_verifier: 'AQ==', salt: 'AQI=' }, // v = 1
      { password_verifier: Buffer.from(N).toString('base64'), salt: 'AQI=' }, // v = N
      { password_verifier: 'not base64!', salt: 'AQI=' },
      { password_verifier: 'Cqw=', salt: '' },
    ]) {
      assert.equal(deviceVerifierFromClient(bad), undefined, JSON.stringify(bad));
    }
  });
});
