/**
 * What a page may use of a stored settings document (shared/domain/configuration/stored.ts, issue 36): the
 * members its schema accepts; each one left out is counted (StoredSettingUnusable) and logged, naming the
 * SaaS, the document and the member, never the value.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { usableSettings } from '../../shared/domain/configuration/stored.js';
import { logger, setLogLevel } from '../../shared/log.js';
import { metricsSink, resetMetricsForTests } from '../../shared/metrics.js';
import { LoginTheme } from '../../shared/schemas/login-theme.js';
import { stdoutOf } from '../support/stdout.js';

const level = logger.getLevelName();
beforeAll(() => {
  process.env.METRICS_ENABLED = 'true';
  resetMetricsForTests();
  setLogLevel('warn');
});
afterAll(() => {
  delete process.env.METRICS_ENABLED;
  resetMetricsForTests();
  setLogLevel(level);
});

describe('a stored settings document', () => {
  it('keeps what its schema accepts, leaves out the rest, and counts and logs each value left out', async () => {
    const where = { saasId: 'saas-1', document: 'login-theme' };
    const stored = { primary_color: '#123456', background_image: 'https://999.1.1.1', corner_radius: '8px', unknown: 1 };
    let usable: unknown;
    const lines = await stdoutOf(() => (usable = usableSettings(LoginTheme, stored, where)), process.stderr);
    assert.deepEqual(usable, { primary_color: '#123456' });
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      logged.map(({ saasId, document, member }) => ({ saasId, document, member })),
      ['background_image', 'corner_radius'].map((member) => ({ ...where, member })),
    );
    assert.ok(!lines.join('').includes('999.1.1.1'), 'the value itself is not logged');
    const emf = metricsSink()?.serializeMetrics() as unknown as Record<string, unknown>;
    assert.deepEqual(emf.StoredSettingUnusable, [1, 1], 'counted once for each value left out');
  });

  it('is left out whole when it is not an object, and is undefined when it was never saved', async () => {
    const lines = await stdoutOf(
      () => assert.deepEqual(usableSettings(LoginTheme, 'a string', { saasId: 's', document: 'login-theme' }), {}),
      process.stderr,
    );
    assert.equal(lines.length, 1);
    assert.equal(usableSettings(LoginTheme, undefined, { saasId: 's', document: 'login-theme' }), undefined);
  });
});
