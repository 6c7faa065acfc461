/**
 * `npm run sign -- METHOD PATH [JSON]`: one signed request to the service, with the credentials of
 * `.data/credentials.env` or the SAASUS_* environment variables.
 *   npm run sign -- GET /roles
 *   npm run sign -- POST /roles '{"role_name":"admin","display_name":"Administrator"}'
 */
import '../local/cli-errors.js';
import { SignedClient } from '../client/signed-fetch.js';
import { readCredentials } from '../local/runtime.js';

const [method, path, body] = process.argv.slice(2);
if (!method || !path) {
  process.stderr.write('usage: npm run sign -- METHOD PATH [JSON BODY]\n');
  process.exit(2);
}
const fromFile = readCredentials('.data');
const env = (name: keyof NonNullable<typeof fromFile>) => process.env[name] || fromFile?.[name];
const saasId = env('SAASUS_SAAS_ID');
const apiKey = env('SAASUS_API_KEY');
const secret = env('SAASUS_SECRET_KEY');
const base = env('SAASUS_API_URL_BASE');
if (!saasId || !apiKey || !secret || !base) {
  process.stderr.write('no credentials: run `npm start` first, or set SAASUS_SAAS_ID, SAASUS_API_KEY, SAASUS_SECRET_KEY, SAASUS_API_URL_BASE\n');
  process.exit(2);
}
const client = new SignedClient(`${base}/v1/auth`, { saasId, apiKey, secret });
const response = await client.request(method.toUpperCase(), path.startsWith('/') ? path : `/${path}`, body === undefined ? {} : { body }).catch((error: unknown) => {
  // fetch says only "fetch failed"; the reason (ECONNREFUSED: nothing listens there) is its cause.
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code === 'ECONNREFUSED' ? 'nothing answers there: is `npm start` running?' : (cause?.code ?? cause?.message ?? (error as Error).message);
  process.stderr.write(`cannot reach ${base}: ${reason}\n`);
  process.exit(1);
});
process.stdout.write(`${response.status}\n${response.text ? `${JSON.stringify(response.body ?? response.text, null, 2)}\n` : ''}`);
process.exitCode = response.status < 400 ? 0 : 1;
