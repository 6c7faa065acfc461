/**
 * The login screen's theme (GET/PATCH /login-theme, our extension): validated strictly (a bad value is a 400
 * that changes nothing), per SaaS, and what the screen's stylesheet (`./assets/theme.css`) says, under a
 * versioned URL the page names.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { DEFAULT_LOGIN_THEME } from '../../shared/domain/configuration/login-theme.js';
import { expectError } from '../support/expect.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

let h: Harness;
let api: SignedClient;
let other: SignedClient;
let saasId: string;
let otherId: string;

const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const BRANDED = {
  primary_color: '#e11d48',
  background_color: '#fde',
  background_image: PNG,
  mode: 'dark',
  corner_radius: 16,
  logo_position: 'left',
} as const;

beforeAll(async () => {
  h = await startHarness();
  ({ client: api, saasId } = await h.newSaas());
  ({ client: other, saasId: otherId } = await h.newSaas());
});
afterAll(() => h.close());

const screen = (id: string) => `${h.api.baseUrl}/login/${id}/`;
const themeHref = async (id: string) => {
  const html = await (await fetch(screen(id))).text();
  const href = /<link rel="stylesheet" href="([^"]*theme\.css\?v=[^"]+)">/.exec(html)?.[1];
  assert.ok(href, 'the page names its theme');
  return new URL(href, screen(id)).toString();
};

describe('the login theme', () => {
  it("answers the screen's own look before any is set", async () => {
    const res = await api.get('/login-theme');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, DEFAULT_LOGIN_THEME);
  });

  it('refuses what is not a theme, and changes nothing', async () => {
    assert.equal((await api.patch('/login-theme', { primary_color: '#123456' })).status, 200);
    const before = (await api.get('/login-theme')).body;
    const bad: Record<string, unknown>[] = [
      { primary_color: 'red' },
      { primary_color: '#12345' },
      { primary_color: '#1234567' },
      { primary_color: '#123; } body { display: none' },
      { primary_color: 'rgb(1,2,3)' },
      { primary_color: '' },
      { background_color: 'url(https://evil.example/x.png)' },
      { background_color: '#fff;' },
      { background_image: `data:image/png;base64,${'A'.repeat(100_000)}` },
      { background_image: 'data:text/html;base64,PGI+PC9iPg==' },
      { background_image: 'http://example.com/bg.png' },
      { background_image: 'https://example.com/a.png") } body { color: red' },
      { background_image: "https://example.com/a'b.png" },
      { background_image: 'https://example.com/a b.png' },
      { background_image: 'javascript:alert(1)' },
      { mode: 'sepia' },
      { mode: '' },
      { corner_radius: -1 },
      { corner_radius: 25 },
      { corner_radius: 4.5 },
      { corner_radius: '8px' },
      { logo_position: 'right' },
      { primary_colour: '#123456' },
    ];
    for (const body of bad) await expectError(api.patch('/login-theme', body), 400, 'invalid_parameter');
    // Base64 that does not decode: the same as the icon of customize-page-settings.
    await expectError(api.patch('/login-theme', { background_image: 'data:image/png;base64,A' }), 400, 'invalid_parameter', 'background_image');
    assert.deepEqual((await api.get('/login-theme')).body, before);
  });

  it('changes only the members given, and only for its own SaaS', async () => {
    assert.equal((await api.patch('/login-theme', BRANDED)).status, 200);
    assert.equal((await api.patch('/login-theme', { corner_radius: 0 })).status, 200);
    assert.deepEqual((await api.get('/login-theme')).body, { ...BRANDED, corner_radius: 0 });
    assert.deepEqual((await other.get('/login-theme')).body, DEFAULT_LOGIN_THEME);
    const css = await (await fetch(await themeHref(otherId))).text();
    assert.doesNotMatch(css, /#e11d48/);
  });

  it('needs config:write to change and config:read to read', async () => {
    const reader = (await h.newSaas(['config:read'])).client;
    await expectError(reader.patch('/login-theme', { mode: 'light' }), 403, 'permission_denied');
    const writer = (await h.newSaas(['tenant:read'])).client;
    assert.equal((await writer.get('/login-theme')).status, 403);
  });

  it('is what the stylesheet says, under a URL that changes with it', async () => {
    assert.equal((await api.patch('/login-theme', { ...BRANDED, corner_radius: 16 })).status, 200);
    const href = await themeHref(saasId);
    const res = await fetch(href);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/css/);
    assert.match(res.headers.get('cache-control') ?? '', /immutable/);
    const css = await res.text();
    assert.match(css, /--primary: #e11d48;/);
    // Dark crimson takes white text (4.7:1); on the dark card it is too dark for links, which take the text colour.
    assert.match(css, /--on-primary: #ffffff;/);
    assert.match(css, /--accent: #e8eaf0;/);
    assert.match(css, /--page: #ffddee;/);
    assert.match(css, /color-scheme: dark;/);
    assert.doesNotMatch(css, /prefers-color-scheme/);
    assert.match(css, /border-radius: 16px;/);
    assert.ok(css.includes(`url("${PNG}")`));
    assert.match(css, /h2 \{\n {2}text-align: left;/);

    const etag = res.headers.get('etag') ?? '';
    assert.equal((await fetch(href, { headers: { 'if-none-match': etag } })).status, 304);

    assert.equal((await api.patch('/login-theme', { primary_color: '#fc0', mode: 'auto', logo_position: 'hidden' })).status, 200);
    const next = await themeHref(saasId);
    assert.notEqual(next, href);
    const css2 = await (await fetch(next)).text();
    // Yellow takes black text, and is too light for links on white: they take the text colour there.
    assert.match(css2, /--primary: #ffcc00;\n {2}--on-primary: #000000;\n {2}--accent: #1d2330;/);
    assert.match(css2, /@media \(prefers-color-scheme: dark\)/);
    assert.match(css2, /\.icon \{\n {2}display: none;/);
    // An old page's URL revalidates: the current theme, no longer kept for good.
    const old = await fetch(href);
    assert.equal(old.headers.get('cache-control'), 'no-cache');
    assert.equal(await old.text(), css2);
  });

  it("lets an https background image through the page's CSP, and only its origin", async () => {
    assert.equal((await api.patch('/login-theme', { background_image: 'https://cdn.example.com/brand/bg.jpg?w=1600' })).status, 200);
    const res = await fetch(screen(saasId));
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /img-src 'self' data: https:\/\/cdn\.example\.com;/);
    assert.match(csp, /style-src 'self';/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    const css = await (await fetch(await themeHref(saasId))).text();
    assert.ok(css.includes('url("https://cdn.example.com/brand/bg.jpg?w=1600")'));
    const otherCsp = (await fetch(screen(otherId))).headers.get('content-security-policy') ?? '';
    assert.doesNotMatch(otherCsp, /cdn\.example\.com/);
  });
});
