/**
 * The console composed, as shared/wiring.ts composes the API's services: its backend (console.ts) built from the
 * sealing box, the failed sign-in counts and the settings, which are read here and nowhere else in web/console.
 * console-function.ts only routes requests to it.
 */
import { config } from '../../shared/config.js';
import { BASE_PATH, ENTRY_PATHS, loginScreenUrl } from '../../shared/routes.js';
import { screenOrigin } from '../../shared/screen-hosts.js';
import { consoleSessionRevocations, consoleSignInThrottle, screenHosts, secretBox } from '../../shared/wiring.js';
import { ConsoleBackend } from './console.js';
import { builtAssets } from '../kit/built-assets.js';

/** The built script and style: `public/` beside this file, or beside the deployed bundle (web/page-assets.ts). */
const asset = builtAssets(new URL('./public/', import.meta.url));

let demo: { saasId: string; apiKey: string; secret: string } | undefined;
/** npm start only (bin/local.ts): the demo operator, offered by one click to requests from this computer. */
export function offerDemoOperator(credentials: { saasId: string; apiKey: string; secret: string }): void {
  demo = credentials;
}

export const consoleBackend = () =>
  new ConsoleBackend({
    basePath: ENTRY_PATHS.console,
    apiOrigin: new URL(config().publicBaseUrl).origin,
    box: secretBox(),
    throttle: consoleSignInThrottle(),
    revocations: consoleSessionRevocations(),
    asset,
    loginScreenUrl: (saasId) => loginScreenUrl(`${screenOrigin(screenHosts(), saasId)}${BASE_PATH}`, saasId),
    ...(demo ? { demo } : {}),
  });
