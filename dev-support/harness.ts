/**
 * A test file's own world: its own database inside the shared DynamoDB Local (an access key of its own),
 * the local API on a free port, running the same handlers as the Lambdas, and helpers to make SaaS
 * accounts and signed clients. The engines come from Jest's global setup (TEST_DYNAMODB_URL, TEST_SES_URL);
 * without them (a script importing it), it starts its own.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { SignedClient } from '../client/signed-fetch.js';
import { freePort, startDynamoLocal, startSesLocal, startTogether, type Engine } from '../local/engines.js';
import { createLocalTable, useLocalEngines } from '../local/runtime.js';
import { startLocalApi, type LocalApi } from '../local/server.js';
import { createSaasAccount, issueApiKey } from '../shared/domain/accounts/accounts.js';
import { resetConfigForTests } from '../shared/config.js';
import { setHostsForTests } from '../shared/http/public-fetch.js';
import { BASE_PATH } from '../shared/routes.js';
import { DynamoAccountRepository } from '../shared/store/account-repository.js';
import { dynamo, secretBox, tableName } from '../shared/wiring.js';

export interface Harness {
  api: LocalApi;
  dynamoUrl: string;
  /** The SES stand-in: sent mail at GET /store. */
  sesUrl: string;
  accounts: DynamoAccountRepository;
  /** A new SaaS with one API key holding `permissions`, and a client signing with it. */
  newSaas(permissions?: string[]): Promise<{ saasId: string; apiKey: string; secret: string; client: SignedClient }>;
  /** Another key of an existing SaaS. */
  newKey(saasId: string, permissions: string[]): Promise<SignedClient>;
  /**
   * Turns per-SaaS hosts (the `perSaasHosts` option) on or off for what follows, on the same API: the
   * functions keep what they built at their first request (the Google client, the SAML provider), so a second
   * harness in one file would not be seen by them.
   */
  usePerSaasHosts(on: boolean): void;
  /**
   * Writes the API log records and sign-in counts told so far: they reach the store a moment after their call
   * (local/line-sink.ts), as on AWS they do seconds after; a test that reads them at once flushes first.
   */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export async function startEnginesIfNeeded(): Promise<{ dynamoUrl: string; sesUrl: string; engines: Engine[] }> {
  const dynamoUrl = process.env.TEST_DYNAMODB_URL;
  const sesUrl = process.env.TEST_SES_URL;
  if (dynamoUrl && sesUrl) return { dynamoUrl, sesUrl, engines: [] };
  const port = () => 20000 + Math.floor(Math.random() * 20000);
  const engines = await startTogether([startDynamoLocal({ port: port(), sharedDb: false }), startSesLocal(port())]);
  return { dynamoUrl: engines[0]!.url, sesUrl: engines[1]!.url, engines };
}

export interface HarnessOptions {
  /** Without -sharedDb, DynamoDB Local keeps one database per access key: by default this file's own. */
  accessKeyId?: string;
  tableName?: string;
  masterKey?: string;
  /** Tokens issued by the API this harness starts (as under `npm start`), so OpenID Connect discovery matches. */
  issuerIsApi?: boolean;
  /**
   * Each SaaS's screen on a host of its own, `<saas id>.localhost:<port>` (LOGIN_DOMAIN): browsers resolve
   * `*.localhost` to the loopback address. Off, every screen shares the API's origin.
   */
  perSaasHosts?: boolean;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const { dynamoUrl, sesUrl, engines } = await startEnginesIfNeeded();
  const accessKeyId = options.accessKeyId ?? `test${randomUUID().replaceAll('-', '')}`;
  // The URLs the service hands out come from configuration: here, the API this harness starts.
  const port = await freePort();
  process.env.PUBLIC_BASE_URL = `http://127.0.0.1:${port}${BASE_PATH}`;
  if (options.issuerIsApi) process.env.TOKEN_ISSUER = process.env.PUBLIC_BASE_URL;
  // Files share a worker's environment: set or clear it every time.
  const usePerSaasHosts = (on: boolean) => {
    if (on) process.env.LOGIN_DOMAIN = `localhost:${port}`;
    else delete process.env.LOGIN_DOMAIN;
  };
  usePerSaasHosts(options.perSaasHosts ?? false);
  useLocalEngines({
    dynamoUrl,
    sesUrl,
    accessKeyId,
    masterKey: options.masterKey ?? randomBytes(32).toString('base64'),
    ...(options.tableName ? { tableName: options.tableName } : {}),
  });
  // No test depends on external DNS: names resolve only as a test says (setHostsForTests).
  setHostsForTests({});
  await createLocalTable(dynamoUrl, tableName(), accessKeyId);
  const api = await startLocalApi(port);
  const accounts = new DynamoAccountRepository(dynamo(), tableName());

  const newKey = async (saasId: string, permissions: string[]) => {
    const key = await issueApiKey(accounts, secretBox(), saasId, permissions);
    return new SignedClient(api.baseUrl, { saasId, apiKey: key.apiKey, secret: key.secret });
  };

  return {
    api,
    dynamoUrl,
    sesUrl,
    accounts,
    newKey,
    flush: () => api.flush(),
    usePerSaasHosts(on) {
      usePerSaasHosts(on);
      resetConfigForTests();
    },
    async newSaas(permissions = ['*']) {
      const saas = await createSaasAccount(accounts, `test ${randomUUID()}`);
      const key = await issueApiKey(accounts, secretBox(), saas.id, permissions);
      return {
        saasId: saas.id,
        apiKey: key.apiKey,
        secret: key.secret,
        client: new SignedClient(api.baseUrl, { saasId: saas.id, apiKey: key.apiKey, secret: key.secret }),
      };
    },
    async close() {
      await api.close();
      dynamo().destroy();
      await Promise.all(engines.map((e) => e.stop()));
    },
  };
}
