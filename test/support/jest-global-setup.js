/**
 * Once per `npm test`: one DynamoDB Local (in memory, without sharedDb, so each test file isolates itself with
 * its own access key) and one SES stand-in, whose URLs the test files find in their environment
 * (dev-support/harness.ts). The workers start after this, so they inherit what is set here. Jest loads this
 * file untransformed, so the TypeScript it uses comes through tsx.
 */
import process from 'node:process';
import { tsImport } from 'tsx/esm/api';

export default async function globalSetup() {
  const { freePort, startDynamoLocal, startSesLocal, startTogether } = await tsImport('../../local/engines.ts', import.meta.url);
  const started = Date.now();
  // If one fails (DynamoDB Local slow on a busy machine), the other is stopped: Jest runs no teardown then.
  const engines = await startTogether([
    freePort().then((port) => startDynamoLocal({ port, sharedDb: false })),
    freePort().then((port) => startSesLocal(port)),
  ]);
  globalThis.testEngines = engines;
  process.env.TEST_DYNAMODB_URL = engines[0].url;
  process.env.TEST_SES_URL = engines[1].url;
  process.env.LOG_LEVEL ??= 'silent';
  // The AWS SDK's notice about Node 20 says nothing about our code.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  process.stdout.write(`\nengines ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
