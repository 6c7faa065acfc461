/** The same SaaS's signed client on another of the service's APIs (Pricing, Billing, API Log), beside the Auth API's. */
import { SignedClient } from '../../client/signed-fetch.js';
import { API_BASE_PATHS, type Api } from '../../shared/routes.js';

/** `client` (on the Auth API) with the same key, on `api`'s base path. */
export const onApi = (client: SignedClient, api: Api): SignedClient =>
  new SignedClient(client.baseUrl.replace(new RegExp(`${API_BASE_PATHS.auth}$`), API_BASE_PATHS[api]), client.credentials);
