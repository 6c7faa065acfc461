/**
 * cognito-local (npm), the community's local stand-in for Amazon Cognito, as the peer of the benchmarks'
 * service process: started in a process of its own with its data in a fresh temporary directory and its
 * request log silenced (printing every request would charge it for work that is not Cognito's), answering
 * the same usage and stop messages as bench/service-child.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../local/engines.js';
import type { ChildMessage, ParentMessage } from './service-process.js';

const send = (message: ChildMessage) => process.send?.(message);

const dataDir = mkdtempSync(join(tmpdir(), 'cognito-local-'));
process.chdir(dataDir);
const port = await freePort();
// cognito-local reads its address from the environment when it loads.
process.env.PORT = String(port);
process.env.HOST = '127.0.0.1';
const require = createRequire(import.meta.url);
const pino = require('pino') as (options: { level: string }) => unknown;
const { createDefaultServer } = require('cognito-local') as {
  createDefaultServer(logger: unknown): Promise<{ start(): Promise<{ close(done: () => void): void }> }>;
};
const server = await (await createDefaultServer(pino({ level: 'silent' }))).start();

const stop = () =>
  server.close(() => {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
process.on('message', (message: ParentMessage) => {
  if (message.kind === 'usage') {
    if (message.collectGarbage) (globalThis as { gc?: () => void }).gc?.();
    send({ kind: 'usage', id: message.id, cpu: process.cpuUsage(), memory: process.memoryUsage() });
  } else if (message.kind === 'stop') stop();
});
process.on('disconnect', stop);

send({ kind: 'ready', port });
