/**
 * The setup page (web/login/setup) as an IT admin's browser meets it, over fetch: a setup link made through the API,
 * opened once (its key exchanged for the page's cookie), then the steps' forms posted with the page's CSRF token.
 */
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { CookieBrowser } from './cookie-browser.js';

export interface SetupLinkAnswer {
  id: string;
  url: string;
  state: string;
  created_at: number;
  expires_at: number;
}

export async function createSetupLink(api: SignedClient, tenantId: string, validDays?: number): Promise<SetupLinkAnswer> {
  const res = await api.post<SetupLinkAnswer>(`/tenants/${tenantId}/setup-links`, validDays === undefined ? {} : { valid_days: validDays });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

/** The CSRF token a step's page carries in its forms. */
export const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

export class SetupBrowser {
  readonly browser = new CookieBrowser();
  /** `…/login/{saas}/setup`: the page's address once the link was opened. */
  page = '';
  /** The page's sealed cookie, as the link's opening set it (for carrying it where it does not belong). */
  sealed = '';

  /** Opens the link: its answer (a 303 to the page without the key, or the refusal). */
  async open(url: string): Promise<Response> {
    const res = await this.browser.request(url);
    if (res.status === 303) this.page = new URL(res.headers.get('location') ?? '', url).toString();
    this.sealed = /^setup=([^;]+)/.exec(res.headers.getSetCookie().find((line) => line.startsWith('setup=')) ?? '')?.[1] ?? this.sealed;
    return res;
  }

  async get(step = ''): Promise<{ status: number; html: string }> {
    const res = await this.browser.request(`${this.page}${step ? `/${step}` : ''}`);
    return { status: res.status, html: await res.text() };
  }

  /** A step's form posted with the token of that step's page (or `csrf` when given: a forgery). */
  async post(step: string, fields: Record<string, string>, csrf?: string): Promise<{ status: number; html: string }> {
    const token = csrf ?? csrfOf((await this.get(step)).html);
    const res = await this.browser.request(`${this.page}/${step}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...fields, csrf: token }).toString(),
    });
    return { status: res.status, html: await res.text() };
  }
}
