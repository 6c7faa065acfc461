/**
 * A proxy in front of the SES stand-in that fails on purpose: the next `failures` requests get `status`
 * (with the error type SES would name), the rest pass through. The courier tests fail a few sends; the
 * proof (`npm run proof`) takes SES away for a while by setting `failures` high, then back to 0.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export class FlakySes {
  failures = 0;
  status = 500;
  requests = 0;
  private server!: Server;
  url = '';

  async start(target: string): Promise<void> {
    this.server = createServer(async (req, res) => {
      this.requests++;
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      if (this.failures > 0) {
        this.failures--;
        const type = this.status === 429 ? 'TooManyRequestsException' : this.status >= 500 ? 'InternalFailure' : 'MessageRejected';
        res.writeHead(this.status, { 'content-type': 'application/json', 'x-amzn-errortype': type });
        res.end(JSON.stringify({ message: `injected ${type}` }));
        return;
      }
      const upstream = await fetch(target + req.url, {
        method: req.method,
        headers: Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length')) as Record<string, string>,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await upstream.arrayBuffer()));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
