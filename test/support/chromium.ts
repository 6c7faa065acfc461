/**
 * Headless Chromium for the browser tests: Debian's `chromium` (installed by .ci/run), driven by
 * playwright-core. Without it the tests are skipped with a loud notice, except under CI, where a missing
 * browser fails the run.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type CDPSession, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** A closed network: nothing the browser would fetch by itself can be reached, so it must not try. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

/** undefined when the tests may run; else why they are skipped. */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  if (process.env.CI === 'true') throw new Error(`${CHROMIUM_PATH} is missing, and CI must run the browser tests (apt-get install -y chromium)`);
  const reason = `SKIPPED: the browser tests need Chromium at ${CHROMIUM_PATH} (Debian/Ubuntu: sudo apt-get install chromium)`;
  process.stderr.write(`\n${'!'.repeat(reason.length)}\n${reason}\n${'!'.repeat(reason.length)}\n\n`);
  return reason;
}

/** Playwright gives each launch a fresh, temporary profile. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: FLAGS });
}

/** A page in a context of its own (no cookies shared with other pages), at `url`, with the tests' patience. */
export async function openPage(browser: Browser, url: string, options: BrowserContextOptions = {}): Promise<Page> {
  const page = await (await browser.newContext(options)).newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(url);
  return page;
}

/**
 * Chromium's own virtual authenticator on a page (DevTools protocol, WebAuthn domain): CTAP2, internal transport,
 * resident keys, user verification that always succeeds, presence without a touch. Answers its id and session.
 */
export async function addVirtualAuthenticator(context: BrowserContext, page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}
