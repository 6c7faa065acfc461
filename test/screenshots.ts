/**
 * `npm run screenshots`: the pictures of docs/login-screen.md. Each page of the hosted login screen in every
 * variant a person may see it in (English and Japanese, light and dark, the product's look and a SaaS's
 * theme, a desktop window and a 390 px phone), taken in headless Chromium (/usr/bin/chromium) against the same
 * local stack as the browser tests (DynamoDB Local, the SES stand-in, the API), and laid out as one contact
 * sheet per page: docs/images/login-screen/<page>.jpg.
 *
 * Japanese needs a CJK font fontconfig finds (Debian: `apt-get install fonts-noto-cjk`); without one its
 * glyphs are boxes, so the script refuses to run. `npm run screenshots -- sign-in code` takes only those pages.
 */
import '../local/cli-errors.js';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { SignedClient } from '../client/signed-fetch.js';
import { ServiceSetup } from '../examples/app/demo.js';
import { DEMO_THEME } from '../examples/app/demo-theme.js';
import { resetConfigForTests } from '../shared/config.js';
import { createSaasAccount } from '../shared/domain/accounts/accounts.js';
import { secretBox } from '../shared/wiring.js';
import { GOOGLE } from '../web/login/screen/federation.js';
import { consentTicket, type ConsentTicket } from '../web/login/screen/contract.js';
import { sealJson } from '../web/kit/sealed.js';
import { launchChromium } from './support/chromium.js';
import { enableTotp, setTemporaryPassword } from './support/example-app.js';
import { startHarness, type Harness } from '../dev-support/harness.js';
import { srpSignIn } from '../dev-support/sign-in.js';

const OUT = 'docs/images/login-screen';
const LANGS = ['en', 'ja'] as const;
const SCHEMES = ['light', 'dark'] as const;
const LOOKS = ['default', 'branded'] as const;
/** A desktop window, and a phone 390 px wide; each page as long as it is, up to MAX_HEIGHT. */
const WIDTHS = { desktop: { width: 1024, height: 720 }, '390 px': { width: 390, height: 760 } } as const;
const MAX_HEIGHT = 1100;
/** How large each shot is drawn on the sheet, and the sheet's JPEG quality: the repository stays light. */
const SHEET_SCALE = { desktop: 0.4, '390 px': 0.5 } as const;
const JPEG_QUALITY = 62;

const PASSWORD = 'Screen#Shots42';
const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#0f766e"/><path d="M18 46 32 16l14 30h-8l-6-14-6 14z" fill="#fff"/></svg>`;
const CUSTOM_HTML = '<p><strong>Acme Cloud</strong> is undergoing maintenance on Sunday 02:00–04:00 JST.</p>';
const svg = (text: string) => `data:image/svg+xml;base64,${Buffer.from(text).toString('base64')}`;

type Lang = (typeof LANGS)[number];
type Look = (typeof LOOKS)[number];

/** One SaaS as the pictures need it: its screen, and people at each step. */
interface Screen {
  saasId: string;
  admin: SignedClient;
  /** `http://<saas id>.localhost:<port>/v1/auth/login/<saas id>/` */
  url: string;
  invitationUrl: string;
  setup: ServiceSetup;
}

interface Shot {
  /** The sheet's file name and heading. */
  name: string;
  title: string;
  /** Brings the page to the state shown; `n` numbers the variant, for names that must differ. */
  open(page: Page, screen: Screen, lang: Lang, n: number): Promise<void>;
  /** Sign-in settings the page needs, set on both SaaS for its sheet, and what puts them back after. */
  signInSettings?: { during: object; after: object };
}

/** Sign-up with a chosen password (our extension), for its sheets only: the other pages show SaaSus's default. */
const CHOSEN_PASSWORD = { during: { sign_up: { password: 'chosen' } }, after: { sign_up: { password: 'temporary' } } };

/** The chosen-password sign-up form, filled in: each rule marked as met or not, the confirmation matching. */
async function chosenSignUp(page: Page, s: Screen, lang: Lang, email: string, password: string) {
  await page.goto(withLang(`${s.url}sign-up`, lang));
  await visible(page, '#sign-up-form');
  await page.fill('#sign-up-email', email);
  await page.fill('#sign-up-password', password);
  await page.fill('#sign-up-password-confirm', password);
  await page.check('#accept-terms');
  await page.check('#accept-privacy');
}

const visible = (page: Page, selector: string) => page.locator(`${selector}:not([hidden])`).first().waitFor();
const withLang = (url: string, lang: Lang) => `${url}${url.includes('?') ? '&' : '?'}lang=${lang}`;

/**
 * A person of their own for each picture that signs in: a sign-in left at a step counts towards the lockout
 * until one completes (shared/domain/sign-in/sign-in-lockout.ts), so one person would be locked by the sixth.
 */
async function person(s: Screen, kind: 'plain' | 'temporary' | 'totp', n: number): Promise<string> {
  const email = `${kind}-${n}@example.com`;
  const userId = await s.setup.createUser(email, kind === 'temporary' ? 'First#Pass123' : PASSWORD);
  if (kind === 'temporary') await setTemporaryPassword(s.admin, userId, PASSWORD);
  if (kind === 'totp') await enableTotp(s.admin, userId, email, PASSWORD);
  return email;
}

async function signIn(page: Page, screen: Screen, lang: Lang, username: string) {
  await page.goto(withLang(screen.url, lang));
  await visible(page, '#sign-in-form');
  await page.fill('#username', username);
  await page.fill('#password', PASSWORD);
  await page.click('#sign-in-form button[type=submit]');
}

/** The step a new person of `kind` reaches after their password: the form `form`. */
const afterPassword =
  (kind: Parameters<typeof person>[1], form: string): Shot['open'] =>
  async (page, s, lang, n) => {
    await signIn(page, s, lang, await person(s, kind, n));
    await visible(page, form);
  };

const SHOTS: Shot[] = [
  {
    name: 'sign-in',
    title: 'Sign in (with Google and passkeys on)',
    open: async (page, s, lang) => {
      await page.goto(withLang(s.url, lang));
      await visible(page, '#sign-in-form');
    },
  },
  {
    name: 'sign-up',
    title: 'Sign-up',
    open: async (page, s, lang) => {
      await page.goto(withLang(`${s.url}sign-up`, lang));
      await visible(page, '#sign-up-form');
    },
  },
  {
    name: 'sign-up-chosen-password',
    title: 'Sign-up with a chosen password (its rules, shown as met or not, and the confirmation)',
    signInSettings: CHOSEN_PASSWORD,
    // A number missing: one rule is shown not met yet.
    open: (page, s, lang, n) => chosenSignUp(page, s, lang, `chosen-${n}@example.com`, 'Screen#Shots'),
  },
  {
    name: 'sign-up-code',
    title: 'Sign-up with a chosen password: the code mailed to confirm the address',
    signInSettings: CHOSEN_PASSWORD,
    open: async (page, s, lang, n) => {
      await chosenSignUp(page, s, lang, `confirming-${n}@example.com`, PASSWORD);
      await page.click('#sign-up-form button[type=submit]');
      await visible(page, '#sign-up-code-form');
    },
  },
  {
    name: 'consent',
    title: 'A Google sign-up: the consents before the account exists',
    open: async (page, s, lang, n) => {
      // The page the screen sends a new Google account to (screen.ts, federatedSignIn), its ticket sealed the same
      // way: the run's Google is out of reach (for the refusal page), so no real Google account comes back here.
      const email = `google-${n}@example.com`;
      const ticket: ConsentTicket = {
        account: { provider: GOOGLE, subject: `google-${n}`, email, emailVerified: true },
        email,
        context: {},
        exp: Math.floor(Date.now() / 1000) + 30 * 60,
      };
      const sealed = await sealJson(secretBox(), ticket, consentTicket(s.saasId));
      await page.goto(withLang(`${s.url}consent?${new URLSearchParams({ ticket: sealed }).toString()}`, lang));
      await visible(page, '#consent-form');
    },
  },
  {
    name: 'forgot-password',
    title: 'Forgotten password',
    open: async (page, s, lang) => {
      await page.goto(withLang(`${s.url}forgot-password`, lang));
      await visible(page, '#forgot-form');
    },
  },
  {
    name: 'reset-password',
    title: 'Forgotten password: the code and a new password',
    open: async (page, s, lang, n) => {
      await page.goto(withLang(`${s.url}forgot-password`, lang));
      await visible(page, '#forgot-form');
      // An address with no account: the same answer, and no mail (so no mail limit is reached).
      await page.fill('#forgot-form input[name=username]', `nobody-${n}@example.com`);
      await page.click('#forgot-form button[type=submit]');
      await visible(page, '#reset-form');
    },
  },
  {
    name: 'new-password',
    title: 'A new password after a temporary one',
    open: afterPassword('temporary', '#new-password-form'),
  },
  {
    name: 'code',
    title: 'Authenticator code (with "Remember this browser")',
    open: afterPassword('totp', '#code-form'),
  },
  {
    name: 'passkeys',
    title: 'A passkey offered after a password sign-in',
    open: afterPassword('plain', '#passkeys-form'),
  },
  {
    name: 'invitation',
    title: 'Invitation (names the tenant and the SaaS)',
    open: async (page, s, lang) => {
      await page.goto(withLang(s.invitationUrl, lang));
      await visible(page, '#sign-in-form');
    },
  },
  {
    name: 'provider-unavailable',
    title: 'A provider that cannot be used',
    open: async (page, s, lang) => {
      await page.goto(withLang(`${s.url}federated/google`, lang));
      await page.locator('#action').waitFor();
    },
  },
  {
    name: 'expired',
    title: 'An expired step',
    open: async (page, s, lang) => {
      await page.goto(withLang(`${s.url}link?ticket=expired`, lang));
      await page.locator('#action').waitFor();
    },
  },
  {
    name: 'not-found',
    title: 'Not found',
    open: async (page, s, lang) => {
      await page.goto(withLang(`${s.url}no-such-page`, lang));
      await page.locator('#message').waitFor();
    },
  },
  {
    name: 'bad-request',
    title: 'An authorization request the screen cannot take',
    open: async (page, s, lang) => {
      const api = new URL(s.url);
      await page.goto(
        withLang(`http://127.0.0.1:${api.port}/v1/auth/oauth2/authorize?client_id=${s.saasId}&redirect_uri=https://elsewhere.test/`, lang),
      );
      await page.locator('#message').waitFor();
    },
  },
];

async function prepare(h: Harness, look: Look): Promise<Screen> {
  // Named as a SaaS would be: the invitation page says whose it is.
  const { id: saasId } = await createSaasAccount(h.accounts, look === 'branded' ? 'Acme Cloud' : 'Example SaaS');
  const admin = await h.newKey(saasId, ['*']);
  const refused = await admin.get<{ data: { sign_in_page_url: string } }>('/userinfo?token=not-a-token');
  const url = refused.body.data.sign_in_page_url.replace(/sign-in$/, '');
  const setup = new ServiceSetup(admin);
  await setup.ensureDefinitions();
  const tenantId = await setup.createTenant('Tokyo Office');
  const inviterEmail = 'hana@example.com';
  await setup.addMember(tenantId, await setup.createUser(inviterEmail, PASSWORD), inviterEmail);
  const settings = [
    await admin.put('/auth-info', { callback_url: 'http://127.0.0.1:9/callback' }),
    await admin.put('/sign-in-settings', {
      self_regist: { enable: true },
      device_configuration: { device_remembering: 'userOptIn' },
      passkeys: { enable: true },
    }),
    await admin.put('/identity-providers', {
      provider: 'Google',
      identity_provider_props: {
        application_id: 'a-google-out-of-reach',
        application_secret: 'secret',
        approval_scope: 'openid email',
        is_button_hidden: false,
      },
    }),
    // The product's look keeps the settings' defaults (no title: the step's heading is the page's).
    ...(look === 'branded'
      ? [
          await admin.patch('/customize-page-settings', {
            title: 'Acme Cloud',
            icon: svg(LOGO),
            favicon: '',
            terms_of_service_url: 'https://acme.example/terms',
            privacy_policy_url: 'https://acme.example/privacy',
            tag_manager_container_id: '',
            is_sign_in_id_enabled: false,
          }),
          await admin.patch('/login-theme', DEMO_THEME),
        ]
      : []),
    await admin.patch('/customize-pages', {
      sign_up_page: { html_contents: '', is_terms_of_service: true, is_privacy_policy: true },
      // The SaaS's own HTML beside the sign-in form: in the screen's font and colours.
      sign_in_page: { html_contents: look === 'branded' ? CUSTOM_HTML : '', is_terms_of_service: false, is_privacy_policy: false },
      password_reset_page: { html_contents: '', is_terms_of_service: false, is_privacy_policy: false },
    }),
  ];
  for (const res of settings) if (res.status >= 300) throw new Error(`setting up the ${look} SaaS: ${res.status} ${res.text}`);
  const inviter = await srpSignIn(admin, inviterEmail, PASSWORD);
  const invited = await admin.post<{ invitation_url: string }>(`/tenants/${tenantId}/invitations`, {
    email: 'invitee@example.com',
    access_token: inviter.body.credentials?.access_token,
    envs: [{ id: 1, role_names: ['admin'] }],
  });
  if (invited.status !== 201) throw new Error(`inviting: ${invited.status} ${invited.text}`);
  return { saasId, admin, url, invitationUrl: invited.body.invitation_url, setup };
}

interface Taken {
  look: Look;
  scheme: (typeof SCHEMES)[number];
  lang: Lang;
  width: keyof typeof WIDTHS;
  png: Buffer;
  height: number;
}

/** The sheet: a row per look and scheme, a column per language and width. */
function sheetHtml(shot: Shot, taken: Taken[]): string {
  const cell = (t: Taken) =>
    `<td><img src="data:image/png;base64,${t.png.toString('base64')}" width="${Math.round(WIDTHS[t.width].width * SHEET_SCALE[t.width])}"></td>`;
  const columns = LANGS.flatMap((lang) => (Object.keys(WIDTHS) as (keyof typeof WIDTHS)[]).map((width) => ({ lang, width })));
  const rows = LOOKS.flatMap((look) => SCHEMES.map((scheme) => ({ look, scheme })));
  const find = (r: (typeof rows)[number], c: (typeof columns)[number]) =>
    taken.find((t) => t.look === r.look && t.scheme === r.scheme && t.lang === c.lang && t.width === c.width) as Taken;
  return `<!doctype html><html><head><meta charset="utf-8"><style>
body { margin: 0; padding: 12px; background: #fff; font: 14px system-ui, sans-serif; color: #1d2330; }
h1 { font-size: 18px; margin: 0 0 8px; }
table { border-collapse: separate; border-spacing: 8px; }
th { text-align: left; font-weight: 600; }
td { vertical-align: top; padding: 0; }
img { display: block; border: 1px solid #8a93a6; }
</style></head><body><h1>${shot.title}</h1><table>
<tr><th></th>${columns.map((c) => `<th>${c.lang === 'ja' ? '日本語' : 'English'}, ${c.width}</th>`).join('')}</tr>
${rows.map((r) => `<tr><th>${r.look === 'branded' ? 'Branded' : 'Default'},<br>${r.scheme}</th>${columns.map((c) => cell(find(r, c))).join('')}</tr>`).join('\n')}
</table></body></html>`;
}

async function takeAll(browser: Browser, shot: Shot, screens: Record<Look, Screen>): Promise<Taken[]> {
  const taken: Taken[] = [];
  let n = 0;
  for (const look of LOOKS)
    for (const scheme of SCHEMES)
      for (const lang of LANGS)
        for (const width of Object.keys(WIDTHS) as (keyof typeof WIDTHS)[]) {
          const context: BrowserContext = await browser.newContext({
            viewport: WIDTHS[width],
            colorScheme: scheme,
            locale: lang === 'ja' ? 'ja-JP' : 'en-US',
          });
          const page = await context.newPage();
          page.setDefaultTimeout(15_000);
          try {
            await shot.open(page, screens[look], lang, n++);
            // The focus ring of the first field is part of the page as a person first sees it; the caret is not.
            await page.addStyleTag({ content: '* { caret-color: transparent !important; }' }).catch(() => undefined);
            const height = Math.min(MAX_HEIGHT, await page.evaluate(() => document.documentElement.scrollHeight));
            const clip = { x: 0, y: 0, width: WIDTHS[width].width, height: Math.max(height, WIDTHS[width].height) };
            const png = await page.screenshot({ clip, fullPage: true });
            taken.push({ look, scheme, lang, width, png, height: clip.height });
          } catch (error) {
            throw new Error(`${shot.name} (${look}, ${scheme}, ${lang}, ${width}): ${error instanceof Error ? error.message : String(error)}`, {
              cause: error,
            });
          } finally {
            await context.close();
          }
        }
  return taken;
}

async function main() {
  const fonts = execFileSync('fc-list', [':lang=ja', 'family'], { encoding: 'utf8' });
  if (!fonts.trim()) throw new Error('no Japanese font for Chromium: install one (Debian: apt-get install fonts-noto-cjk)');
  const only = process.argv.slice(2);
  const shots = only.length ? SHOTS.filter((s) => only.includes(s.name)) : SHOTS;
  if (shots.length === 0) throw new Error(`no such page; the pages are: ${SHOTS.map((s) => s.name).join(', ')}`);
  // A Google that answers nothing: its settings are there, the provider cannot be reached.
  const closed = createServer();
  await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
  process.env.GOOGLE_ISSUER = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise((done) => closed.close(done));
  resetConfigForTests();
  const [h, browser] = await Promise.all([startHarness({ perSaasHosts: true }), launchChromium()]);
  try {
    const screens = { default: await prepare(h, 'default'), branded: await prepare(h, 'branded') };
    mkdirSync(OUT, { recursive: true });
    const sheetPage = await browser.newPage({ viewport: { width: 800, height: 600 } });
    let total = 0;
    const setSignIn = async (settings: object) => {
      for (const screen of Object.values(screens)) {
        const res = await screen.admin.put('/sign-in-settings', settings);
        if (res.status >= 300) throw new Error(`sign-in settings: ${res.status} ${res.text}`);
      }
    };
    for (const shot of shots) {
      if (shot.signInSettings) await setSignIn(shot.signInSettings.during);
      const taken = await takeAll(browser, shot, screens);
      if (shot.signInSettings) await setSignIn(shot.signInSettings.after);
      await sheetPage.setContent(sheetHtml(shot, taken));
      const jpeg = await sheetPage.screenshot({ type: 'jpeg', quality: JPEG_QUALITY, fullPage: true });
      writeFileSync(`${OUT}/${shot.name}.jpg`, jpeg);
      total += jpeg.length;
      process.stdout.write(`${OUT}/${shot.name}.jpg  ${(jpeg.length / 1024).toFixed(0)} KB\n`);
    }
    process.stdout.write(`${shots.length} sheets, ${(total / 1024 / 1024).toFixed(2)} MB\n`);
  } finally {
    await browser.close();
    await h.close();
  }
}

await main();
