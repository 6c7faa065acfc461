/**
 * Large answers compressed for clients that ask (Accept-Encoding), and answers too large for AWS refused in
 * the error shape rather than lost. A Lambda function may return at most 6 MB (its result object as JSON), and
 * API Gateway then answers a bare 502: the operations without paging (GET /users, GET /tenants/all/users) pass
 * that from about 45 000 users (19 000 memberships) in plain JSON; gzip makes an entry a fifth to a sixth as large.
 * The SDKs' HTTP clients: axios (JavaScript) sends `gzip, compress, deflate, br` and decodes; Go's net/http
 * sends `gzip` and decodes; RestSharp (C#) decodes gzip, deflate and br; the Python SDK's urllib3 pool sends
 * `identity`, so it gets plain JSON.
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** Smaller answers go as they are: compressing them saves little and costs a Lambda CPU time on each. */
export const COMPRESS_FROM_BYTES = 16 * 1024;

/** Lambda's limit on a synchronous function's result, as JSON. */
export const LAMBDA_RESPONSE_LIMIT_BYTES = 6 * 1024 * 1024;

export type Encoding = 'br' | 'gzip';

/**
 * The encoding to answer with, from an Accept-Encoding header (RFC 9110 §12.5.3): gzip where the client
 * weighs it at least as high as br, since br (quality 4) made 10 000 users 6 % smaller for 1.2–3× gzip's
 * CPU time (npm run bench -- scale); br when the client takes br only; none when it takes neither (or no header).
 */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  if (!acceptEncoding) return undefined;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(name, Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (name: Encoding) => weights.get(name) ?? weights.get('*') ?? 0;
  const [gzip, br] = [weightOf('gzip'), weightOf('br')];
  if (gzip > 0 && gzip >= br) return 'gzip';
  if (br > 0) return 'br';
  return undefined;
}

export function compress(body: Buffer, encoding: Encoding): Buffer {
  return encoding === 'gzip'
    ? gzipSync(body, { level: 6 })
    : brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } });
}
