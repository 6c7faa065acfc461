/**
 * A server standing in for an AWS JSON service where a local engine cannot misbehave or does not exist
 * (throttling, silence, broken connections; KMS), and the check AWS makes of a request's SigV4 signature.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';

export const CREDENTIALS = { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret', sessionToken: 'test-session' };
export const credentials = async () => ({ ...CREDENTIALS });

export interface Arrived {
  headers: IncomingMessage['headers'];
  body: string;
}
export type Answer = (arrived: Arrived, res: ServerResponse) => void;

/** An answer of `status` with this JSON body. */
export const json =
  (status: number, body: object): Answer =>
  (_arrived, res) => {
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify(body));
  };

/** A server answering request n with `answers[n]` (the last one again after that); `seen` holds what arrived. */
export async function standIn(answers: Answer[]): Promise<{ url: string; seen: Arrived[]; close: () => Promise<void> }> {
  const seen: Arrived[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const arrived = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(arrived);
      (answers[seen.length - 1] ?? answers.at(-1))?.(arrived, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * What AWS checks: the signature recomputed from the request as it arrived (its signed headers and body,
 * at its X-Amz-Date, with an independent SHA-256) equals the one it carries. Answers the signed header names.
 */
export async function assertSignedFor(service: string, region: string, arrived: Arrived): Promise<string[]> {
  const authorization = String(arrived.headers.authorization);
  const names = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';') ?? [];
  const date = String(arrived.headers['x-amz-date']).replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z');
  // applyChecksum off: only the headers the request signed take part (the SDK's signer would add its own).
  const verifier = new SignatureV4({ service, region, credentials: CREDENTIALS, sha256: Sha256, applyChecksum: false });
  const headers = Object.fromEntries(names.map((name) => [name, String(arrived.headers[name])]));
  const recomputed = await verifier.sign(
    { method: 'POST', protocol: 'http:', hostname: '127.0.0.1', path: '/', query: {}, headers, body: arrived.body },
    { signingDate: new Date(date) },
  );
  if (recomputed.headers.authorization !== authorization) throw new Error(`the signature does not verify: ${authorization}`);
  if (arrived.headers['x-amz-security-token'] !== CREDENTIALS.sessionToken) throw new Error('the session token did not arrive');
  return names;
}
