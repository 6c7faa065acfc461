/**
 * The request fuzz of the routes outside the route table (docs/fuzz.md): the hosted login screen's pages and
 * steps, the OpenID Connect authorization server, and the SAML service provider. Requests are drawn per endpoint
 * from the parameters it reads, filled with real values (the SaaS and tenant ids, a user's address, a sealed
 * authorization request, a SAML RelayState and a signed SAMLResponse) and with hostile ones (CR/LF, control and
 * unpaired-surrogate characters, huge and percent-garbled values, foreign URLs, altered sealed values and XML),
 * with the wrong method, content type, CSRF token or path segment now and then. They go straight to the
 * functions as API Gateway events (local/server.ts), eight at a time.
 *
 * Properties: never a 5xx (a malformed SAMLResponse and CR/LF in sign-out's redirect_uri were 500s); a
 * refused screen step answers {type, message, data} and wrote nothing but the count of its attempt (or a
 * decoy's, test/support/write-log.ts); Object.prototype unchanged. FUZZ_LOGIN_RUNS sets the count
 * (1 500 here; `npm run fuzz` sends more), FUZZ_SEED replays a run.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { SignedClient } from '../../client/signed-fetch.js';
import { apiGatewayEvent, invokeHandler } from '../../local/server.js';
import { BASE_PATH } from '../../shared/routes.js';
import { dynamo } from '../../shared/wiring.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { watchWrites, withWriteLog, writesBeyondAttempts, type WriteRecord } from '../support/write-log.js';
import { startTestIdp, type TestIdp } from '../support/saml-idp.js';
import { connectTenantSaml } from '../support/tenant-providers.js';

const REQUESTS = Number(process.env.FUZZ_LOGIN_RUNS ?? 1_500);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const BATCH = 8;
const CALLBACK = 'https://app.fuzz.test/callback';
const PASSWORD = 'Fuzzed-pass-1';

let h: Harness;
let admin: SignedClient;
let idp: TestIdp;
const real = {
  saasId: '',
  tenantId: '',
  email: `fuzz-${randomUUID().slice(0, 8)}@example.test`,
  /** The sealed authorization request the authorization endpoint hands the screen. */
  authorization: '',
  relayState: '',
  samlResponse: '',
  samlCookie: '',
};

// ---------------------------------------------------------------------------------------------------------
// Values

const HOSTILE_TEXT: readonly string[] = [
  '',
  ' ',
  '\r\n',
  'a\r\nSet-Cookie: x=1',
  '\n',
  '\u0000',
  '\ud800',
  'a\udfffb',
  '\u202eevil',
  'ℌ𝔢𝔩𝔩𝔬 👩‍👩‍👧',
  'K', // the Kelvin sign
  '<script>alert(1)</script>',
  '"><img src=x>',
  'javascript:alert(1)',
  '//evil.test',
  'https://evil.test/callback',
  `${CALLBACK}\r\nLocation: https://evil.test`,
  `${CALLBACK}?next=https://evil.test`,
  'https://app.fuzz.test:99999/',
  'http://[::1/',
  '../../etc/passwd',
  '%',
  '%ZZ',
  '%0d%0a',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  '[]',
  '{}',
  '-1',
  '1e400',
  'x'.repeat(3_000),
  'x'.repeat(70_000),
];

/** Real values, altered: a sealed value with one character changed, cut short, or with something added. */
const altered = (value: string): fc.Arbitrary<string> =>
  value
    ? fc.oneof(
        fc.constant(value),
        fc.nat({ max: Math.max(0, value.length - 1) }).map((i) => `${value.slice(0, i)}${value[i] === 'A' ? 'B' : 'A'}${value.slice(i + 1)}`),
        fc.nat({ max: value.length }).map((i) => value.slice(0, i)),
        fc.constantFrom('=', '.', '%00', '\r\n', 'x'.repeat(100)).map((tail) => value + tail),
      )
    : fc.constant('');

const text = (): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...HOSTILE_TEXT), weight: 4 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
    { arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }), weight: 1 },
    {
      arbitrary: fc
        .constantFrom('saasId', 'tenantId', 'email', 'authorization', 'relayState')
        .chain((name) => altered(real[name as keyof typeof real])),
      weight: 3,
    },
    { arbitrary: fc.constantFrom(CALLBACK, 'openid', 'openid email', 'code', 'S256', 'query', 'fragment', 'form_post', PASSWORD), weight: 2 },
  );

/** Percent-encodes every byte of the UTF-8 (a lone surrogate becomes U+FFFD, as a browser sends it). */
const percent = (value: string) =>
  [...Buffer.from(value, 'utf8')]
    .map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0')}`))
    .join('');

/** A query string: the endpoint's own names (and some others), each with a value, percent-encoded or raw. */
const queryOf = (names: readonly string[]): fc.Arbitrary<string> =>
  fc
    .array(fc.tuple(fc.constantFrom(...names, '__proto__', 'x', ''), text(), fc.boolean()), { maxLength: 6 })
    .map((pairs) => pairs.map(([name, value, raw]) => `${percent(name)}=${raw ? value.replace(/[\s#&]/g, '') : percent(value)}`).join('&'));

const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: text(), weight: 5 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
  { arbitrary: fc.constantFrom(null, true, 0, -1, 1.5, [], {}, [[[]]], { __proto__: { polluted: true } }), weight: 1 },
);

const jsonBody = (names: readonly string[]): fc.Arbitrary<string> =>
  fc.oneof(
    {
      arbitrary: fc
        .dictionary(fc.constantFrom(...names, '__proto__', 'constructor', 'extra'), jsonValue, { maxKeys: names.length + 2 })
        .map((v) => JSON.stringify(v)),
      weight: 6,
    },
    {
      arbitrary: fc.constantFrom('', '{', 'null', '[]', '"x"', '{"a":1}{', `{"a":"${'x'.repeat(20_000)}"}`, '\ufeff{}', `${'['.repeat(5_000)}`),
      weight: 1,
    },
  );

const formBody = (names: readonly string[]): fc.Arbitrary<string> =>
  fc.array(fc.tuple(fc.constantFrom(...names, 'x'), text()), { maxLength: 8 }).map((pairs) => new URLSearchParams(pairs).toString());

/** A SAMLResponse: the real signed one, altered, re-encoded, or not XML at all. */
const samlResponse = (): fc.Arbitrary<string> =>
  fc.oneof(
    altered(real.samlResponse),
    fc
      .constantFrom(
        '<x/>',
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>',
        '<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"/>',
        `<a>${'<b>'.repeat(2_000)}`,
        'not xml',
        '',
      )
      .map((xml) => Buffer.from(xml).toString('base64')),
    fc
      .constant(Buffer.from(real.samlResponse, 'base64').toString('utf8').replace('Assertion', 'Assertio'))
      .map((xml) => Buffer.from(xml).toString('base64')),
    text(),
  );

// ---------------------------------------------------------------------------------------------------------
// Requests

interface LoginRequest {
  endpoint: string;
  method: string;
  /** Relative to BASE_PATH, with its query. */
  url: string;
  headers: Record<string, string>;
  body?: string;
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS'];
const CSRF = 'fuzz-csrf-token';
const SEGMENTS = ['..', '%2F', '%00', '%ZZ', 'x'.repeat(300), '__proto__', randomUUID(), '%0d%0a', ''];

const screenBase = () => fc.oneof({ arbitrary: fc.constant(real.saasId), weight: 6 }, { arbitrary: fc.constantFrom(...SEGMENTS), weight: 1 });

const SCREEN_PAGES: Record<string, readonly string[]> = {
  '': ['authorization', 'state', 'error'],
  'sign-in': ['state'],
  'sign-up': [],
  'forgot-password': [],
  'set-password': [],
  invitation: ['invitation_id', 'tenant_id'],
  'assets/login.js': [],
  'assets/login.css': [],
  'sign-out': ['redirect_uri', 'state'],
  'federated/google': ['state', 'authorization'],
  link: ['ticket'],
  consent: ['ticket'],
  saml: ['tenant_id', 'state', 'authorization'],
  'saml/continue': ['ticket'],
};

const SCREEN_STEPS: Record<string, readonly string[]> = {
  start: ['username', 'srp_a'],
  answer: ['challenge_name', 'session', 'responses', 'state', 'invitation', 'authorization'],
  device: ['ticket', 'salt', 'verifier', 'remember'],
  'join-code': ['invitation'],
  join: ['invitation', 'code', 'password'],
  'sign-up': ['email', 'password', 'accepted_terms', 'accepted_privacy'],
  'sign-up-confirm': ['email', 'code', 'password'],
  consent: ['ticket', 'accepted_terms', 'accepted_privacy'],
  forgot: ['username'],
  reset: ['username', 'code', 'password'],
  link: ['ticket', 'code'],
};

const OIDC = {
  authorize: [
    'client_id',
    'redirect_uri',
    'response_type',
    'scope',
    'state',
    'nonce',
    'code_challenge',
    'code_challenge_method',
    'response_mode',
    'prompt',
  ],
  token: ['grant_type', 'code', 'redirect_uri', 'client_id', 'code_verifier', 'refresh_token', 'scope'],
  userinfo: ['access_token'],
  logout: ['post_logout_redirect_uri', 'id_token_hint', 'client_id', 'state'],
  idpresponse: ['code', 'state', 'error', 'scope'],
};

const withMethod = (method: string) => fc.oneof({ arbitrary: fc.constant(method), weight: 8 }, { arbitrary: fc.constantFrom(...METHODS), weight: 1 });

const screenPage = (): fc.Arbitrary<LoginRequest> =>
  fc.tuple(fc.constantFrom(...Object.keys(SCREEN_PAGES)), screenBase(), withMethod('GET')).chain(([page, saas, method]) =>
    queryOf(SCREEN_PAGES[page] as readonly string[]).map((query) => ({
      endpoint: `screen ${page || '(page)'}`,
      method,
      url: `/login/${saas}/${page}${query ? `?${query}` : ''}`,
      headers: {},
    })),
  );

const screenStep = (): fc.Arbitrary<LoginRequest> =>
  fc
    .tuple(
      fc.constantFrom(...Object.keys(SCREEN_STEPS)),
      screenBase(),
      withMethod('POST'),
      fc.nat({ max: 9 }),
      fc.constantFrom('application/json', 'text/plain', ''),
    )
    .chain(([step, saas, method, csrfCase, type]) =>
      jsonBody(SCREEN_STEPS[step] as readonly string[]).map((body) => ({
        endpoint: `screen api/${step}`,
        method,
        url: `/login/${saas}/api/${step}`,
        headers: {
          // Mostly the page's own token, so that steps reach the services; now and then none, or another.
          ...(csrfCase < 8 ? { cookie: `login_csrf=${CSRF}`, 'x-csrf-token': CSRF } : csrfCase === 8 ? { cookie: `login_csrf=${CSRF}` } : {}),
          ...(csrfCase < 9 && type === 'application/json' ? { 'content-type': type } : type ? { 'content-type': type } : {}),
        },
        body,
      })),
    );

const oidc = (): fc.Arbitrary<LoginRequest> =>
  fc.constantFrom(...(Object.keys(OIDC) as (keyof typeof OIDC)[])).chain((name) => {
    const names = OIDC[name];
    if (name === 'token') {
      return fc
        .tuple(withMethod('POST'), formBody(names), fc.constantFrom('application/x-www-form-urlencoded', 'application/json', ''))
        .map(([method, body, type]) => ({
          endpoint: 'oauth2 token',
          method,
          url: '/oauth2/token',
          headers: type ? { 'content-type': type } : {},
          body,
        }));
    }
    if (name === 'userinfo') {
      return fc
        .tuple(fc.constantFrom('GET', 'POST'), text(), fc.constantFrom('Bearer ', 'bearer ', 'Basic ', ''), queryOf(names))
        .map(([method, token, scheme, query]) => ({
          endpoint: 'oauth2 userinfo',
          method,
          url: `/oauth2/userinfo${query ? `?${query}` : ''}`,
          headers: { authorization: `${scheme}${token.replace(/[\r\n]/g, '')}` },
        }));
    }
    // The authorization endpoint with the real client and redirect URI most of the time, so that checks past them run.
    const base =
      name === 'authorize'
        ? fc.constant(
            `client_id=${real.saasId}&redirect_uri=${encodeURIComponent(CALLBACK)}&response_type=code&scope=openid&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256`,
          )
        : fc.constant('');
    return fc.tuple(withMethod('GET'), fc.boolean(), base, queryOf(names)).map(([method, keepBase, prefix, query]) => ({
      endpoint: `oauth2 ${name}`,
      method,
      url: `/oauth2/${name}?${[keepBase ? prefix : '', query].filter(Boolean).join('&')}`,
      headers: {},
    }));
  });

const saml = (): fc.Arbitrary<LoginRequest> =>
  fc.oneof(
    fc
      .tuple(withMethod('GET'), screenBase())
      .map(([method, saas]) => ({ endpoint: 'saml2 metadata', method, url: `/saml2/metadata/${saas}`, headers: {} })),
    fc
      .tuple(withMethod('GET'), screenBase(), fc.oneof(fc.constant(real.tenantId), fc.constantFrom(...SEGMENTS)), queryOf(['state', 'authorization']))
      .map(([method, saas, tenant, query]) => ({
        endpoint: 'saml2 login',
        method,
        url: `/saml2/login/${saas}/${tenant}${query ? `?${query}` : ''}`,
        headers: {},
      })),
    fc
      .tuple(
        withMethod('POST'),
        samlResponse(),
        fc.oneof(altered(real.relayState), text()),
        fc.boolean(),
        fc.constantFrom('application/x-www-form-urlencoded', 'text/plain', ''),
      )
      .map(([method, response, relay, withCookie, type]) => ({
        endpoint: 'saml2 idpresponse',
        method,
        url: '/saml2/idpresponse',
        headers: { ...(type ? { 'content-type': type } : {}), ...(withCookie ? { cookie: real.samlCookie } : {}) },
        body: new URLSearchParams({ SAMLResponse: response, RelayState: relay }).toString(),
      })),
  );

const anyRequest = (): fc.Arbitrary<LoginRequest> =>
  fc
    .oneof(
      { arbitrary: screenPage(), weight: 3 },
      { arbitrary: screenStep(), weight: 4 },
      { arbitrary: oidc(), weight: 3 },
      { arbitrary: saml(), weight: 2 },
    )
    // Now and then another host: another SaaS's, a foreign one, none, or garbage (421 or a redirect, never a 5xx).
    .chain((req) =>
      fc
        .option(fc.constantFrom('evil.test', `${randomUUID()}.localhost`, `${real.saasId}.localhost`, '', 'a b', 'x'.repeat(300)), { freq: 10 })
        .map((host) => (host === null ? req : { ...req, headers: { ...req.headers, host } })),
    )
    .map((req) =>
      Object.assign(req, {
        [fc.toStringMethod]: () => `${req.method} ${req.url.slice(0, 300)} ${JSON.stringify(req.headers)} ${(req.body ?? '').slice(0, 300)}`,
      }),
    );

// ---------------------------------------------------------------------------------------------------------
// Sending and judging

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  text: string;
}

async function send(req: LoginRequest): Promise<Answer> {
  // The host the screen is served on here (the harness's API: PUBLIC_BASE_URL), as a browser sends it.
  const headers: Record<string, string> = { host: new URL(h.api.baseUrl).host, ...req.headers };
  const event = apiGatewayEvent({ method: req.method, url: `${BASE_PATH}${req.url}`, headers, body: Buffer.from(req.body ?? '') });
  let result: Awaited<ReturnType<typeof invokeHandler>>;
  try {
    result = await invokeHandler(event);
  } catch (error) {
    // A function that throws is answered 500 by API Gateway.
    return { status: 500, headers: {}, text: `thrown: ${String(error)}` };
  }
  const body = result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8').toString('utf8') : '';
  return { status: result.statusCode ?? 200, headers: result.headers ?? {}, text: body };
}

const PROTOTYPE_MEMBERS = Object.getOwnPropertyNames(Object.prototype).join(',');

/** A header value Node's HTTP server (and API Gateway) cannot send: the answer would become a 500 on the way out. */
const unsendable = (headers: Record<string, unknown>) =>
  Object.entries(headers)
    .filter(([, value]) => /[\r\n\0]|[^\t\x20-\x7e\x80-\xff]/.test(String(value)))
    .map(([name]) => name);

function problemsOf(req: LoginRequest, answer: Answer, writes: WriteRecord[]): string[] {
  const problems: string[] = [];
  const bad = unsendable(answer.headers);
  // Counted as the 500 it becomes.
  if (bad.length > 0 && answer.status < 500) answer = { ...answer, status: 500, text: `header ${bad.join(', ')} cannot be sent: ${answer.text}` };
  if (answer.status >= 500) problems.push(`answered ${answer.status}`);
  // A refused step changed nothing but the count of its own attempt (or its decoy's).
  if (req.endpoint.startsWith('screen api/') && answer.status >= 400 && answer.status < 500) {
    const changes = writesBeyondAttempts(writes);
    if (changes.length > 0) problems.push(`refused, yet wrote ${changes.join(', ')}`);
  }
  // A step of a real SaaS's screen (a POST) answers JSON; anything else on the screen answers a page.
  if (req.endpoint.startsWith('screen api/') && req.method === 'POST' && req.url.startsWith(`/login/${real.saasId}/`) && answer.status >= 400) {
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      body = undefined;
    }
    const shaped = body as { type?: unknown; message?: unknown; data?: unknown } | undefined;
    if (typeof shaped?.type !== 'string' || typeof shaped.message !== 'string' || typeof shaped.data !== 'object' || shaped.data === null) {
      problems.push('the error is not {type, message, data}');
    }
  }
  return problems;
}

async function checkBatch(batch: LoginRequest[]): Promise<void> {
  const answers = await Promise.all(
    batch.map(async (req) => {
      const { result, writes } = await withWriteLog(() => send(req));
      return { req, answer: result, writes };
    }),
  );
  const problems = answers.flatMap(({ req, answer, writes }) =>
    problemsOf(req, answer, writes).map(
      (problem) =>
        `${req.method} ${req.url.slice(0, 200)} ${(req.body ?? '').slice(0, 200)} → ${answer.status} ${answer.text.slice(0, 200)}: ${problem}`,
    ),
  );
  assert.equal(Object.getOwnPropertyNames(Object.prototype).join(','), PROTOTYPE_MEMBERS, 'Object.prototype was changed');
  assert.deepEqual(problems, []);
}

// ---------------------------------------------------------------------------------------------------------
// The run

const cookieOf = (answer: Answer) => String(answer.headers['set-cookie'] ?? '').split(';')[0] ?? '';

beforeAll(async () => {
  h = await startHarness();
  let saasId: string;
  ({ saasId, client: admin } = await h.newSaas());
  real.saasId = saasId;
  assert.equal((await admin.put('/auth-info', { callback_url: CALLBACK })).status, 200);
  assert.equal((await admin.post('/users', { email: real.email, password: PASSWORD })).status, 201);
  const tenant = await admin.post<{ id: string }>('/tenants', { name: 'Fuzz', attributes: {}, back_office_staff_email: 'ops@example.test' });
  assert.equal(tenant.status, 201, tenant.text);
  real.tenantId = tenant.body.id;
  idp = startTestIdp('fuzz');
  await connectTenantSaml(admin, real.tenantId, idp.metadata);

  // Real sealed values to start from: the authorization request the screen carries, and a SAML flow with its answer.
  const authorize = await send({
    endpoint: 'oauth2 authorize',
    method: 'GET',
    url: `/oauth2/authorize?client_id=${saasId}&redirect_uri=${encodeURIComponent(CALLBACK)}&response_type=code&scope=openid&state=s&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256`,
    headers: {},
  });
  assert.equal(authorize.status, 302, authorize.text);
  real.authorization = new URL(String(authorize.headers.location), 'https://api.test').searchParams.get('authorization') ?? '';
  assert.ok(real.authorization);
  const started = await send({ endpoint: 'saml2 login', method: 'GET', url: `/saml2/login/${saasId}/${real.tenantId}?state=s`, headers: {} });
  assert.equal(started.status, 302, started.text);
  const location = String(started.headers.location);
  real.relayState = new URL(location).searchParams.get('RelayState') ?? '';
  real.samlCookie = cookieOf(started);
  const metadata = await send({ endpoint: 'saml2 metadata', method: 'GET', url: `/saml2/metadata/${saasId}`, headers: {} });
  real.samlResponse = (await idp.respond(location, metadata.text, { nameId: 'fuzz@idp', email: real.email })).SAMLResponse;
  watchWrites(dynamo());
});
afterAll(async () => {
  await h?.close();
});

describe('login screen, OpenID Connect and SAML fuzz', () => {
  it('answers the cases the reviews found without a 5xx', async () => {
    const saas = real.saasId;
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const cases: LoginRequest[] = [
      ...['%0d%0a', '%0aSet-Cookie:%20x=1', '%0d'].map((crlf) => ({
        endpoint: 'screen sign-out',
        method: 'GET',
        url: `/login/${saas}/sign-out?redirect_uri=${encodeURIComponent(CALLBACK)}${crlf}`,
        headers: {},
      })),
      ...['', 'bm90IHhtbA==', '%%%', Buffer.from('<x/>').toString('base64')].map((response) => ({
        endpoint: 'saml2 idpresponse',
        method: 'POST',
        url: '/saml2/idpresponse',
        headers: form,
        body: `SAMLResponse=${response}`,
      })),
      { endpoint: 'screen invitation', method: 'GET', url: `/login/${saas}/invitation?invitation_id=x&tenant_id=${'x'.repeat(3_000)}`, headers: {} },
      { endpoint: 'screen invitation', method: 'GET', url: `/login/${saas}/invitation?invitation_id=${'y'.repeat(1_500)}&tenant_id=t`, headers: {} },
    ];
    await checkBatch(cases);
  });

  it(`answers ${REQUESTS} requests over the screen, the authorization server and the SAML provider without a 5xx`, async () => {
    const seed = SEED !== undefined ? { seed: SEED } : {};
    await fc.assert(fc.asyncProperty(fc.array(anyRequest(), { minLength: BATCH, maxLength: BATCH }), checkBatch), {
      numRuns: Math.max(1, Math.round(REQUESTS / BATCH)),
      includeErrorInReport: true,
      ...seed,
    });
  });
});
