/**
 * The store's HTTP/1.1 connections (shared/adapters/aws/http-connections.ts) against a raw TCP server that
 * answers byte for byte what each test writes: answers split anywhere, chunked, after an interim 100, with
 * `Connection: close`; connections kept and reused; a connection cut mid-answer failing with a system error
 * code (what the retry rule takes as the network's), and nothing but HTTP refused.
 */
import { afterEach, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { HttpConnections } from '../../shared/adapters/aws/http-connections.js';
import { selfSignedCertificate } from '../../shared/crypto/self-signed-certificate.js';

interface Raw {
  url: URL;
  /** Requests as they arrived, whole (head and body). */
  requests: string[];
  /** Connections the server accepted. */
  connections: number;
  close(): Promise<void>;
}

/** A server that answers each request (a head, then Content-Length bytes) with `answer(n)`'s pieces, one write each. */
async function rawServer(answer: (n: number, socket: Socket) => (string | Buffer)[] | undefined): Promise<Raw> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const raw = { requests, connections: 0 } as Raw;
  const server: Server = createServer((socket) => {
    raw.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered.toString('latin1', 0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        requests.push(buffered.toString('utf8', 0, end + 4 + length));
        buffered = buffered.subarray(end + 4 + length);
        const pieces = answer(requests.length - 1, socket) ?? [];
        let at = 0;
        // Each piece its own write, a moment apart, so the client reads the answer in those pieces.
        const next = () => {
          if (at < pieces.length && !socket.destroyed) {
            socket.write(pieces[at++] as string | Buffer);
            setTimeout(next, 2);
          }
        };
        next();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  raw.url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  raw.close = () => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return raw;
}

const timeoutError = () => Object.assign(new Error('timed out'), { name: 'TimeoutError' });
const post = (connections: HttpConnections, body: string, timeoutMs = 5000) =>
  connections.post({ host: 'stand-in', 'content-length': String(Buffer.byteLength(body)) }, body, timeoutMs, timeoutError);

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function setUp(answer: (n: number, socket: Socket) => (string | Buffer)[] | undefined) {
  const server = await rawServer(answer);
  const connections = new HttpConnections(server.url, { maxSockets: 50 });
  cleanups.push(
    () => server.close(),
    () => connections.destroy(),
  );
  return { server, connections };
}

describe('HTTP/1.1 connections', () => {
  it('sends the request as given and reads an answer that arrives in pieces, keeping the connection for the next', async () => {
    const body = '{"a":"ä 🎉"}';
    const { server, connections } = await setUp((n) => {
      const answer = `{"n":${n},"text":"ü"}`;
      const head = `HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: ${Buffer.byteLength(answer)}\r\n\r\n`;
      // Split inside the head, between head and body, and inside the body's UTF-8.
      const bytes = Buffer.from(head + answer);
      return [bytes.subarray(0, 7), bytes.subarray(7, head.length), bytes.subarray(head.length, bytes.length - 3), bytes.subarray(bytes.length - 3)];
    });
    const first = await post(connections, body);
    assert.equal(first.statusCode, 200);
    assert.deepEqual(JSON.parse(first.body), { n: 0, text: 'ü' });
    assert.deepEqual(JSON.parse((await post(connections, body)).body), { n: 1, text: 'ü' });
    assert.equal(server.connections, 1, 'the second request went over the kept connection');
    assert.equal(server.requests[0], `POST / HTTP/1.1\r\nhost: stand-in\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });

  it('reads a chunked answer, one after an interim 100 Continue, and an empty one', async () => {
    const { connections } = await setUp((n) => {
      if (n === 0)
        return ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', '5\r\n{"a":\r\n', '3;ext=1\r\n', '12}\r\n0\r\n', 'X-Trailer: t\r\n\r\n'];
      if (n === 1) return ['HTTP/1.1 100 Continue\r\n\r\n', 'HTTP/1.1 400 Bad Request\r\nContent-Length: 2\r\n\r\n{}'];
      return ['HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'];
    });
    assert.deepEqual(await post(connections, '{}'), { statusCode: 200, body: '{"a":12}' });
    assert.deepEqual(await post(connections, '{}'), { statusCode: 400, body: '{}' });
    assert.deepEqual(await post(connections, '{}'), { statusCode: 200, body: '' });
  });

  it('opens a new connection after an answer that says Connection: close, or that ends with the connection', async () => {
    const { server, connections } = await setUp((n, socket) => {
      if (n === 0) return ['HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 4\r\n\r\n"c0"'];
      if (n === 1) {
        setTimeout(() => socket.end(), 20);
        return ['HTTP/1.1 200 OK\r\n\r\n', '"until', '-close"'];
      }
      // A kept-alive connection the server then closes while it is idle, as a service's idle timeout does.
      if (n === 2) setTimeout(() => socket.end(), 20);
      return ['HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n"ok"'];
    });
    assert.equal((await post(connections, '{}')).body, '"c0"');
    assert.equal((await post(connections, '{}')).body, '"until-close"');
    assert.equal((await post(connections, '{}')).body, '"ok"');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal((await post(connections, '{}', 1000)).body, '"ok"');
    assert.equal(server.connections, 4);
  });

  it('does not use again a connection on which bytes came that nobody asked for', async () => {
    const { server, connections } = await setUp((n, socket) => {
      if (n === 0) setTimeout(() => socket.write('HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n\r\n'), 20);
      return [`HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n${n}`];
    });
    assert.deepEqual(await post(connections, '{}'), { statusCode: 200, body: '0' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(await post(connections, '{}'), { statusCode: 200, body: '1' });
    assert.equal(server.connections, 2);
  });

  it('fails with a system error code when the connection breaks mid-answer or is refused, and then connects afresh', async () => {
    const { server, connections } = await setUp((n, socket) => {
      if (n === 0) {
        setTimeout(() => socket.destroy(), 20);
        return ['HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"cut'];
      }
      return ['HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}'];
    });
    const cut = await post(connections, '{}').catch((error: unknown) => error);
    assert.equal((cut as { code?: string }).code, 'ECONNRESET', String(cut));
    assert.equal((await post(connections, '{}')).body, '{}');
    assert.equal(server.connections, 2);

    const nobody = await rawServer(() => undefined);
    await nobody.close();
    const refused = new HttpConnections(nobody.url, { maxSockets: 1 });
    cleanups.push(() => refused.destroy());
    const error = await post(refused, '{}').catch((e: unknown) => e);
    assert.equal((error as { code?: string }).code, 'ECONNREFUSED', String(error));
  });

  it('gives up on an answer that does not come in time, with the caller’s error', async () => {
    const { connections } = await setUp(() => []);
    const error = await post(connections, '{}', 50).catch((e: unknown) => e);
    assert.equal((error as Error).name, 'TimeoutError');
  });

  it('refuses what is not HTTP/1.1 and headers holding a line break', async () => {
    const { connections } = await setUp(() => ['SSH-2.0-OpenSSH\r\n\r\n']);
    const error = await post(connections, '{}').catch((e: unknown) => e);
    assert.equal((error as { code?: string }).code, 'HPE_INVALID_RESPONSE', String(error));
    await assert.rejects(connections.post({ host: 'a\r\nx-injected: 1' }, '', 1000, timeoutError), TypeError);
  });

  it('holds requests beyond its connections until one is free', async () => {
    const server = await rawServer((n) => [`HTTP/1.1 200 OK\r\nContent-Length: ${String(n).length}\r\n\r\n${n}`]);
    const one = new HttpConnections(server.url, { maxSockets: 1 });
    cleanups.push(
      () => server.close(),
      () => one.destroy(),
    );
    // A request refused before it is sent holds no connection.
    await assert.rejects(one.post({ host: 'a\r\nx-injected: 1' }, '', 1000, timeoutError), TypeError);
    const answers = await Promise.all([post(one, '{}'), post(one, '{}'), post(one, '{}')]);
    assert.deepEqual(answers.map((a) => a.body).sort(), ['0', '1', '2']);
    assert.equal(server.connections, 1);
  });

  it('speaks TLS to an https endpoint, checking its certificate, over one kept connection', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const cert = selfSignedCertificate(privateKey, 'localhost', new Date(Date.now() - 60_000), 1);
    let accepted = 0;
    const server = createHttpsServer({ key: privateKey.export({ type: 'pkcs8', format: 'pem' }), cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ echo: Buffer.concat(chunks).toString('utf8') })),
      );
    });
    server.on('secureConnection', () => accepted++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = new URL(`https://localhost:${(server.address() as AddressInfo).port}`);
    const trusting = new HttpConnections(url, { maxSockets: 1, ca: cert });
    const untrusting = new HttpConnections(url, { maxSockets: 1 });
    cleanups.push(
      () => new Promise<void>((resolve) => server.close(() => resolve())),
      () => {
        server.closeAllConnections();
      },
      () => trusting.destroy(),
      () => untrusting.destroy(),
    );
    assert.deepEqual(await post(trusting, '{"a":1}'), { statusCode: 200, body: '{"echo":"{\\"a\\":1}"}' });
    assert.deepEqual(JSON.parse((await post(trusting, '{"b":2}')).body), { echo: '{"b":2}' });
    assert.equal(accepted, 1, 'the second request went over the kept connection');
    const refused = await post(untrusting, '{}').catch((error: unknown) => error);
    assert.equal((refused as { code?: string }).code, 'DEPTH_ZERO_SELF_SIGNED_CERT', String(refused));
  });
});
