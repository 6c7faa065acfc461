/**
 * HTTP/1.1 POSTs to one AWS endpoint over kept-alive connections (TCP, or TLS for https), written on the socket
 * directly. Why not node:http: its client (ClientRequest, the agent, the parser's callbacks, the response
 * stream) cost about twice the CPU of the whole exchange on a bare socket, 0.15 against 0.07 ms per DynamoDB
 * request in a tight loop and 0.55 against 0.3 ms between sign-ins (docs/proof.md); a sign-in makes five.
 * What it speaks is the little AWS's JSON protocol needs: one request at a time per connection, answers with
 * a Content-Length or chunked, `Connection: close` honoured, a connection that breaks failing its request
 * with a system error code (ECONNRESET, ECONNREFUSED, …) as node:http's does, so the caller's retry rule
 * reads failures the same way.
 */
import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface HttpAnswer {
  statusCode: number;
  body: string;
}

export interface HttpConnectionsOptions {
  /** Connections open at once, at most (the AWS SDK's default, 50); requests beyond wait for one. */
  maxSockets: number;
  /** Certificates to trust instead of Node's own (tests of the TLS path); the service's certificate is always checked. */
  ca?: string | Buffer;
}

/** A connection failure in node's terms: what the caller's retry rule takes as the network's. */
const connectionError = (message: string, code = 'ECONNRESET') => Object.assign(new Error(message), { code });

const HEADER_END = Buffer.from('\r\n\r\n');
const LINE_END = Buffer.from('\r\n');
/** The most a response's head may take: far above what AWS sends, small enough to refuse garbage. */
const MAX_HEAD_BYTES = 64 * 1024;

/** Reads one HTTP/1.1 response from the bytes as they arrive; `body` is set once it is whole. Exported for its property test. */
export class ResponseReader {
  statusCode = 0;
  keepAlive = true;
  /** Set when the answer is whole: its body. */
  body?: Buffer;
  private buffered: Buffer = Buffer.alloc(0);
  private phase: 'head' | 'length' | 'chunked' | 'until-close' = 'head';
  private remaining = 0;
  private readonly parts: Buffer[] = [];

  /** Takes the next bytes; throws on what is not HTTP/1.1. */
  push(chunk: Buffer): void {
    // Bytes after a whole answer were never asked for: the connection is not reused.
    if (this.body) {
      this.keepAlive = false;
      return;
    }
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    for (;;) {
      if (this.phase === 'head') {
        if (!this.readHead()) return;
      } else if (this.phase === 'length') {
        this.readLength();
        return;
      } else if (this.phase === 'chunked') {
        if (!this.readChunk()) return;
      } else {
        this.parts.push(this.buffered);
        this.buffered = Buffer.alloc(0);
        return;
      }
      if (this.body) {
        // Bytes after a whole answer were never asked for: the connection is not reused.
        if (this.buffered.length > 0) this.keepAlive = false;
        return;
      }
    }
  }

  /** The connection closed: an answer read until close is whole now; anything else was cut short. */
  closed(): boolean {
    if (this.phase !== 'until-close') return false;
    this.body = Buffer.concat(this.parts);
    return true;
  }

  private readHead(): boolean {
    const end = this.buffered.indexOf(HEADER_END);
    if (end < 0) {
      if (this.buffered.length > MAX_HEAD_BYTES) throw new Error('the answer’s head is too long');
      return false;
    }
    const lines = this.buffered.toString('latin1', 0, end).split('\r\n');
    this.buffered = this.buffered.subarray(end + 4);
    const status = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0] ?? '');
    if (!status) throw new Error(`not an HTTP/1.1 answer: ${JSON.stringify((lines[0] ?? '').slice(0, 40))}`);
    const statusCode = Number(status[2]);
    // An interim answer (100 Continue) comes before the real one.
    if (statusCode >= 100 && statusCode < 200) return true;
    this.statusCode = statusCode;
    let length: number | undefined;
    let chunked = false;
    let connection = status[1] === '1' ? 'keep-alive' : 'close';
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i] as string;
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') {
        if (!/^\d+$/.test(value) || (length !== undefined && length !== Number(value)))
          throw new Error('the answer’s Content-Length is not one number');
        length = Number(value);
      } else if (name === 'transfer-encoding') chunked = value.toLowerCase().split(',').at(-1)?.trim() === 'chunked';
      else if (name === 'connection') connection = value.toLowerCase();
    }
    this.keepAlive = connection.split(',').some((token) => token.trim() === 'keep-alive');
    if (chunked) this.phase = 'chunked';
    else if (length !== undefined) {
      this.phase = 'length';
      this.remaining = length;
    } else {
      this.phase = 'until-close';
      this.keepAlive = false;
    }
    if (this.phase === 'length' && this.remaining === 0) this.body = Buffer.alloc(0);
    return true;
  }

  private readLength(): void {
    const take = Math.min(this.remaining, this.buffered.length);
    this.parts.push(this.buffered.subarray(0, take));
    this.remaining -= take;
    // Bytes after a whole answer were never asked for: the connection is not reused.
    if (this.buffered.length > take) this.keepAlive = false;
    this.buffered = Buffer.alloc(0);
    if (this.remaining === 0) this.body = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts);
  }

  /** One chunk (size line, data, CRLF), or the last chunk and its trailer; false when more bytes are needed. */
  private readChunk(): boolean {
    const lineEnd = this.buffered.indexOf(LINE_END);
    if (lineEnd < 0) return false;
    const sizeText = this.buffered.toString('latin1', 0, lineEnd).split(';')[0]?.trim() ?? '';
    if (!/^[0-9a-fA-F]{1,8}$/.test(sizeText)) throw new Error('the answer’s chunk size is not hex');
    const size = parseInt(sizeText, 16);
    if (size === 0) {
      // The last chunk: then trailer lines (ignored) up to an empty line.
      const trailerEnd = this.buffered.indexOf(HEADER_END, lineEnd);
      if (trailerEnd < 0) return false;
      if (this.buffered.length > trailerEnd + 4) this.keepAlive = false;
      this.buffered = Buffer.alloc(0);
      this.body = Buffer.concat(this.parts);
      return true;
    }
    const dataStart = lineEnd + 2;
    if (this.buffered.length < dataStart + size + 2) return false;
    this.parts.push(this.buffered.subarray(dataStart, dataStart + size));
    this.buffered = this.buffered.subarray(dataStart + size + 2);
    return true;
  }
}

export class HttpConnections {
  private readonly idle: Socket[] = [];
  private readonly busy = new Set<Socket>();
  private readonly waiting: (() => void)[] = [];
  private readonly https: boolean;
  private readonly host: string;
  private readonly port: number;
  private destroyed = false;

  constructor(
    url: URL,
    private readonly options: HttpConnectionsOptions,
  ) {
    this.https = url.protocol === 'https:';
    this.host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    this.port = Number(url.port || (this.https ? 443 : 80));
  }

  /**
   * POST / with these headers (names lower-case, Content-Length among them) and body; answers the status and
   * body. Fails with a system error code when the connection does, and with `timeout()` when `timeoutMs`
   * pass without a byte of the answer.
   */
  async post(headers: Record<string, string>, body: string, timeoutMs: number, timeout: () => Error): Promise<HttpAnswer> {
    if (this.destroyed) throw connectionError('the connections were closed', 'ERR_HTTP_CONNECTIONS_CLOSED');
    let head = 'POST / HTTP/1.1\r\n';
    for (const name in headers) {
      const value = headers[name] as string;
      // What node:http refuses too: a line break in a header would end it and start another.
      if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) throw new TypeError(`the header ${JSON.stringify(name)} holds a line break`);
      head += `${name}: ${value}\r\n`;
    }
    while (this.busy.size >= this.options.maxSockets) await new Promise<void>((resolve) => this.waiting.push(resolve));
    let socket = this.idle.pop();
    // One the service closed may not have left the pool yet: its close is announced on a later tick.
    while (socket && (socket.destroyed || !socket.writable || socket.readableEnded)) socket = this.idle.pop();
    socket ??= this.open();
    this.busy.add(socket);
    socket.ref();
    return this.exchange(socket, `${head}\r\n${body}`, timeoutMs, timeout);
  }

  /** The exchange on `socket` is over: it goes back to the pool (or is closed), and a waiting request may go. */
  private release(socket: Socket, keep: boolean): void {
    this.busy.delete(socket);
    if (keep && !this.destroyed && !socket.destroyed) {
      socket.unref();
      this.idle.push(socket);
    } else socket.destroy();
    this.waiting.shift()?.();
  }

  /** Closes every connection; requests under way fail. */
  destroy(): void {
    this.destroyed = true;
    for (const socket of [...this.idle, ...this.busy]) socket.destroy();
    this.idle.length = 0;
  }

  private open(): Socket {
    const socket = this.https
      ? tlsConnect({
          host: this.host,
          port: this.port,
          ALPNProtocols: ['http/1.1'],
          ...(isIP(this.host) ? {} : { servername: this.host }),
          ...(this.options.ca ? { ca: this.options.ca } : {}),
        })
      : tcpConnect({ host: this.host, port: this.port });
    socket.setNoDelay(true);
    // As node's agent does for kept-alive connections: the OS notices a peer that went away.
    socket.setKeepAlive(true, 1000);
    // Closed while idle (the service's idle timeout, a reset): it leaves the pool.
    socket.on('close', () => {
      const at = this.idle.indexOf(socket);
      if (at >= 0) this.idle.splice(at, 1);
    });
    // An idle connection's error is followed by its close; a busy one's is reported by its exchange.
    socket.on('error', () => undefined);
    // Bytes nobody asked for (a server's 408 before it closes an idle connection) would be read as the next
    // request's answer: such a connection is not used again.
    socket.on('data', () => {
      if (!this.busy.has(socket)) socket.destroy();
    });
    return socket;
  }

  private exchange(socket: Socket, request: string, timeoutMs: number, timeout: () => Error): Promise<HttpAnswer> {
    return new Promise<HttpAnswer>((resolve, reject) => {
      const reader = new ResponseReader();
      const timer = setTimeout(() => fail(timeout()), timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        socket.off('data', onData);
        socket.off('error', fail);
        socket.off('close', onClose);
      };
      const fail = (error: Error) => {
        finish();
        this.release(socket, false);
        reject(error);
      };
      const answer = () => {
        finish();
        this.release(socket, reader.keepAlive);
        resolve({ statusCode: reader.statusCode, body: (reader.body as Buffer).toString('utf8') });
      };
      function onData(chunk: Buffer) {
        timer.refresh();
        try {
          reader.push(chunk);
        } catch (error) {
          fail(connectionError(`the answer is not HTTP/1.1 as expected: ${(error as Error).message}`, 'HPE_INVALID_RESPONSE'));
          return;
        }
        if (reader.body) answer();
      }
      const onClose = () => {
        if (reader.closed()) answer();
        else fail(connectionError('socket hang up'));
      };
      socket.on('data', onData);
      socket.on('error', fail);
      socket.on('close', onClose);
      socket.write(request);
    });
  }
}
