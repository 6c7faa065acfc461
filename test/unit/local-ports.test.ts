/**
 * npm start's ports (shared/config.ts, localRunnerConfig): a port that fetch refuses is refused at once, naming the
 * variable, where DynamoDB Local on 6000 used to start and then never answer ("not ready" after 30 s).
 */
import { afterEach, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { FETCH_BAD_PORTS, localRunnerConfig } from '../../shared/config.js';

const VARIABLES = {
  PORT: ['the API', 8080],
  APP_PORT: ['the example app', 8081],
  DYNAMODB_PORT: ['DynamoDB Local', 8000],
  SES_PORT: ['the SES stand-in', 8005],
} as const;
const saved = Object.fromEntries(Object.keys(VARIABLES).map((name) => [name, process.env[name]]));

afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

function withPort(name: string, value: string): () => unknown {
  for (const other of Object.keys(VARIABLES)) delete process.env[other];
  process.env[name] = value;
  return () => localRunnerConfig();
}

describe("npm start's ports", () => {
  it('refuses a port fetch refuses, naming the port, the variable and what would listen there', () => {
    for (const [name, [what, fallback]] of Object.entries(VARIABLES)) {
      for (const port of [6000, 10080, 22]) {
        assert.throws(withPort(name, String(port)), {
          name: 'ConfigError',
          message: `environment variable ${name} is ${port}, a port that fetch refuses to connect to (Node's and browsers', the Fetch standard's bad ports), so nothing could reach ${what} there: set ${name} to another port, such as ${fallback}`,
        });
      }
      assert.throws(withPort(name, '65536'), { message: `environment variable ${name} must be a port number, 0 to 65535` });
    }
  });

  it('takes any other port, 0 (any free one) and the defaults', () => {
    for (const name of Object.keys(VARIABLES)) {
      for (const port of [0, 5999, 6001, 65535]) assert.doesNotThrow(withPort(name, String(port)), `${name}=${port}`);
    }
    for (const other of Object.keys(VARIABLES)) delete process.env[other];
    const { apiPort, appPort, dynamoPort, sesPort } = localRunnerConfig();
    assert.deepEqual([apiPort, appPort, dynamoPort, sesPort], [8080, 8081, 8000, 8005]);
  });

  it("lists only ports Node's own fetch refuses (it refuses them before any connection)", async () => {
    assert.equal(FETCH_BAD_PORTS.size, 82);
    for (const port of FETCH_BAD_PORTS) {
      const refusal = await fetch(`http://127.0.0.1:${port}/`).then(
        () => undefined,
        (error: unknown) => ((error as Error).cause as Error | undefined)?.message,
      );
      assert.equal(refusal, 'bad port', String(port));
    }
  });
});
