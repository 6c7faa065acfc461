/**
 * The login page's SRP (client/srp.ts, the unmodified AuthenticationHelper plus the proof
 * CognitoUser sends) against the service's SRP engine, with no HTTP: the right password proves, a wrong
 * one does not, and the proof is bound to its challenge.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { createPasswordVerifier } from '../../shared/crypto/srp.js';
import { SrpSignIn } from '../../shared/domain/sign-in/srp-sign-in.js';
import { SrpClient, type PasswordChallenge } from '../../client/srp.js';

const SAAS = randomUUID();
const POOL = `Pool${randomBytes(6).toString('hex')}`;
const srpSecret = randomBytes(32);
const engine = new SrpSignIn({ srpSecret: async () => srpSecret }, { sessionSeconds: 180 });

const userId = randomUUID();
const PASSWORD = 'Correct#Horse9';
const user = { userId, ...createPasswordVerifier(POOL, userId, PASSWORD) };

/** The challenge as the example backend hands it to the page. */
async function challengeFor(client: SrpClient): Promise<PasswordChallenge> {
  const { parameters, session } = await engine.passwordChallenge({
    saasId: SAAS,
    username: 'taro@example.com',
    srpA: await client.srpA(),
    poolName: POOL,
    user,
  });
  return {
    srp_b: parameters.SRP_B as string,
    salt: parameters.SALT as string,
    secret_block: parameters.SECRET_BLOCK as string,
    pool_name: parameters.POOL_NAME as string,
    username: parameters.USER_ID_FOR_SRP as string,
    session,
  };
}

async function proves(claim: Awaited<ReturnType<SrpClient['passwordClaim']>>): Promise<boolean> {
  const opened = await engine.openPasswordClaim(
    SAAS,
    {
      USERNAME: claim.username,
      PASSWORD_CLAIM_SECRET_BLOCK: claim.password_claim_secret_block,
      PASSWORD_CLAIM_SIGNATURE: claim.password_claim_signature,
      TIMESTAMP: claim.timestamp,
    },
    claim.session,
  );
  assert.equal(opened.userId, userId);
  return opened.verify(user.verifier);
}

describe('the login page SRP client', () => {
  it('proves the right password to the service engine', async () => {
    const client = new SrpClient();
    const challenge = await challengeFor(client);
    const claim = await client.passwordClaim(challenge, PASSWORD);
    assert.equal(claim.username, userId, 'the answer names USER_ID_FOR_SRP');
    assert.match(claim.timestamp, /^[A-Z][a-z]{2} [A-Z][a-z]{2} \d{1,2} \d{2}:\d{2}:\d{2} UTC \d{4}$/);
    assert.equal(await proves(claim), true);
  });

  it('fails with a wrong password', async () => {
    const client = new SrpClient();
    const claim = await client.passwordClaim(await challengeFor(client), `${PASSWORD}x`);
    assert.equal(await proves(claim), false);
  });

  it('makes a fresh A per attempt, and a proof that fits only its own challenge', async () => {
    const first = new SrpClient();
    const second = new SrpClient();
    assert.notEqual(await first.srpA(), await second.srpA());
    const challenge = await challengeFor(first);
    // The second client answers the first one's challenge: its a does not match the A the server used.
    const claim = await second.passwordClaim(challenge, PASSWORD);
    assert.equal(await proves(claim), false);
  });

  it('refuses a challenge whose SRP_B is a multiple of N', async () => {
    const client = new SrpClient();
    const challenge = await challengeFor(client);
    await assert.rejects(client.passwordClaim({ ...challenge, srp_b: '0' }, PASSWORD), /B cannot be zero/);
  });
});
