/**
 * A request to the local API with a Host header of the test's choosing: Node's resolver may not know
 * `*.localhost`, and a SaaS's own domain resolves nowhere on a laptop.
 */
import { request } from 'node:http';

export interface HostAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export function requestOnHost(
  port: number,
  host: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body = '',
): Promise<HostAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { ...headers, host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
