/**
 * The local API in a process of its own, for the benchmarks and the proof (bench/service-process.ts starts
 * it): the clients that load it then never share its CPU, so its CPU time and memory are its own. It serves
 * the table the parent's environment names (useLocalEngines in the parent), and, when SCHEDULED_WORK_MS is
 * set, runs the scheduled worker that often, as `npm start` does (mail delivery, plan reservations).
 */
import { runScheduledWork } from '../functions/scheduled/handler.js';
import { startLocalApi } from '../local/server.js';
import { log } from '../shared/log.js';
import type { ChildMessage, ParentMessage } from './service-process.js';

const send = (message: ChildMessage) => process.send?.(message);

const api = await startLocalApi(0);

const scheduledEveryMs = Number(process.env.SCHEDULED_WORK_MS ?? 0);
let scheduler: NodeJS.Timeout | undefined;
if (scheduledEveryMs > 0) {
  let working = false;
  scheduler = setInterval(() => {
    if (working) return;
    working = true;
    runScheduledWork()
      .catch((error: unknown) => log.warn('scheduled work failed', { error: (error as Error).message }))
      .finally(() => {
        working = false;
      });
  }, scheduledEveryMs);
}

process.on('message', (message: ParentMessage) => {
  if (message.kind === 'usage') {
    if (message.collectGarbage) (globalThis as { gc?: () => void }).gc?.();
    send({ kind: 'usage', id: message.id, cpu: process.cpuUsage(), memory: process.memoryUsage() });
  } else if (message.kind === 'stop') {
    clearInterval(scheduler);
    void api.close().then(() => process.exit(0));
  }
});
// The parent going away (a crash, Ctrl-C) must not leave a server behind.
process.on('disconnect', () => process.exit(0));

send({ kind: 'ready', port: api.port });
