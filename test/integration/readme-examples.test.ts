/**
 * The README's `npm run sign` examples work as written on a fresh `npm start`, whose demo seed made the
 * example application's env, role, tenants and user first (they used to collide: role_already_exists).
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { SignedClient } from '../../client/signed-fetch.js';
import { seedDemo, ServiceSetup } from '../../examples/app/demo.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';

let h: Harness;
let api: SignedClient;

beforeAll(async () => {
  h = await startHarness();
  api = (await h.newSaas()).client;
  await seedDemo(new ServiceSetup(api));
});
afterAll(() => h.close());

/** Every `npm run sign -- METHOD PATH ['BODY']` line of the README's code blocks, in order. */
function readmeExamples(): { method: string; path: string; body?: string }[] {
  const readme = readFileSync('README.md', 'utf8');
  return [...readme.matchAll(/^npm run sign -- (GET|POST|PUT|PATCH|DELETE) (\S+)(?: '(.*)')?$/gm)].map(([, method, path, body]) => ({
    method: method as string,
    path: path as string,
    ...(body !== undefined ? { body } : {}),
  }));
}

describe('the README’s first examples', () => {
  it('all succeed after the demo seed, in the order they are written', async () => {
    const examples = readmeExamples();
    assert.ok(examples.length >= 4, 'the README shows its examples');
    for (const { method, path, body } of examples) {
      const res = await api.request(method, path, body === undefined ? {} : { body });
      assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
    }
  });
});
