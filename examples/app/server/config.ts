/**
 * The example backend's settings, read from the environment once (on Lambda; the local runner passes them
 * directly). The service's address and key use the variable names the SaaSus SDKs read.
 */
import type { Credentials } from '../../../client/signed-fetch.js';

export interface AppSettings {
  /** The service's API base, e.g. `https://auth.example.com/v1/auth`. */
  serviceBaseUrl: string;
  /** An API key holding only `tenant:read` and `sign-in`. */
  credentials: Credentials;
  refreshMaxAgeSeconds: number;
}

export const DEFAULT_REFRESH_MAX_AGE_SECONDS = 30 * 86400;
export const API_BASE_PATH = '/v1/auth';

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`environment variable ${name} is required`);
  return value;
}

export function appSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): AppSettings {
  const days = env.APP_REFRESH_COOKIE_DAYS ? Number(env.APP_REFRESH_COOKIE_DAYS) : undefined;
  if (days !== undefined && !(Number.isInteger(days) && days > 0)) throw new Error('APP_REFRESH_COOKIE_DAYS must be a whole number of days');
  return {
    serviceBaseUrl: required(env, 'SAASUS_API_URL_BASE').replace(/\/$/, '') + API_BASE_PATH,
    credentials: {
      saasId: required(env, 'SAASUS_SAAS_ID'),
      apiKey: required(env, 'SAASUS_API_KEY'),
      secret: required(env, 'SAASUS_SECRET_KEY'),
    },
    refreshMaxAgeSeconds: days ? days * 86400 : DEFAULT_REFRESH_MAX_AGE_SECONDS,
  };
}
