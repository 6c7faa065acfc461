/**
 * Starting the local engines together (local/engines.ts, used by the test run's global setup, the harness and
 * `npm start`): when one fails, the one that started is stopped, not left running with nobody to stop it (the
 * global setup used to leave the SES stand-in behind whenever DynamoDB Local missed its start); and the time an
 * engine may take stretches with the machine's load, while an engine that exits is still reported at once.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DYNAMO_JVM_OPTIONS, freePort, readyTimeoutMs, startDynamoLocal, startSesLocal, startTogether } from '../../local/engines.js';

const answers = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(2000) }).then(
    () => true,
    () => false,
  );

describe('engines started together', () => {
  it('stops the SES stand-in when DynamoDB Local fails after it started', async () => {
    const ses = startSesLocal(await freePort());
    let sesUrl = '';
    const dynamo = ses.then((engine) => {
      sesUrl = engine.url;
      throw new Error('DynamoDB Local was not ready (stand-in for a slow start)');
    });
    await assert.rejects(startTogether([dynamo, ses]), /DynamoDB Local was not ready/);
    assert.notEqual(sesUrl, '');
    assert.equal(await answers(`${sesUrl}/store`), false, 'the SES stand-in still answers: it was left running');
  });

  it('stops a real DynamoDB Local that never got to answer (a start that timed out)', async () => {
    const port = await freePort();
    await assert.rejects(
      startDynamoLocal({ port, sharedDb: false, readyTimeoutMs: 1 }),
      /DynamoDB Local was not ready at .* \(load [\d.]+ on \d+ cores\)/,
    );
    // Its JVM is gone: nothing takes the port, even after the time a start would need.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    assert.equal(await answers(`http://127.0.0.1:${port}`), false);
  });

  it("starts DynamoDB Local's JVM with the serial collector, after the user's own JDK_JAVA_OPTIONS, which stay as they were", async () => {
    const own = process.env.JDK_JAVA_OPTIONS;
    process.env.JDK_JAVA_OPTIONS = '-Dimportcut.test=1';
    const engine = await startDynamoLocal({ port: await freePort(), sharedDb: false });
    try {
      assert.equal(process.env.JDK_JAVA_OPTIONS, '-Dimportcut.test=1');
      const environment = readFileSync(`/proc/${engine.pid}/environ`, 'utf8').split('\0');
      assert.ok(
        environment.includes(`JDK_JAVA_OPTIONS=-Dimportcut.test=1 ${DYNAMO_JVM_OPTIONS.join(' ')}`),
        environment.filter((v) => v.startsWith('JDK')).join(),
      );
      assert.deepEqual(DYNAMO_JVM_OPTIONS, ['-XX:+UseSerialGC']);
      assert.equal(await answers(engine.url), true);
    } finally {
      if (own === undefined) delete process.env.JDK_JAVA_OPTIONS;
      else process.env.JDK_JAVA_OPTIONS = own;
      await engine.stop();
    }
  });

  it('returns every engine when all start', async () => {
    const engines = await startTogether([startSesLocal(await freePort()), startSesLocal(await freePort())]);
    try {
      for (const engine of engines) assert.equal(await answers(`${engine.url}/store`), true);
    } finally {
      await Promise.all(engines.map((engine) => engine.stop()));
    }
  });
});

describe('the time an engine may take to start', () => {
  it('is 30 s on a machine at most as busy as its cores, longer when busier, at most four times', () => {
    assert.equal(readyTimeoutMs(30_000, 0.5, 2), 30_000);
    assert.equal(readyTimeoutMs(30_000, 2, 2), 30_000);
    assert.equal(readyTimeoutMs(30_000, 5, 2), 75_000);
    assert.equal(readyTimeoutMs(30_000, 40, 2), 120_000);
  });
});
