/**
 * What the proof runs against, all on 127.0.0.1 and all its own: DynamoDB Local keeping its data in a
 * temporary folder (so stopping and starting it again is a restart of the same database, as an outage is)
 * behind a proxy that can cut the network, the SES stand-in behind a proxy that can fail on purpose, and
 * the local API in a process of its own that also runs the scheduled worker every second (mail delivery),
 * as `npm start` does.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignedClient } from '../../client/signed-fetch.js';
import { freePort, startDynamoLocal, startSesLocal, type Engine } from '../../local/engines.js';
import { createLocalTable, useLocalEngines } from '../../local/runtime.js';
import { createSaasAccount, issueApiKey } from '../../shared/domain/accounts/accounts.js';
import { DynamoAccountRepository } from '../../shared/store/account-repository.js';
import { dynamo, secretBox, tableName } from '../../shared/wiring.js';
import { startServiceProcess, type ServiceProcess } from '../../bench/service-process.js';
import { FlakySes } from '../../dev-support/flaky-ses.js';
import { CutProxy } from './cut-proxy.js';

/** Without -sharedDb, DynamoDB Local keeps one database file per access key: this one. */
const ACCESS_KEY_ID = 'proof';

export interface ProofWorld {
  /** The temporary folder: DynamoDB Local's data and the service's log (kept when the proof fails). */
  dir: string;
  serviceLog: string;
  saasId: string;
  /** A client of the service signing with the SaaS's key. */
  api: SignedClient;
  service: ServiceProcess;
  /** The service (and the proof's own reads) reach DynamoDB Local through this proxy, which can cut the network. */
  network: CutProxy;
  /** The SES stand-in itself (its store); the service sends through `ses`. */
  sesUrl: string;
  ses: FlakySes;
  stopDynamo(): Promise<void>;
  /** Starts DynamoDB Local again on the same port with the same data; answers once it answers HTTP. */
  startDynamo(): Promise<void>;
  close(options: { keepFiles: boolean }): Promise<void>;
}

export async function startWorld(): Promise<ProofWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'proof-'));
  const dbPath = join(dir, 'dynamodb');
  const dynamoPort = await freePort();
  const startEngine = () => startDynamoLocal({ port: dynamoPort, dbPath, sharedDb: false });
  mkdirSync(dbPath);
  let dynamoLocal: Engine | undefined = await startEngine();
  const sesLocal = await startSesLocal(await freePort());
  const ses = new FlakySes();
  await ses.start(sesLocal.url);
  const network = new CutProxy();
  await network.start(dynamoPort);

  useLocalEngines({ dynamoUrl: network.url, sesUrl: ses.url, accessKeyId: ACCESS_KEY_ID, masterKey: randomBytes(32).toString('base64') });
  await createLocalTable(dynamoLocal.url, tableName(), ACCESS_KEY_ID);
  const accounts = new DynamoAccountRepository(dynamo(), tableName());
  const saas = await createSaasAccount(accounts, 'proof');
  const key = await issueApiKey(accounts, secretBox(), saas.id, ['*']);

  const serviceLog = join(dir, 'service.log');
  // The load resets the same 20 users' passwords again and again: the mail limits (tested in test/security)
  // would answer 429 to a load that is about durability, so they are raised out of its way here.
  const mailLimitsOutOfTheWay = { MAIL_LIMIT_PER_ADDRESS: '100000', MAIL_LIMIT_PER_USER: '100000' };
  const service = await startServiceProcess({
    scheduledWorkMs: 1000,
    logFile: serviceLog,
    execArgv: ['--expose-gc'],
    env: { LOG_LEVEL: 'warn', ...mailLimitsOutOfTheWay },
  });
  return {
    dir,
    serviceLog,
    saasId: saas.id,
    api: new SignedClient(service.baseUrl, { saasId: saas.id, apiKey: key.apiKey, secret: key.secret }),
    service,
    network,
    sesUrl: sesLocal.url,
    ses,
    async stopDynamo() {
      await dynamoLocal?.stop();
      dynamoLocal = undefined;
    },
    async startDynamo() {
      dynamoLocal = await startEngine();
    },
    async close({ keepFiles }) {
      await service.stop();
      await Promise.all([ses.close(), network.close()]);
      dynamo().destroy();
      await Promise.all([dynamoLocal?.stop(), sesLocal.stop()]);
      if (!keepFiles) rmSync(dir, { recursive: true, force: true });
    },
  };
}
