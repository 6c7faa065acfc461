/**
 * The table of non-API entries (shared/routes.ts, ENTRY_FUNCTIONS and ENTRIES), which the stack, the local
 * server and the handlers all read: every function it names has its handler and page, every path goes where
 * API Gateway would send it, and none shadows or is shadowed by a row of the route table.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ENTRIES, ENTRY_FUNCTIONS, ENTRY_PATHS, fullPath, matchEntry, ROUTES, type EntryGrants } from '../../shared/routes.js';
import { pageStyle } from '../../web/page-assets.js';

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
/** A path a route-table row answers, its `{param}`s filled. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'x1');

describe('the entries table', () => {
  it('names functions that each have a handler in functions/, an entry, and the page they build', () => {
    for (const [name, grants] of Object.entries(ENTRY_FUNCTIONS) as [string, EntryGrants][]) {
      assert.ok(existsSync(root(`functions/${name}/handler.ts`)), name);
      assert.ok(
        ENTRIES.some((entry) => entry.fn === name),
        `${name} has no entry`,
      );
      if (grants.page) {
        const script = ['main.ts', 'main.tsx'].filter((file) => existsSync(root(`web/${grants.page}/page/${file}`)));
        assert.equal(script.length, 1, `${name}: one page script, main.ts or main.tsx`);
        // Its one file or its parts, read as the build reads them (web/page-assets.ts).
        assert.ok(pageStyle(grants.page).includes('{'), `${name}: page style`);
      }
    }
    assert.deepEqual(new Set(ENTRIES.map((entry) => entry.path)).size, ENTRIES.length, 'one row per path');
  });

  it('sends each path where API Gateway would: a prefix takes what lies below it, an exact path only itself and its method', () => {
    assert.equal(matchEntry('POST', `${ENTRY_PATHS.login}saas-1/api/start`)?.fn, 'login');
    assert.equal(matchEntry('GET', `${ENTRY_PATHS.oauth2}authorize`)?.fn, 'login');
    assert.equal(matchEntry('POST', `${ENTRY_PATHS.saml2}idpresponse`)?.fn, 'saml');
    assert.equal(matchEntry('GET', '/favicon.ico')?.fn, 'login');
    // `{proxy+}` needs at least one character; the bare prefix and a sibling path are the route table's or $default's.
    assert.equal(matchEntry('GET', ENTRY_PATHS.login), undefined);
    assert.equal(matchEntry('GET', ENTRY_PATHS.login.slice(0, -1)), undefined);
    assert.equal(matchEntry('POST', '/favicon.ico'), undefined);
    assert.equal(matchEntry('GET', '/favicon.ico/x'), undefined);
    // The console: its prefix, and its own name as an exact path of every method (it sends browsers on).
    assert.equal(matchEntry('GET', `${ENTRY_PATHS.console}overview`)?.fn, 'console');
    assert.equal(matchEntry('POST', `${ENTRY_PATHS.console}api/auth/roles`)?.fn, 'console');
    assert.equal(matchEntry('GET', ENTRY_PATHS.consoleEntry)?.fn, 'console');
    assert.equal(matchEntry('HEAD', ENTRY_PATHS.consoleEntry)?.fn, 'console');
    assert.equal(matchEntry('GET', `${ENTRY_PATHS.consoleEntry}s`), undefined);
    // Its bare prefix too, since the console answers its name without the slash; the others' stay $default's.
    assert.equal(matchEntry('GET', ENTRY_PATHS.console)?.fn, 'console');
    for (const bare of [ENTRY_PATHS.oauth2, ENTRY_PATHS.saml2]) assert.equal(matchEntry('GET', bare), undefined, bare);
  });

  it('grants narrow updates only to functions that write nothing else', () => {
    for (const [name, grants] of Object.entries(ENTRY_FUNCTIONS) as [string, EntryGrants][]) {
      if (grants.updatesOnly) {
        assert.equal(grants.writes, false, `${name}: updatesOnly narrows nothing when it writes everything`);
        assert.ok(grants.updatesOnly.length > 0 && grants.updatesOnly.every((pattern) => /^[A-Z]+#/.test(pattern)), name);
      }
    }
  });

  it('shares no path with the route table', () => {
    for (const route of ROUTES) {
      const path = concrete(fullPath(route));
      assert.equal(matchEntry(route.method, path), undefined, `${route.method} ${path}`);
      assert.equal(matchEntry(route.method, `${path}/x`), undefined, `${route.method} ${path}/x`);
    }
  });
});
