/**
 * Imported first by every command (`npm start`, `npm run admin`, `npm run sign`): a bad setting stops the
 * command with its one-line message, where Node would print the stack of the module that read it first.
 */
import { ConfigError } from '../shared/config.js';

process.on('uncaughtException', (error) => {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
