/**
 * The signed client of the command-line scripts (`npm run sign`, `npm run sign-in`): the credentials of
 * `.data/credentials.env`, or the SAASUS_* environment variables, which win.
 */
import { SignedClient } from '../client/signed-fetch.js';
import { readCredentials } from '../local/credentials-file.js';

export function signedClientFromEnvironment(): { client: SignedClient; base: string } {
  const fromFile = readCredentials('.data');
  const env = (name: 'SAASUS_SAAS_ID' | 'SAASUS_API_KEY' | 'SAASUS_SECRET_KEY' | 'SAASUS_API_URL_BASE') => process.env[name] || fromFile?.[name];
  const saasId = env('SAASUS_SAAS_ID');
  const apiKey = env('SAASUS_API_KEY');
  const secret = env('SAASUS_SECRET_KEY');
  const base = env('SAASUS_API_URL_BASE');
  if (!saasId || !apiKey || !secret || !base) {
    process.stderr.write('no credentials: run `npm start` first, or set SAASUS_SAAS_ID, SAASUS_API_KEY, SAASUS_SECRET_KEY, SAASUS_API_URL_BASE\n');
    process.exit(2);
  }
  if (!URL.canParse(base) || !/^https?:$/.test(new URL(base).protocol)) {
    process.stderr.write('environment variable SAASUS_API_URL_BASE must be an absolute http(s) URL, such as http://127.0.0.1:8080\n');
    process.exit(1);
  }
  return { client: new SignedClient(`${base}/v1/auth`, { saasId, apiKey, secret }), base };
}

/** One line and exit 1: fetch says only "fetch failed", and the reason (ECONNREFUSED: nothing listens there) is its cause. */
export function unreachable(base: string) {
  return (error: unknown): never => {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if (!cause) {
      process.stderr.write(`${(error as Error).message}\n`);
      process.exit(1);
    }
    const reason = cause.code === 'ECONNREFUSED' ? 'nothing answers there: is `npm start` running?' : (cause.code ?? cause.message);
    process.stderr.write(`cannot reach ${base}: ${reason}\n`);
    process.exit(1);
  };
}
