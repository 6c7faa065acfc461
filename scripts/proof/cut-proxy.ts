/**
 * A TCP proxy in front of DynamoDB Local that can cut the network: while cut, every open connection is
 * reset and new ones are reset as soon as they are made. Short cuts land between the requests of a
 * multi-step change (a delete, a claimed mail and its record) far more often than a stopped engine does.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export class CutProxy {
  url = '';
  private server!: Server;
  private readonly open = new Set<Socket>();
  private isCut = false;

  async start(targetPort: number): Promise<void> {
    this.server = createServer((client) => {
      if (this.isCut) return void client.resetAndDestroy();
      const upstream = connect(targetPort, '127.0.0.1');
      for (const [from, to] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        this.open.add(from);
        from.pipe(to);
        from.on('error', () => to.destroy());
        from.on('close', () => {
          this.open.delete(from);
          to.destroy();
        });
      }
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resets every connection now, and every new one until `restore()`. */
  cut(): void {
    this.isCut = true;
    for (const socket of this.open) socket.resetAndDestroy();
  }

  restore(): void {
    this.isCut = false;
  }

  close(): Promise<void> {
    for (const socket of this.open) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
