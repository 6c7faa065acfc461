/**
 * The lockout under a race: 100 wrong proofs for one user sent at once must not get more proofs checked
 * than the lockout allows in the time they took (the store's failure counter counts every proof checked),
 * a right password while the user is locked is refused without being counted, and once the lock has run
 * out the right password signs in again.
 */
import { GetCommand } from '../../shared/store/dynamo-client.js';
import { nowSeconds } from '../../shared/clock.js';
import { FREE_ATTEMPTS, type LockoutState } from '../../shared/domain/sign-in/sign-in-lockout.js';
import { dynamo, tableName } from '../../shared/wiring.js';
import { keys } from '../../shared/store/keys.js';
import type { SignedClient } from '../../client/signed-fetch.js';
import { answerChallenge, startSignIn } from '../../dev-support/sign-in.js';
import { SrpTestClient } from '../../dev-support/srp-client.js';
import { expectStatus, PASSWORD } from '../../bench/fixtures.js';
import { allowedAttempts, type Check } from './checks.js';
import type { Load } from './load.js';

const RACERS = 100;
const WRONG_PASSWORD = 'Wrong-pass-1';
/** Waiting for the lock to run out is skipped when it is longer than this. */
const LONGEST_WAIT_SECONDS = 40;

export interface LockoutFigures {
  racers: number;
  raceSeconds: number;
  checkedProofs: number;
  allowedProofs: number;
  refusedOtherwise: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function errorType(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { type?: string }).type;
  } catch {
    return undefined;
  }
}

export async function lockoutRace(api: SignedClient, load: Load, saasId: string): Promise<{ checks: Check[]; figures: LockoutFigures }> {
  const email = `proof-lockout-${Date.now()}@proof.test`;
  const user = expectStatus(await api.post<{ id: string }>('/users', { email, password: PASSWORD }), 201, 'create the lockout user');
  const lockout = async () =>
    (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.userProfile(saasId, user.id), ConsistentRead: true }))).Item
      ?.signin_lockout as LockoutState | undefined;

  /** One sign-in with `password`: the challenge, then the answer's status and error type. */
  const attempt = async (op: string, password: string, expected: number) => {
    const client = new SrpTestClient();
    const started = await load.send(`${op}: sign in`, 200, () => startSignIn(api, email, client.srpA));
    if (!started.res) return { status: started.status, type: undefined };
    const answer = client.passwordAnswer(started.res.body.challenge_parameters, password);
    const done = await load.send(`${op}: proof`, expected, () => answerChallenge(api, 'PASSWORD_VERIFIER', answer, started.res?.body.session));
    return { status: done.status, type: errorType(done.text) };
  };

  // Every challenge first, then every wrong answer at once.
  const challenges = await Promise.all(
    Array.from({ length: RACERS }, async () => {
      const client = new SrpTestClient();
      const started = await load.send('lockout race: sign in', 200, () => startSignIn(api, email, client.srpA));
      return started.res
        ? { answer: client.passwordAnswer(started.res.body.challenge_parameters, WRONG_PASSWORD), session: started.res.body.session }
        : undefined;
    }),
  );
  const raceStart = Date.now();
  const answers = await Promise.all(
    challenges.map((challenge) =>
      challenge
        ? load.send('lockout race: wrong proof', 401, () => answerChallenge(api, 'PASSWORD_VERIFIER', challenge.answer, challenge.session))
        : undefined,
    ),
  );
  const raceSeconds = (Date.now() - raceStart) / 1000;
  const afterRace = await lockout();
  const checkedProofs = afterRace?.failures ?? 0;
  const allowedProofs = allowedAttempts(raceSeconds);
  const refusedOtherwise = answers.filter((a) => a?.status !== 401).length;
  const race: string[] = [];
  if (refusedOtherwise > 0) race.push(`${refusedOtherwise} of ${RACERS} wrong proofs were not answered 401`);
  if (checkedProofs > allowedProofs) race.push(`${checkedProofs} proofs checked in ${raceSeconds.toFixed(1)} s; the lockout allows ${allowedProofs}`);
  if (checkedProofs < FREE_ATTEMPTS) race.push(`only ${checkedProofs} proofs were counted: the lock never engaged`);

  // Make sure the lock has a couple of seconds left, then try the right password. A wrong proof during a lock
  // is refused uncounted, so wait the short lock out first: the wrong proof after it doubles the lock.
  for (let round = 0; round < 10; round++) {
    const left = ((await lockout())?.lockedUntil ?? 0) - nowSeconds();
    if (left >= 2) break;
    if (left >= 0) await sleep((left + 1) * 1000);
    await attempt('lockout: lengthen the lock', WRONG_PASSWORD, 401);
  }
  const locked = await lockout();
  const secondsLeft = (locked?.lockedUntil ?? 0) - nowSeconds();
  const during: string[] = [];
  const right = await attempt('lockout: right password while locked', PASSWORD, 401);
  if (right.status !== 401 || right.type !== 'not_authorized')
    during.push(`the right password while locked got ${right.status} ${String(right.type)}`);
  const afterRight = await lockout();
  if (afterRight?.failures !== locked?.failures)
    during.push(`the refused right password changed the count from ${locked?.failures} to ${afterRight?.failures}`);

  const after: string[] = [];
  const wait = (afterRight?.lockedUntil ?? 0) - nowSeconds();
  let waited = 'skipped: the lock is longer than the proof waits';
  if (wait <= LONGEST_WAIT_SECONDS) {
    await sleep((wait + 1) * 1000);
    const signedIn = await attempt('lockout: right password after the lock', PASSWORD, 200);
    if (signedIn.status !== 200) after.push(`the right password after the lock got ${signedIn.status} ${String(signedIn.type)}`);
    if (await lockout()) after.push('the count was not reset by the completed sign-in');
    waited = `waited ${Math.max(0, wait + 1)} s`;
  }

  return {
    figures: { racers: RACERS, raceSeconds, checkedProofs, allowedProofs, refusedOtherwise },
    checks: [
      {
        name: `lockout race: ${RACERS} parallel wrong proofs check no more than the lockout allows`,
        problems: race,
        looked: `${checkedProofs} checked in ${raceSeconds.toFixed(1)} s, at most ${allowedProofs} allowed`,
      },
      {
        name: 'lockout: the right password during the lock is refused, and not counted',
        problems: during,
        looked: `tried with ${secondsLeft} s of the lock left, count ${locked?.failures}`,
      },
      { name: 'lockout: once the lock has run out the right password signs in', problems: after, looked: waited },
    ],
  };
}
