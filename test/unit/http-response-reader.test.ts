/**
 * The store connections' HTTP/1.1 answer reader (shared/adapters/aws/http-connections.ts, our own: node:http's
 * client cost twice the CPU, docs/decisions.md decision 12) over random answers: every framing it speaks
 * (Content-Length, chunked with extensions and trailers, until close), an interim 100 first or not, header
 * names in any case, bodies of any UTF-8 text, and the bytes arriving in random pieces. Whatever the pieces,
 * the reader answers the status and body that were sent and keeps the connection exactly when it may; and
 * random bytes that are not HTTP never make it throw anything but an Error, nor answer a body.
 */
import { describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ResponseReader } from '../../shared/adapters/aws/http-connections.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);

const anyCase = (name: string) =>
  fc
    .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
    .map((upper) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));

/** Cuts bytes at the given offsets (in any order, repeats allowed) into the pieces a socket might deliver. */
function cut(bytes: Buffer, at: number[]): Buffer[] {
  const points = [...new Set(at.map((a) => a % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    if (point > from) pieces.push(bytes.subarray(from, point));
    from = point;
  }
  return pieces;
}

const framing = fc.constantFrom('length', 'chunked', 'close');
const answers = fc.record({
  status: fc.integer({ min: 200, max: 599 }),
  body: fc.string({ unit: 'grapheme', maxLength: 300 }),
  framing,
  interim: fc.boolean(),
  contentLength: anyCase('content-length'),
  transferEncoding: anyCase('transfer-encoding'),
  connectionClose: fc.boolean(),
  chunkSizes: fc.array(fc.integer({ min: 1, max: 64 }), { maxLength: 20 }),
  extension: fc.boolean(),
  trailer: fc.boolean(),
  extraHeaders: fc.array(fc.tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/), fc.stringMatching(/^[ -~]{0,30}$/)), { maxLength: 5 }),
  cuts: fc.array(fc.nat(), { maxLength: 12 }),
});

type Answer = typeof answers extends fc.Arbitrary<infer T> ? T : never;

function encode(a: Answer): Buffer {
  const body = Buffer.from(a.body, 'utf8');
  const head = [`HTTP/1.1 ${a.status} Whatever`];
  for (const [name, value] of a.extraHeaders) {
    if (!/^(content-length|transfer-encoding|connection)$/i.test(name)) head.push(`${name}: ${value}`);
  }
  if (a.framing === 'length') head.push(`${a.contentLength}: ${body.length}`);
  if (a.framing === 'chunked') head.push(`${a.transferEncoding}: chunked`);
  if (a.connectionClose || a.framing === 'close') head.push('Connection: close');
  const parts = [Buffer.from(`${a.interim ? 'HTTP/1.1 100 Continue\r\n\r\n' : ''}${head.join('\r\n')}\r\n\r\n`, 'latin1')];
  if (a.framing === 'chunked') {
    let at = 0;
    let size = 0;
    while (at < body.length) {
      const n = Math.min(a.chunkSizes[size++ % Math.max(1, a.chunkSizes.length)] ?? body.length, body.length - at);
      parts.push(Buffer.from(`${n.toString(16)}${a.extension ? ';name=value' : ''}\r\n`, 'latin1'), body.subarray(at, at + n), Buffer.from('\r\n'));
      at += n;
    }
    parts.push(Buffer.from(`0\r\n${a.trailer ? 'X-Amz-Crc32: 12345\r\n' : ''}\r\n`, 'latin1'));
  } else parts.push(body);
  return Buffer.concat(parts);
}

describe('the store connections’ answer reader', () => {
  it('reads every answer it speaks, whatever pieces the bytes arrive in', () => {
    fc.assert(
      fc.property(answers, (a) => {
        const reader = new ResponseReader();
        for (const piece of cut(encode(a), a.cuts)) reader.push(piece);
        if (a.framing === 'close') {
          assert.equal(reader.body, undefined, 'an answer read until close is not whole before the close');
          assert.equal(reader.closed(), true);
        } else assert.equal(reader.closed(), false, 'a framed answer is not read until close');
        assert.equal(reader.statusCode, a.status);
        assert.equal(reader.body?.toString('utf8'), a.body);
        assert.equal(reader.keepAlive, a.framing !== 'close' && !a.connectionClose);
      }),
      { numRuns: RUNS },
    );
  });

  it('never keeps a connection on which more bytes came than the answer', () => {
    fc.assert(
      fc.property(answers, fc.uint8Array({ minLength: 1, maxLength: 20 }), (a, extra) => {
        fc.pre(a.framing !== 'close');
        const reader = new ResponseReader();
        for (const piece of cut(Buffer.concat([encode(a), Buffer.from(extra)]), a.cuts)) reader.push(piece);
        assert.equal(reader.body?.toString('utf8'), a.body);
        assert.equal(reader.keepAlive, false);
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses what is not HTTP with an Error, and answers no body from it', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.array(fc.nat(), { maxLength: 6 }), (bytes, cuts) => {
        fc.pre(!Buffer.from(bytes).toString('latin1').startsWith('HTTP/1.'));
        const reader = new ResponseReader();
        try {
          for (const piece of cut(Buffer.from(bytes), cuts)) reader.push(piece);
        } catch (error) {
          assert.ok(error instanceof Error);
          return;
        }
        assert.equal(reader.body, undefined, 'no answer read from bytes that are not one');
      }),
      { numRuns: RUNS },
    );
  });
});
