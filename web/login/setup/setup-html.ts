/**
 * The setup page's HTML (setup-page.ts serves it): one page per step, each a plain form that posts back to its own
 * address, so it needs no script and works by keyboard alone. Every value is escaped; the page carries the step's
 * CSRF token in a hidden field, which the screen pipeline compares with the one sealed in the page's cookie.
 */
import type { OidcProvider, TenantDomain } from '../../../shared/schemas/enterprise.js';
import type { Static } from '@sinclair/typebox';
import type { SamlProps } from '../../../shared/schemas/tenants.js';
import type { ScimTokenInfo } from '../../../shared/domain/scim/scim-tokens.js';
import { escapeHtml } from '../../kit/html.js';
import { CATALOGUES } from '../language.js';
import { contentSecurityPolicy } from '../pages.js';
import type { SetupTexts } from '../texts/en-setup.js';
import { fill, type LoginTexts } from '../texts/en.js';

/** `members`: a tenant admin's page only (signed in on the screen), never a setup link's. */
export const SETUP_STEPS = ['', 'saml', 'oidc', 'scim', 'domain', 'members'] as const;
export type SetupStep = (typeof SETUP_STEPS)[number];

/** What a step's page shows of the tenant's settings, read fresh for each answer. */
export interface SetupView {
  saasName: string;
  tenantName: string;
  csrf: string;
  /** The SaaS's screen, `…/login/{saas id}/`: every link and form of the page starts there. */
  root: string;
  saml?: SamlProps;
  oidc?: OidcProvider;
  scimTokens: ScimTokenInfo[];
  domains: Static<typeof TenantDomain>[];
  /** Ours, to copy into the tenant's identity provider. */
  urls: { spEntityId: string; acsUrl: string; spMetadataUrl: string; samlSignIn: string; oidcCallback: string; oidcSignIn: string; scim: string };
  /** The tenant's members and invitations: only on a tenant admin's page. */
  admin?: AdminView;
}

export interface AdminView {
  members: { id: string; email: string; roles: string[] }[];
  invitations: { email: string; status: 'pending' | 'accepted' | 'expired'; roles: string[] }[];
  /** The roles an invitation may give, `{env id}:{role name}`, with what the page shows of each. */
  roles: { value: string; label: string }[];
}

/** What the last action left to say: a success, a refusal, a token shown once, and the fields as typed. */
export interface Outcome {
  notice?: string;
  error?: string;
  token?: string;
  form?: Record<string, string>;
}

export const SETUP_POLICY = contentSecurityPolicy(false);

const e = escapeHtml;
const field = (name: string, label: string, value: string, extra = '', help?: string) =>
  `<label for="${name}">${e(label)}</label>\n<input id="${name}" name="${name}" value="${e(value)}"${help ? ` aria-describedby="${name}-help"` : ''}${extra}>${
    help ? `\n<p class="status" id="${name}-help">${e(help)}</p>` : ''
  }`;
/** A value to copy: read-only, selectable, labelled. */
const copyable = (id: string, label: string, value: string) =>
  `<label for="${id}">${e(label)}</label>\n<input id="${id}" class="copy" readonly value="${e(value)}">`;
const hidden = (csrf: string) => `<input type="hidden" name="csrf" value="${e(csrf)}">`;
const button = (action: string, text: string, secondary = false) =>
  `<button type="submit" name="action" value="${action}"${secondary ? ' class="secondary"' : ''}>${e(text)}</button>`;

const stepNames = (t: SetupTexts): Record<SetupStep, string> => ({
  '': t.overview,
  saml: t.stepSaml,
  oidc: t.stepOidc,
  scim: t.stepScim,
  domain: t.stepDomain,
  members: t.stepMembers,
});

function nav(t: SetupTexts, root: string, current: SetupStep, admin: boolean): string {
  const names = stepNames(t);
  const items = SETUP_STEPS.filter((step) => admin || step !== 'members').map((step) => {
    const href = `${root}setup${step ? `/${step}` : ''}`;
    return `<li><a href="${href}"${step === current ? ' aria-current="page"' : ''}>${e(names[step])}</a></li>`;
  });
  return `<nav class="setup-steps" aria-label="${e(t.steps)}"><ol>${items.join('')}</ol></nav>`;
}

/** Each language by its own name; the current one marked, not a link. `?lang=` is remembered by the screen's cookie. */
function languages(texts: LoginTexts, t: SetupTexts, root: string, step: SetupStep): string {
  const items = Object.values(CATALOGUES).map((catalogue) =>
    catalogue.lang === texts.lang
      ? `<span lang="${catalogue.lang}" aria-current="true">${e(catalogue.languageName)}</span>`
      : `<a href="${root}setup${step ? `/${step}` : ''}?lang=${catalogue.lang}" lang="${catalogue.lang}" hreflang="${catalogue.lang}">${e(catalogue.languageName)}</a>`,
  );
  return `<nav class="languages" aria-label="${e(t.language)}">${items.join(' ')}</nav>`;
}

function overview(t: SetupTexts, v: SetupView): string {
  const state = (done: boolean) => `<span class="${done ? 'done' : 'todo'}">${e(done ? t.configured : t.notConfigured)}</span>`;
  const verified = v.domains.filter((d) => d.status === 'verified').map((d) => d.domain);
  return `<p>${e(t.chooseProtocol)}</p>
<ul class="setup-state">
<li><a href="${v.root}setup/saml">${e(t.stepSaml)}</a>: ${state(v.saml !== undefined)}</li>
<li><a href="${v.root}setup/oidc">${e(t.stepOidc)}</a>: ${state(v.oidc !== undefined)}</li>
<li><a href="${v.root}setup/scim">${e(t.stepScim)}</a>: ${state(v.scimTokens.length > 0)}</li>
<li><a href="${v.root}setup/domain">${e(t.stepDomain)}</a>: ${verified.length ? e(verified.join(', ')) : state(false)}</li>
</ul>`;
}

function saml(t: SetupTexts, v: SetupView, o: Outcome): string {
  const f = o.form ?? {};
  return `<h2>${e(t.ours)}</h2>
<p class="status">${e(t.copyHint)} ${e(t.nameId)}</p>
${copyable('sp-entity-id', t.spEntityId, v.urls.spEntityId)}
${copyable('acs-url', t.acsUrl, v.urls.acsUrl)}
${copyable('sp-metadata-url', t.spMetadataUrl, v.urls.spMetadataUrl)}
<h2>${e(t.theirs)}</h2>
<form method="post" action="${v.root}setup/saml">${hidden(v.csrf)}
${field('metadata_url', t.metadataUrl, f.metadata_url ?? v.saml?.metadata_url ?? '', ' type="url" inputmode="url"', t.metadataHelp)}
<label for="metadata_xml">${e(t.metadataXml)}</label>
<textarea id="metadata_xml" name="metadata_xml" rows="6">${e(f.metadata_xml ?? v.saml?.metadata_xml ?? '')}</textarea>
${field('email_attribute', t.emailAttribute, f.email_attribute ?? v.saml?.email_attribute ?? 'email', ' required')}
${button('test', t.test, true)}
${button('save', t.save)}
</form>
${v.saml ? `<p class="links"><a id="try-saml" href="${e(v.urls.samlSignIn)}">${e(t.trySignIn)}</a></p>` : ''}`;
}

function oidc(t: SetupTexts, v: SetupView, o: Outcome): string {
  // What was typed comes back after a test (the secret too: it was never saved, and is the admin's own), never what is stored.
  const f = o.form ?? {};
  const saved = v.oidc;
  return `<h2>${e(t.ours)}</h2>
<p class="status">${e(t.copyHint)}</p>
${copyable('redirect-uri', t.redirectUri, v.urls.oidcCallback)}
<h2>${e(t.theirs)}</h2>
<form method="post" action="${v.root}setup/oidc">${hidden(v.csrf)}
${field('discovery_url', t.discoveryUrl, f.discovery_url ?? saved?.discovery_url ?? '', ' type="url" inputmode="url" required')}
${field('client_id', t.clientId, f.client_id ?? saved?.client_id ?? '', ' required autocomplete="off"')}
${field('client_secret', t.clientSecret, f.client_secret ?? '', ' type="password" autocomplete="off"', t.clientSecretHelp)}
${field('scopes', t.scopes, f.scopes ?? saved?.scopes ?? 'openid email profile')}
${field('claim_email', t.claimEmail, f.claim_email ?? saved?.claims.email ?? 'email')}
${field('claim_name', t.claimName, f.claim_name ?? saved?.claims.name ?? 'name')}
${field('claim_groups', t.claimGroups, f.claim_groups ?? saved?.claims.groups ?? 'groups')}
${button('test', t.test, true)}
${button('save', t.save)}
</form>
${saved ? `<p class="links"><a id="try-oidc" href="${e(v.urls.oidcSignIn)}">${e(t.trySignIn)}</a></p>` : ''}`;
}

function scim(t: SetupTexts, v: SetupView, o: Outcome, locale: string): string {
  const date = (seconds: number) => new Date(seconds * 1000).toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
  const tokens = v.scimTokens.length
    ? `<ul>${v.scimTokens.map((token) => `<li>${e(fill(t.scimTokenCreated, { date: `${date(token.created_at)} UTC` }))}</li>`).join('')}</ul>`
    : `<p>${e(t.scimNoToken)}</p>`;
  return `<p>${e(t.scimIntro)}</p>
${copyable('scim-url', t.scimUrl, v.urls.scim)}
${o.token ? `<div class="notice"><p id="token-once-help">${e(t.scimTokenOnce)}</p>${copyable('scim-token', t.scimTokens, o.token)}</div>` : ''}
<h2>${e(t.scimTokens)}</h2>
${tokens}
<form method="post" action="${v.root}setup/scim">${hidden(v.csrf)}
${button('create', v.scimTokens.length ? t.scimRotate : t.scimCreate)}
${v.scimTokens.length ? button('test', t.test, true) : ''}
</form>`;
}

function domains(t: SetupTexts, v: SetupView, o: Outcome): string {
  const status = { pending: t.statusPending, verified: t.statusVerified, lapsed: t.statusLapsed };
  const rows = v.domains.map(
    (d, i) => `<section class="domain" aria-labelledby="domain-${i}">
<h3 id="domain-${i}">${e(d.domain)}: ${e(status[d.status])}</h3>
<p>${e(t.record)}</p>
${copyable(`record-name-${i}`, t.recordName, d.record.name)}
${copyable(`record-value-${i}`, t.recordValue, d.record.value)}
${
  d.status === 'verified'
    ? ''
    : `<form method="post" action="${v.root}setup/domain">${hidden(v.csrf)}<input type="hidden" name="domain" value="${e(d.domain)}">${button('verify', `${t.verify}: ${d.domain}`)}</form>`
}
</section>`,
  );
  return `<p>${e(t.domainIntro)}</p>
<form method="post" action="${v.root}setup/domain">${hidden(v.csrf)}
${field('domain', t.domain, o.form?.domain ?? '', ' required autocomplete="off" placeholder="example.com"')}
${button('claim', t.claim)}
</form>
${rows.length ? rows.join('\n') : `<p>${e(t.noDomains)}</p>`}`;
}

function members(t: SetupTexts, v: SetupView, a: AdminView, o: Outcome): string {
  const rows = a.members.map(
    (m) =>
      `<tr><td>${e(m.email)}</td><td>${e(m.roles.join(', '))}</td><td><form method="post" action="${v.root}setup/members">${hidden(v.csrf)}<input type="hidden" name="user_id" value="${e(m.id)}"><button type="submit" name="action" value="remove" class="secondary" aria-label="${e(fill(t.removeMember, { email: m.email }))}">${e(t.remove)}</button></form></td></tr>`,
  );
  const invitations = a.invitations.map((i) => `<li>${e(i.email)} (${e(i.roles.join(', '))}): ${e(t.invitationStatus[i.status])}</li>`);
  const options = a.roles.map((r) => `<option value="${e(r.value)}"${o.form?.role === r.value ? ' selected' : ''}>${e(r.label)}</option>`);
  return `<h3>${e(t.members)}</h3>
${
  rows.length
    ? `<table><thead><tr><th scope="col">${e(t.memberEmail)}</th><th scope="col">${e(t.memberRoles)}</th><th scope="col">${e(t.remove)}</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
    : `<p>${e(t.noMembers)}</p>`
}
<h3>${e(t.invite)}</h3>
<form method="post" action="${v.root}setup/members">${hidden(v.csrf)}
${field('email', t.inviteEmail, o.form?.email ?? '', ' type="email" required autocomplete="off"')}
<label for="role">${e(t.inviteRole)}</label>
<select id="role" name="role" required>${options.join('')}</select>
${button('invite', t.invite)}
</form>
<h3>${e(t.invitations)}</h3>
${invitations.length ? `<ul>${invitations.join('')}</ul>` : `<p>${e(t.noInvitations)}</p>`}`;
}

/** The page of one step, with what its last action left to say. */
export function setupPage(texts: LoginTexts, t: SetupTexts, assets: string, step: SetupStep, v: SetupView, o: Outcome = {}): string {
  const title = fill(t.title, { tenant: v.tenantName });
  const body =
    step === 'saml'
      ? saml(t, v, o)
      : step === 'oidc'
        ? oidc(t, v, o)
        : step === 'scim'
          ? scim(t, v, o, texts.lang)
          : step === 'domain'
            ? domains(t, v, o)
            : step === 'members' && v.admin
              ? members(t, v, v.admin, o)
              : overview(t, v);
  const names = stepNames(t);
  return `<!doctype html>
<html lang="${texts.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${e(`${names[step]} · ${title}`)}</title>
<link rel="stylesheet" href="${assets}login.css">
<link rel="stylesheet" href="${assets}theme.css">
<link rel="icon" href="${assets}../favicon.ico">
</head>
<body>
<main class="setup">
${languages(texts, t, v.root, step)}
<h1>${e(title)}</h1>
<p>${e(fill(t.intro, { saas: v.saasName }))}</p>
${nav(t, v.root, step, v.admin !== undefined)}
<h2 id="step-heading">${e(names[step])}</h2>
${o.notice ? `<p id="notice" class="notice" role="status">${e(o.notice)}</p>` : ''}
${o.error ? `<p id="error" class="error" role="alert">${e(o.error)}</p>` : ''}
${body}
</main>
</body>
</html>
`;
}
