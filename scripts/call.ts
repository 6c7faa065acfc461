/**
 * `npm run sign -- METHOD PATH [JSON]`: one signed request to the service, with the credentials of
 * `.data/credentials.env` or the SAASUS_* environment variables.
 *   npm run sign -- GET /roles
 *   npm run sign -- POST /roles '{"role_name":"admin","display_name":"Administrator"}'
 *   npm run sign -- GET /v1/pricing/plans        (a path from /v1/ names the API: /v1/pricing, /v1/billing)
 */
import '../local/cli-errors.js';
import { SignedClient } from '../client/signed-fetch.js';
import { signedClientFromEnvironment, unreachable } from './signed-client.js';

const [method, path, body] = process.argv.slice(2);
if (!method || !path) {
  process.stderr.write('usage: npm run sign -- METHOD PATH [JSON BODY]\n');
  process.exit(2);
}
const { client: authClient, base } = signedClientFromEnvironment();
const fromRoot = path.startsWith('/v1/');
const client = fromRoot ? new SignedClient(base, authClient.credentials) : authClient;
const response = await client
  .request(method.toUpperCase(), fromRoot || path.startsWith('/') ? path : `/${path}`, body === undefined ? {} : { body })
  .catch(unreachable(base));
process.stdout.write(`${response.status}\n${response.text ? `${JSON.stringify(response.body ?? response.text, null, 2)}\n` : ''}`);
process.exitCode = response.status < 400 ? 0 : 1;
