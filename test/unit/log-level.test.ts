/**
 * shared/log.ts drops a line below the logger's level before it copies and redacts the line's fields (the
 * cost of debug lines on every request), and still writes every line at or above it.
 */
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import assert from 'node:assert/strict';
import { log, logger, setLogLevel } from '../../shared/log.js';
import { logLevelFromEnv } from '../../shared/config.js';

afterAll(() => setLogLevel(logLevelFromEnv()));

/** Fields whose one member counts how often it is read. */
function counted() {
  const reads = { n: 0 };
  const fields = {
    get userId() {
      reads.n++;
      return 'u-1';
    },
  };
  return { reads, fields };
}

describe('log levels', () => {
  it('reads no field of a line below the level, and writes the lines at or above it', () => {
    const debug = jest.spyOn(logger, 'debug').mockImplementation(() => undefined);
    const info = jest.spyOn(logger, 'info').mockImplementation(() => undefined);
    try {
      setLogLevel('info');
      const below = counted();
      log.debug('dropped', below.fields);
      assert.equal(below.reads.n, 0);
      expect(debug).not.toHaveBeenCalled();
      const at = counted();
      log.info('written', at.fields);
      assert.equal(at.reads.n, 1);
      expect(info).toHaveBeenCalledWith('written', { userId: 'u-1' });

      setLogLevel('debug');
      log.debug('now written', counted().fields);
      expect(debug).toHaveBeenCalledWith('now written', { userId: 'u-1' });
    } finally {
      debug.mockRestore();
      info.mockRestore();
    }
  });
});
