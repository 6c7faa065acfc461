/**
 * `npm run admin -- <command>`: SaaS accounts and API keys, on the local store or on AWS. USAGE below is what
 * `--help` prints: the commands, where they act, the permissions.
 *
 * This file only reads the command line: help, an unknown command and a missing option answer before the
 * service's modules load (bin/admin-commands.ts, imported once a command is whole), so they answer at once.
 */
import '../local/cli-errors.js';
import { parseArgs } from 'node:util';
import { config } from '../shared/config.js';
import type { Required } from './admin-commands.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    saas: { type: 'string' },
    key: { type: 'string' },
    permissions: { type: 'string' },
    description: { type: 'string', default: '' },
    endpoint: { type: 'string' },
    table: { type: 'string' },
    aws: { type: 'boolean', default: false },
    'kms-key-id': { type: 'string' },
    region: { type: 'string' },
    job: { type: 'string' },
    out: { type: 'string' },
    'mail-set-password': { type: 'boolean', default: false },
    'seal-key-file': { type: 'string' },
    'api-keys': { type: 'boolean', default: false },
    'data-dir': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

// Every setting the service reads is checked now, as the service checks them when it starts: a bad one stops the
// command with its one line (local/cli-errors.ts) before it touches a store, whether or not the command needs it.
config();

const USAGE = `npm run admin -- <command>: SaaS accounts and API keys, on the local store or on AWS.

  saas create --name NAME            a new SaaS (prints its id)
  saas list
  key create --saas ID --permissions P[,P...] [--description TEXT]
                                     prints the API key and its secret, once
  key list --saas ID                 never shows secrets
  key revoke --saas ID --key KEY
  signing-key list                   the token signing keys: current, published (the JWKS), retired
  signing-key rotate                 a new key signs from now on; the old one verifies until its tokens
                                     expired (run with the deployment's TOKEN_LIFETIME_SECONDS if set)
  import FILE --saas ID [--mail-set-password] [--seal-key-file KEY]
                                     imports a JSON Lines file (docs/migration.md) in this process, with
                                     a progress bar; prints the job's report. --mail-set-password mails
                                     each new user with no password_hash a link to set one; KEY (base64
                                     of 32 bytes) opens the TOTP seeds an export sealed with it
  import list --saas ID              the SaaS's import jobs, newest first
  import show --saas ID --job JOB    one job's state, counts and failed rows (line and reason)
  export --saas ID [--out FILE] [--seal-key-file KEY] [--api-keys]
                                     the SaaS as an import file (JSON Lines, passwords as SRP verifiers),
                                     on stdout or into FILE; with KEY, TOTP seeds and the webhooks' and
                                     payment provider's secrets sealed under it; --api-keys (with KEY)
                                     adds the API keys and their secrets, which only \`import FILE\` takes

Where: local by default (the DynamoDB Local of a running \`npm start\`, or one started for the command on
\`.data/\`); \`--endpoint URL [--table NAME]\` for another DynamoDB endpoint; \`--aws --table NAME
--kms-key-id ARN [--region R]\` for a deployed stack, with AWS credentials found as the AWS CLI finds them.
Permissions: *, config:read, config:write, user:read, user:write, tenant:read, tenant:write,
definition:read, definition:write, sign-in, or AREA:* (e.g. tenant:*). migration:write (import) and
migration:read (export) are never part of *: name them.
`;

/** Each command and the options it needs. */
const COMMANDS: Record<string, readonly Required[]> = {
  'saas create': ['name'],
  'saas list': [],
  'key create': ['saas', 'permissions'],
  'key list': ['saas'],
  'key revoke': ['saas', 'key'],
  'signing-key list': [],
  'signing-key rotate': [],
  'import list': ['saas'],
  'import show': ['saas', 'job'],
  // `import FILE`: any other word after `import` names the file.
  'import FILE': ['saas'],
  export: ['saas'],
};

function usage(code: number): never {
  process.stdout.write(USAGE);
  process.exit(code);
}

const [noun, verb] = positionals;
if (values.help || !noun) usage(values.help ? 0 : 2);
const typed = `${noun} ${verb ?? ''}`.trim();
const command = noun === 'import' && verb && COMMANDS[typed] === undefined ? 'import FILE' : typed;
const needs = COMMANDS[command];
if (needs === undefined) {
  process.stderr.write(`unknown command: ${typed}\n`);
  usage(2);
}
for (const name of needs) {
  if (!values[name]) {
    process.stderr.write(`--${name} is required\n`);
    process.exit(2);
  }
}
const { runAdmin } = await import('./admin-commands.js');
await runAdmin(command, values, verb);
