/**
 * Who has an account, told by time? The medians of each step that takes a name, for a name that has an account
 * and for one that has none, end to end through the local API against DynamoDB Local: a wrong
 * PASSWORD_VERIFIER proof (signed API), the login screen's forgot-password and reset steps (a wrong code), the
 * reset for a user with a code waiting against one without (issue 36), and its sign-up with a chosen password
 * (an address that has an account against a new one).
 * The two kinds of request alternate, so drift of the machine touches both alike. Figures, not assertions:
 * the equal requests are tested in test/security/user-enumeration.test.ts.
 *   npm run bench -- enumeration          (ENUMERATION_RUNS=200 by default, per kind and step)
 */
import { randomUUID } from 'node:crypto';
import { startHarness } from '../dev-support/harness.js';
import { answerChallenge, startSignIn } from '../dev-support/sign-in.js';
import { SrpTestClient } from '../dev-support/srp-client.js';
import { ms, summarize, writeResults } from './support.js';

const RUNS = Number(process.env.ENUMERATION_RUNS ?? 200);
const PASSWORD = 'Enumerated-pass-1';
const h = await startHarness();
try {
  const { client: api, saasId } = await h.newSaas();
  // Locked out after a handful of wrong proofs: every known name gets a few, from many users.
  const known: string[] = [];
  for (let i = 0; i < Math.ceil(RUNS / 4) + 2; i++) {
    const email = `known-${String(i).padStart(4, '0')}@bench.test`;
    const created = await api.post('/users', { email, password: PASSWORD });
    if (created.status !== 201) throw new Error(`create user: ${created.status} ${created.text}`);
    known.push(email);
  }
  // Names nobody has, as many and as long: an attacker asks for a code for the name before trying one.
  const unknown = known.map((_, i) => `nobod-${String(i).padStart(4, '0')}@bench.test`);

  const wrongProof = async (username: string) => {
    const client = new SrpTestClient();
    const started = await startSignIn(api, username, client.srpA);
    const answer = client.passwordAnswer(started.body.challenge_parameters, 'Wrong-pass-1');
    const t0 = process.hrtime.bigint();
    const res = await answerChallenge(api, 'PASSWORD_VERIFIER', answer, started.body.session);
    const elapsed = Number(process.hrtime.bigint() - t0) / 1e6;
    if (res.status !== 401) throw new Error(`wrong proof: ${res.status} ${res.text}`);
    return elapsed;
  };

  const screen = `${h.api.baseUrl}/login/${saasId}/api/`;
  const csrf = randomUUID();
  const step = async (name: 'forgot' | 'reset' | 'sign-up', body: object, expected: number) => {
    const t0 = process.hrtime.bigint();
    const res = await fetch(`${screen}${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf, cookie: `login_csrf=${csrf}` },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    const elapsed = Number(process.hrtime.bigint() - t0) / 1e6;
    if (res.status !== expected) throw new Error(`${name}: ${res.status} ${text}`);
    return elapsed;
  };
  const forgot = (username: string) => step('forgot', { username }, 200);
  const reset = (username: string) => step('reset', { username, code: '000000', password: 'Another-pass-1' }, 400);
  // Sign-up with a chosen password: "known" is an address that has an account, "unknown" a new one (mailed a code).
  const signUp = (email: string) => step('sign-up', { email, password: PASSWORD, accepted_terms: false, accepted_privacy: false }, 200);
  // Users who asked for a reset code (one code takes MAX_CODE_ATTEMPTS answers: four each here) and users who never did.
  const makeUsers = async (prefix: string) => {
    const made: string[] = [];
    for (let i = 0; i < Math.ceil((RUNS + 10) / 4); i++) {
      const email = `${prefix}-${String(i).padStart(4, '0')}@bench.test`;
      const created = await api.post('/users', { email, password: PASSWORD });
      if (created.status !== 201) throw new Error(`create user: ${created.status} ${created.text}`);
      made.push(email);
    }
    return made;
  };
  const [waiting, noCode] = [await makeUsers('waiting'), await makeUsers('no-code')];
  for (const email of waiting) await forgot(email);
  const chosen = await api.put('/sign-in-settings', { self_regist: { enable: true }, sign_up: { password: 'chosen' } });
  if (chosen.status !== 200) throw new Error(`sign-in settings: ${chosen.status} ${chosen.text}`);

  /** Alternating samples of `fn` for a known name and an unknown one, each pool in turn. */
  const compare = async (fn: (username: string) => Promise<number>, warmup = 10, pools = { known, unknown }) => {
    const samples = { known: [] as number[], unknown: [] as number[] };
    for (let i = 0; i < RUNS + warmup; i++) {
      const k = await fn(pools.known[i % pools.known.length] as string);
      const u = await fn(pools.unknown[i % pools.unknown.length] as string);
      if (i >= warmup) {
        samples.known.push(k);
        samples.unknown.push(u);
      }
    }
    const figures = { known: summarize(samples.known), unknown: summarize(samples.unknown) };
    return { ...figures, ratio: figures.known.median / figures.unknown.median };
  };

  const figures = {
    wrongPasswordVerifier: await compare(wrongProof),
    screenForgot: await compare(forgot),
    // After the forgot step above every name has a code waiting (a decoy's for the unknown ones), as an attacker's own request would leave it.
    screenResetWrongCode: await compare(reset),
    // "known": a user with a code waiting; "unknown": a user with none (both have accounts; the answers are alike).
    screenResetCodeWaiting: await compare(reset, 10, { known: waiting, unknown: noCode }),
    screenSignUpChosen: await compare(signUp),
  };
  for (const [name, f] of Object.entries(figures)) {
    process.stdout.write(
      `${name.padEnd(24)} known median ${ms(f.known.median)}  unknown median ${ms(f.unknown.median)}  known/unknown ${f.ratio.toFixed(2)}  (n=${f.known.n} each)\n`,
    );
  }
  writeResults('enumeration', figures);
} finally {
  await h.close();
}
