/**
 * `npm run sign-in -- USERNAME PASSWORD`: signs a user in (USER_SRP_AUTH, the SRP done here as the SDKs'
 * browsers do it; the password is never sent) and prints the ID, access and refresh tokens as JSON, for trying
 * the operations that take a user's token. A user who must answer a further challenge (a new password, an
 * MFA code) is told which, with its session.
 *   npm run sign-in -- demo@example.com Demo-417203-Pass
 */
import '../local/cli-errors.js';
import { srpSignIn } from '../dev-support/sign-in.js';
import { signedClientFromEnvironment, unreachable } from './signed-client.js';

const [username, password] = process.argv.slice(2);
if (!username || !password) {
  process.stderr.write('usage: npm run sign-in -- USERNAME PASSWORD\n');
  process.exit(2);
}
const { client, base } = signedClientFromEnvironment();
const res = await srpSignIn(client, username, password).catch(unreachable(base));
if (res.status !== 200) {
  process.stderr.write(`${res.status} ${res.text}\n`);
  process.exit(1);
}
if (res.body.credentials) {
  process.stdout.write(`${JSON.stringify(res.body.credentials, null, 2)}\n`);
} else {
  process.stdout.write(
    `${JSON.stringify({ challenge_name: res.body.challenge_name, session: res.body.session, challenge_parameters: res.body.challenge_parameters }, null, 2)}\n`,
  );
  process.stderr.write(`the sign-in asks for ${res.body.challenge_name}: answer it with POST /sign-in/challenge and this session\n`);
}
