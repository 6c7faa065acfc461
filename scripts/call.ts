/**
 * `npm run sign -- METHOD PATH [JSON]`: one signed request to the service, with the credentials of
 * `.data/credentials.env` or the SAASUS_* environment variables.
 *   npm run sign -- GET /roles
 *   npm run sign -- POST /roles '{"role_name":"admin","display_name":"Administrator"}'
 */
import '../local/cli-errors.js';
import { signedClientFromEnvironment, unreachable } from './signed-client.js';

const [method, path, body] = process.argv.slice(2);
if (!method || !path) {
  process.stderr.write('usage: npm run sign -- METHOD PATH [JSON BODY]\n');
  process.exit(2);
}
const { client, base } = signedClientFromEnvironment();
const response = await client
  .request(method.toUpperCase(), path.startsWith('/') ? path : `/${path}`, body === undefined ? {} : { body })
  .catch(unreachable(base));
process.stdout.write(`${response.status}\n${response.text ? `${JSON.stringify(response.body ?? response.text, null, 2)}\n` : ''}`);
process.exitCode = response.status < 400 ? 0 : 1;
