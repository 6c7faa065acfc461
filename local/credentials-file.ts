/**
 * `.data/credentials.env`, the SaaSus SDKs' variables that `npm start` writes for the local SaaS: apart from
 * local/runtime.ts so that `npm run sign` and `npm run sign-in`, which only read it, load nothing of the service.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LocalCredentials {
  SAASUS_SAAS_ID: string;
  SAASUS_API_KEY: string;
  SAASUS_SECRET_KEY: string;
  /** The JavaScript, PHP, Java and C# SDKs: the origin, to which they add /v1/auth. */
  SAASUS_API_URL_BASE: string;
  /** The Python SDK: the origin and /v1, to which it adds /auth. (The Go SDK takes its base URL in code.) */
  SAASUS_BASE_URL: string;
  /**
   * Where the SDKs' AuthMiddleware (JavaScript, PHP) sends a visitor without a valid token: under `npm start`,
   * the example application's login page. SAASUS_AUTH_MODE (`api`: answer 401 instead of redirecting) is the
   * application's own choice, so it is not written.
   */
  SAASUS_LOGIN_URL?: string;
}

/** The base-URL variables of every SDK, for an API served at `origin` (`http://127.0.0.1:8080`). */
export function sdkBaseUrls(origin: string): Pick<LocalCredentials, 'SAASUS_API_URL_BASE' | 'SAASUS_BASE_URL'> {
  return { SAASUS_API_URL_BASE: origin, SAASUS_BASE_URL: `${origin}/v1` };
}

export const credentialsFile = (dataDir: string) => join(dataDir, 'credentials.env');

export function readCredentials(dataDir: string): LocalCredentials | undefined {
  const file = credentialsFile(dataDir);
  if (!existsSync(file)) return undefined;
  const values: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m) values[m[1] as string] = m[2] as string;
  }
  return values.SAASUS_SAAS_ID && values.SAASUS_API_KEY && values.SAASUS_SECRET_KEY ? (values as unknown as LocalCredentials) : undefined;
}

export function writeCredentials(dataDir: string, credentials: LocalCredentials): void {
  const lines = [
    '# Written by `npm start`: the variable names the SaaSus SDKs read.',
    ...Object.entries(credentials).map(([k, v]) => `${k}=${v}`),
    '',
  ];
  writeFileSync(credentialsFile(dataDir), lines.join('\n'), { mode: 0o600 });
}
