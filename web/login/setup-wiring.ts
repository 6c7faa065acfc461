/**
 * The setup page composed (setup/setup-page.ts): the tenant's identity settings as the API's operations change them
 * (the same services, the same checks), and the URLs its IT admin copies. Apart from wiring.ts, which composes the
 * screen; login-function.ts routes `…/setup` here.
 */
import { config } from '../../shared/config.js';
import { loadCatalog } from '../../shared/domain/tenants/tenant-users.js';
import { DomainError } from '../../shared/errors.js';
import { parseIdpMetadata } from '../../shared/domain/tenants/saml-metadata.js';
import { ENTRY_PATHS } from '../../shared/routes.js';
import {
  accountRepository,
  checkTenantOidcProvider,
  committer,
  definitionRepository,
  invitationService,
  metadataFetcher,
  scimBaseUrl,
  scimTokenService,
  screenSessionService,
  secretBox,
  setupLinkService,
  tenantOidcCallbackUrl,
  tenantOidcService,
  tenantService,
  tenantUserService,
  verifiedDomainService,
} from '../../shared/wiring.js';
import type { EnvWithRoles } from '../../shared/schemas/tenant-users.js';
import type { SamlProps } from '../../shared/schemas/tenants.js';
import { samlAcsUrl, samlEntityId } from './saml/ticket.js';
import { sessionOf } from './screen/screen-session.js';
import { SetupPage, type AdminRef } from './setup/setup-page.js';
import { SETUP_EN } from './texts/en-setup.js';
import { SETUP_JA } from './texts/ja-setup.js';
import type { LoginTexts } from './texts/en.js';
import { saasExists, secureCookies } from './wiring.js';

const WORDS = { en: SETUP_EN, ja: SETUP_JA };

/** The role that makes a member a tenant admin (docs/enterprise.md, "Tenant admins"). */
export const TENANT_ADMIN_ROLE = 'admin';

const rolesOf = (envs: EnvWithRoles[]) =>
  envs.flatMap((env) => env.roles.map((role) => `${env.display_name || env.name}: ${role.display_name || role.role_name}`));

/** Whether the screen session is live (for this tenant) and its person holds the admin role in the tenant now; marks it used. */
async function holdsAdmin(saasId: string, tenantId: string, admin: AdminRef): Promise<boolean> {
  const sessions = screenSessionService();
  const resumed = await sessions.resume(saasId, admin, { tenantId });
  if (!resumed.usable) return false;
  // Working on the page is using the session: its idle lifetime counts from here too (a write a minute at most).
  const touch = sessions.touch(saasId, resumed.session);
  if (touch.length && !(await committer().commit(...touch)).committed) return false;
  try {
    const member = await tenantUserService().get(saasId, tenantId, admin.userId);
    return member.envs.some((env) => env.roles.some((role) => role.role_name === TENANT_ADMIN_ROLE));
  } catch (error) {
    if (error instanceof DomainError) return false;
    throw error;
  }
}

/** The metadata as the sign-in will read it: from its URL (a public host only), or as given. */
async function samlMetadata(props: SamlProps) {
  if (props.metadata_xml) return parseIdpMetadata(props.metadata_xml, 'metadata_xml');
  const url = props.metadata_url ?? '';
  return parseIdpMetadata(await metadataFetcher().text(url, 'metadata_url'), 'metadata_url');
}

export const setupPage = (texts: LoginTexts) =>
  new SetupPage({
    basePath: ENTRY_PATHS.login,
    secureCookies: secureCookies(),
    box: secretBox(),
    texts,
    words: texts.lang === 'ja' ? WORDS.ja : WORDS.en,
    saasExists,
    saasName: async (saasId) => (await accountRepository().getSaas(saasId))?.name ?? '',
    links: setupLinkService(),
    view: async ({ saasId, tenantId }) => {
      const base = config().publicBaseUrl;
      const [saas, tenant, saml, oidc, scimTokens, { domains }] = await Promise.all([
        accountRepository().getSaas(saasId),
        tenantService().current(saasId, tenantId),
        tenantService().identityProvider(saasId, tenantId),
        tenantOidcService().get(saasId, tenantId),
        scimTokenService().list(saasId, tenantId),
        verifiedDomainService().list(saasId, tenantId),
      ]);
      return {
        saasName: saas?.name ?? '',
        tenantName: tenant.name,
        ...(saml.saml ? { saml: saml.saml } : {}),
        ...(oidc.oidc ? { oidc: oidc.oidc } : {}),
        scimTokens,
        domains,
        urls: {
          spEntityId: samlEntityId(base, saasId),
          acsUrl: samlAcsUrl(base),
          spMetadataUrl: samlEntityId(base, saasId),
          samlSignIn: saml.saml?.sign_in_url ?? '',
          oidcCallback: tenantOidcCallbackUrl(saasId),
          oidcSignIn: oidc.oidc?.sign_in_url ?? '',
          scim: scimBaseUrl(saasId, tenantId),
        },
      };
    },
    saml: {
      test: samlMetadata,
      save: async (saasId, tenantId, props) => {
        await samlMetadata(props);
        await tenantService().setIdentityProvider(saasId, tenantId, props);
      },
    },
    oidc: {
      test: checkTenantOidcProvider,
      save: (saasId, tenantId, props) => tenantOidcService().set(saasId, tenantId, props),
    },
    scim: { create: (saasId, tenantId) => scimTokenService().create(saasId, tenantId) },
    domains: {
      claim: (saasId, tenantId, input) => verifiedDomainService().claim(saasId, tenantId, input),
      verify: (saasId, tenantId, domain) => verifiedDomainService().verify(saasId, tenantId, domain),
    },
    admins: {
      signedIn: (request, saasId) => sessionOf({ basePath: ENTRY_PATHS.login, secureCookies: secureCookies(), box: secretBox() }, saasId, request),
      holds: holdsAdmin,
      view: async (saasId, tenantId) => {
        const [members, invitations, catalog] = await Promise.all([
          tenantUserService().listTenant(saasId, tenantId),
          invitationService().list(saasId, tenantId),
          loadCatalog(definitionRepository(), saasId),
        ]);
        const roles = [...catalog.envs.values()].flatMap((env) =>
          [...catalog.roles.values()].map((role) => ({
            value: `${env.id}:${role.role_name}`,
            label: `${env.display_name || env.name}: ${role.display_name || role.role_name}`,
          })),
        );
        return {
          members: members.map((m) => ({ id: m.id, email: m.email, roles: rolesOf(m.envs) })),
          invitations: invitations.map((i) => ({ email: i.email, status: i.status, roles: rolesOf(i.envs) })),
          roles,
        };
      },
      invite: async (saasId, tenantId, inviterId, { email, envId, role }) => {
        await invitationService().invite(saasId, tenantId, inviterId, { email, envs: [{ id: envId, role_names: [role] }] });
      },
      remove: async (saasId, tenantId, userId) => {
        // Read first: a user who is no member of this tenant is refused before anything is written.
        const member = await tenantUserService().get(saasId, tenantId, userId);
        await tenantUserService().remove(saasId, tenantId, userId);
        return member.email;
      },
    },
  });
