/**
 * A local stand-in for a breached-password range service with the Pwned Passwords API's shape, on 127.0.0.1:
 * GET /range/{prefix} answers `SUFFIX:COUNT` lines for the hashes it was told are breached, among padding lines
 * of count 0 as the real service adds for `Add-Padding: true`. `mode` makes it fail as the real one can: `error`
 * answers 503, `silent` never answers (so the service's 1-second timeout cuts it off). It keeps every request
 * for the test to look at. Point the service at it with BREACHED_RANGE_BASE_URL before the harness starts.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rangeQuery } from '../../shared/domain/configuration/breached-range.js';

export interface RangeRequest {
  path: string;
  padding: string | undefined;
}

export async function startBreachedRangeStandIn() {
  const requests: RangeRequest[] = [];
  const breached = new Map<string, number>();
  const waiting = new Set<ServerResponse>();
  const control = { mode: 'up' as 'up' | 'error' | 'silent' };
  const server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', padding: req.headers['add-padding'] as string | undefined });
    if (control.mode === 'silent') {
      waiting.add(res);
      return;
    }
    if (control.mode === 'error') {
      res.writeHead(503).end();
      return;
    }
    const prefix = /^\/range\/([0-9A-F]{5})$/.exec(req.url ?? '')?.[1];
    if (!prefix) {
      res.writeHead(400).end();
      return;
    }
    const lines = [...breached].filter(([hash]) => hash.startsWith(prefix)).map(([hash, count]) => `${hash.slice(5)}:${count}`);
    // Padding: suffixes that are no password's, with count 0, as the real service sends them.
    for (let i = 0; i < 3; i++) lines.push(`${'0'.repeat(34)}${i}:0`);
    res.writeHead(200, { 'content-type': 'text/plain' }).end(lines.join('\r\n'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    control,
    /** Lists a password as breached `count` times. */
    list(password: string, count = 42) {
      const { prefix, suffix } = rangeQuery(password);
      breached.set(prefix + suffix, count);
    },
    async close() {
      for (const res of waiting) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type BreachedRangeStandIn = Awaited<ReturnType<typeof startBreachedRangeStandIn>>;
