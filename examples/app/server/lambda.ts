/**
 * The example backend's Lambda entry (examples/app/infra/stack.ts deploys it): settings from the
 * environment, the page's files copied beside the bundle, cookies always Secure (API Gateway is https).
 */
import { fileURLToPath } from 'node:url';
import { createApp } from './app.js';
import { appSettingsFromEnv } from './config.js';
import { jwksIdTokenVerifier } from './id-tokens.js';
import { lambdaHandler } from './lambda-adapter.js';
import { ServiceClient } from './service-client.js';
import { loadStaticFiles } from './static-files.js';

const settings = appSettingsFromEnv();
const service = new ServiceClient(settings.serviceBaseUrl, settings.credentials);

export const handler = lambdaHandler(
  createApp(
    { service, idTokens: jwksIdTokenVerifier(service), cookies: { secure: true, refreshMaxAgeSeconds: settings.refreshMaxAgeSeconds } },
    loadStaticFiles(fileURLToPath(new URL('./public/', import.meta.url))),
  ),
);
