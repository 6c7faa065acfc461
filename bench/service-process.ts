/**
 * Starts the local API in its own process (bench/service-child.ts) and reads its CPU time and memory, and
 * the CPU time of other processes (DynamoDB Local's JVM) from /proc. The benchmarks divide the service's
 * CPU time by the work done to get a cost per operation that the clients' work does not colour.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { openSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASE_PATH } from '../shared/routes.js';

export type ParentMessage = { kind: 'usage'; id: number; collectGarbage?: boolean } | { kind: 'stop' };
export type ChildMessage = { kind: 'ready'; port: number } | { kind: 'usage'; id: number; cpu: NodeJS.CpuUsage; memory: NodeJS.MemoryUsage };

export interface ServiceUsage {
  /** User + system CPU time of the service process since it started, in ms. */
  cpuMs: number;
  /** The system (kernel) part of cpuMs: socket writes and reads, mostly. */
  systemMs: number;
  memory: NodeJS.MemoryUsage;
}

export interface ServiceProcess {
  /** `http://127.0.0.1:PORT/v1/auth` */
  baseUrl: string;
  pid: number;
  /**
   * CPU time and memory now; with `collectGarbage` (the service started with `--expose-gc`), after a full
   * collection, so heap figures compare without the garbage of the moment.
   */
  usage(options?: { collectGarbage?: boolean }): Promise<ServiceUsage>;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** Run the scheduled worker (mail, plan reservations) this often; never when absent. */
  scheduledWorkMs?: number;
  /** Where the service's stdout and stderr go (its logs); discarded when absent. */
  logFile?: string;
  /** Extra environment for the service (it inherits this process's, which useLocalEngines has set). */
  env?: Record<string, string>;
  /** Extra node options for the service, e.g. `['--cpu-prof']` to profile it. */
  execArgv?: string[];
  /** Another server speaking the same messages (bench/cognito-local-child.ts); the local API by default. */
  childScript?: string;
  /** The path the server's API lives under: BASE_PATH by default. */
  basePath?: string;
}

const here = dirname(fileURLToPath(import.meta.url));

/** BENCH_CPU_PROFILE=<folder>: every service process writes a V8 CPU profile there as it stops (docs/proof.md). */
const profiling = () => (process.env.BENCH_CPU_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROFILE] : []);

export async function startServiceProcess(options: ServiceOptions = {}): Promise<ServiceProcess> {
  const output = options.logFile ? openSync(options.logFile, 'a') : 'ignore';
  const child: ChildProcess = fork(options.childScript ?? join(here, 'service-child.ts'), [], {
    execArgv: ['--import', 'tsx', ...(options.execArgv ?? []), ...profiling()],
    stdio: ['ignore', output, output, 'ipc'],
    env: {
      ...process.env,
      ...options.env,
      ...(options.scheduledWorkMs ? { SCHEDULED_WORK_MS: String(options.scheduledWorkMs) } : {}),
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the service process did not start within 60 s')), 60_000);
    child.once('exit', (code) => reject(new Error(`the service process exited (code ${code}) before it was ready`)));
    child.on('message', (message: ChildMessage) => {
      if (message.kind !== 'ready') return;
      clearTimeout(timer);
      resolve(message.port);
    });
  });
  child.removeAllListeners('exit');

  let nextId = 0;
  const usage = (options: { collectGarbage?: boolean } = {}) =>
    new Promise<ServiceUsage>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => reject(new Error('the service process did not report its usage')), 10_000);
      const listener = (message: ChildMessage) => {
        if (message.kind !== 'usage' || message.id !== id) return;
        clearTimeout(timer);
        child.off('message', listener);
        resolve({ cpuMs: (message.cpu.user + message.cpu.system) / 1000, systemMs: message.cpu.system / 1000, memory: message.memory });
      };
      child.on('message', listener);
      child.send({ kind: 'usage', id, ...options } satisfies ParentMessage);
    });

  return {
    baseUrl: `http://127.0.0.1:${port}${options.basePath ?? BASE_PATH}`,
    pid: child.pid as number,
    usage,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const force = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.send({ kind: 'stop' } satisfies ParentMessage);
      }),
  };
}

export interface Throughput {
  perSecond: number;
  /** The service process's CPU time per call, in ms. */
  serviceCpuMs: number;
  /** DynamoDB Local's (the other process's) CPU time per call, in ms; absent where there is no /proc. */
  dynamoLocalCpuMs?: number;
}

/** `total` calls, `clients` at a time, against the service: calls per second and CPU time per call. */
export async function measureThroughput(
  service: ServiceProcess,
  dynamoLocalPid: number | undefined,
  clients: number,
  total: number,
  call: () => Promise<unknown>,
): Promise<Throughput> {
  const [serviceBefore, engineBefore] = [await service.usage(), processCpuMs(dynamoLocalPid)];
  const started = process.hrtime.bigint();
  let remaining = total;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (remaining-- > 0) await call();
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const [serviceAfter, engineAfter] = [await service.usage(), processCpuMs(dynamoLocalPid)];
  return {
    perSecond: total / seconds,
    serviceCpuMs: (serviceAfter.cpuMs - serviceBefore.cpuMs) / total,
    ...(engineBefore !== undefined && engineAfter !== undefined ? { dynamoLocalCpuMs: (engineAfter - engineBefore) / total } : {}),
  };
}

/** CPU time (user + system) a process has used, in ms, from /proc; undefined where there is no /proc. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields after the command name (which may hold spaces, so split after its closing parenthesis).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * CPU time (user + system, every thread) that the process `root` and everything it spawned have used, in ms,
 * from /proc: its own, its descendants' still running, and what its reaped children used (cutime, cstime).
 * Undefined where there is no /proc or the process is gone.
 */
export function processTreeCpuMs(root: number): number | undefined {
  const stats = new Map<number, string[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  for (const name of entries) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      stats.set(Number(name), stat.slice(stat.lastIndexOf(')') + 2).split(' '));
    } catch {
      // Gone between the listing and the read: its time is in its parent's cutime once reaped.
    }
  }
  if (!stats.has(root)) return undefined;
  const children = new Map<number, number[]>();
  for (const [pid, fields] of stats) {
    const parent = Number(fields[1]);
    children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  let ticks = 0;
  const pending = [root];
  while (pending.length > 0) {
    const pid = pending.pop() as number;
    const fields = stats.get(pid) as string[];
    // utime, stime, cutime, cstime (fields 14 to 17 of proc(5), counted from the state, the third).
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    pending.push(...(children.get(pid) ?? []));
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** USER_HZ: 100 on every Linux that node supports. */
const CLOCK_TICKS_PER_SECOND = 100;
