/**
 * What the tests of a tenant's own sign-in set up again and again: a SaaS whose screen sends back to a callback,
 * with the definitions and its tenants; a tenant's OpenID Connect provider (test/support/oidc-idp.ts) or SAML
 * identity provider (test/support/saml-idp.ts) connected through the API; a domain claimed and verified with its
 * TXT record published (shared/adapters/dns-txt.ts, setTxtRecordsForTests). Each step asserts that the API took it.
 */
import assert from 'node:assert/strict';
import type { SignedClient } from '../../client/signed-fetch.js';
import { ServiceSetup } from '../../examples/app/demo.js';
import type { Harness } from '../../dev-support/harness.js';
import { startTestOidcIdp, type TestOidcIdp } from './oidc-idp.js';
import { EMAIL_ATTRIBUTE } from './saml-idp.js';

export interface TenantSaas<Name extends string> {
  saasId: string;
  admin: SignedClient;
  /** The SaaS's hosted screen on the API's origin. */
  screen: string;
  setup: ServiceSetup;
  /** The id of each tenant made, by its name. */
  tenants: Record<Name, string>;
}

/**
 * A new SaaS with its callback URL and the demo's definitions, and one tenant per name; `members` names a person
 * (a user made with that password) to add to a tenant as its admin.
 */
export async function tenantSaas<Name extends string>(
  h: Harness,
  tenantNames: readonly Name[],
  callbackUrl = 'https://app.acme.test/callback',
  members: { [N in Name]?: { email: string; password: string } } = {},
): Promise<TenantSaas<Name>> {
  const { saasId, client: admin } = await h.newSaas();
  assert.equal((await admin.put('/auth-info', { callback_url: callbackUrl })).status, 200);
  const setup = new ServiceSetup(admin);
  await setup.ensureDefinitions();
  const tenants = {} as Record<Name, string>;
  for (const name of tenantNames) {
    tenants[name] = await setup.createTenant(name);
    const member = members[name];
    if (member) await setup.addMember(tenants[name], await setup.createUser(member.email, member.password), member.email);
  }
  return { saasId, admin, screen: `${h.api.baseUrl}/login/${saasId}/`, setup, tenants };
}

/** A test OpenID Connect provider that sends back to `screen`, saved as the tenant's provider. */
export async function connectTenantOidc(admin: SignedClient, screen: string, tenantId: string, name?: string): Promise<TestOidcIdp> {
  const idp = await startTestOidcIdp({ redirectUris: [`${screen}oidc/callback`], ...(name ? { name } : {}) });
  const oidc = { discovery_url: idp.discoveryUrl, client_id: idp.clientId, client_secret: idp.clientSecret };
  const saved = await admin.put(`/tenants/${tenantId}/identity-providers/oidc`, { oidc });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  return idp;
}

/** A SAML identity provider's metadata XML saved as the tenant's provider. */
export async function connectTenantSaml(admin: SignedClient, tenantId: string, metadataXml: string): Promise<void> {
  const props = { email_attribute: EMAIL_ATTRIBUTE, metadata_xml: metadataXml };
  const saved = await admin.put(`/tenants/${tenantId}/identity-providers`, { provider_type: 'SAML', identity_provider_props: props });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
}

/** Claims `domain` for the tenant, publishes its record in `published` (the records the test gave setTxtRecordsForTests) and verifies it. */
export async function verifyDomain(
  admin: SignedClient,
  tenantId: string,
  domain: string,
  published: Record<string, string[] | 'failing'>,
  claim: { jit_role_name?: string } = {},
): Promise<void> {
  const claimed = await admin.post<{ record: { name: string; value: string } }>(`/tenants/${tenantId}/domains`, { domain, ...claim });
  assert.equal(claimed.status, 201, JSON.stringify(claimed.body));
  published[claimed.body.record.name] = [claimed.body.record.value];
  const verified = await admin.post<{ status: string }>(`/tenants/${tenantId}/domains/${domain}/verify`, {});
  assert.equal(verified.body.status, 'verified', JSON.stringify(verified.body));
}
