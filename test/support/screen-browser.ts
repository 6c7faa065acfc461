/**
 * A browser for the hosted screen over HTTP (test/integration/screen-sessions.test.ts, test/security/): its
 * cookie jar, the screen's sign-in as its page script runs it, and an OpenID Connect authorization followed to
 * the screen. The page itself is tested in Chromium.
 */
import assert from 'node:assert/strict';
import type * as oidc from 'openid-client';
import { SrpClient, verifierResponses } from '../../client/srp.js';
import { authorizationAttempt } from './oidc-request.js';

/** A browser's cookie jar, for the screen's host: name → value, as Set-Cookie headers leave it. */
export class Browser {
  constructor(
    /** The SaaS's screen (`…/login/<saas id>/`). */
    readonly screen: string,
    readonly client?: oidc.Configuration,
    readonly callback = '',
  ) {}

  readonly cookies = new Map<string, string>();

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  take(res: Response): string[] {
    const set = res.headers.getSetCookie();
    for (const line of set) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const [name, value] = [pair.slice(0, at), pair.slice(at + 1)];
      if (/max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return set;
  }

  async get(url: string): Promise<Response> {
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: this.header(), 'user-agent': 'Test browser/1.0' } });
    this.take(res);
    return res;
  }

  /**
   * Opens a screen page and signs in on it as its script does; answers the step's JSON and its Set-Cookie lines.
   * `meanwhile`: what happens between the page and its steps (a cookie planted by someone else, say).
   */
  async signIn(
    url: string,
    username: string,
    password: string,
    meanwhile?: () => void,
  ): Promise<{ answer: Record<string, unknown>; setCookie: string[] }> {
    const page = await this.get(url);
    assert.equal(page.status, 200, `${url}: ${page.status} ${page.headers.get('location')}`);
    meanwhile?.();
    const data = JSON.parse(/<script id="page-data" type="application\/json">([\s\S]*?)<\/script>/.exec(await page.text())?.[1] ?? '{}');
    const base = new URL('.', url).toString();
    const post = async (step: string, body: object) => {
      const res = await fetch(`${base}api/${step}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: this.header(), 'x-csrf-token': String(data.csrf), 'user-agent': 'Test browser/1.0' },
        body: JSON.stringify(body),
      });
      const setCookie = this.take(res);
      const answer = (await res.json()) as Record<string, unknown>;
      assert.ok(res.ok, `${step}: ${res.status} ${JSON.stringify(answer)}`);
      return { answer, setCookie };
    };
    this.next = (body) => post('answer', { ...body, ...(data.state !== undefined ? { state: data.state } : {}) });
    const srp = new SrpClient();
    const { answer: started } = await post('start', { username, srp_a: await srp.srpA() });
    const claim = await srp.passwordClaim(started.challenge as Parameters<SrpClient['passwordClaim']>[0], password);
    return post('answer', {
      challenge_name: 'PASSWORD_VERIFIER',
      session: claim.session,
      responses: verifierResponses(claim),
      ...(data.state !== undefined ? { state: data.state } : {}),
      ...(data.authorization !== undefined ? { authorization: data.authorization } : {}),
    });
  }

  private next?: (body: object) => Promise<{ answer: Record<string, unknown>; setCookie: string[] }>;

  /** The page's next answer step after signIn (a second factor's code), with the page's CSRF token and state. */
  answer(body: object) {
    assert.ok(this.next, 'a sign-in begun');
    return this.next(body);
  }

  /** An OpenID Connect authorization as openid-client builds it, followed to the screen: the screen's answer. */
  async authorize(extra: Record<string, string> = {}) {
    assert.ok(this.client, 'a browser made with an OpenID Connect client');
    const attempt = await authorizationAttempt(this.client, this.callback);
    for (const [name, value] of Object.entries(extra)) attempt.url.searchParams.set(name, value);
    const sent = await this.get(attempt.url.toString());
    assert.equal(sent.status, 302);
    const screenUrl = sent.headers.get('location') ?? '';
    assert.ok(screenUrl.startsWith(this.screen), screenUrl);
    return { ...attempt, screenUrl, answer: await this.get(screenUrl) };
  }
}
