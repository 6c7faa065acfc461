/**
 * Every page of the console, in the navigation's order: its path (the first segment after the console's base),
 * its name in the catalogue's `nav`, and its component. Adding a page is one file in pages/ and one row here
 * (docs/console.md).
 */
import type { FunctionComponent } from 'preact';
import type { ConsoleTexts } from '../texts/en.js';
import { Overview } from './pages/overview.js';
import { Definitions } from './pages/definitions.js';
import { Pricing } from './pages/pricing.js';
import { LoginTheme } from './pages/login-theme.js';
import { MailTemplates } from './pages/mail-templates.js';
import { SignInSettingsPage } from './pages/sign-in-settings.js';
import { IdentityProviders } from './pages/identity-providers.js';
import { BasicInfoPage } from './pages/basic-info.js';

/** What a page is given: the rest of the path after its own segment (`users/{id}` gives the id) and the query. */
export interface PageProps {
  rest: string;
  query: URLSearchParams;
}

export interface PageEntry {
  path: string;
  nav: keyof ConsoleTexts['nav'];
  component: FunctionComponent<PageProps>;
}

export const PAGES: PageEntry[] = [
  { path: 'overview', nav: 'overview', component: Overview },
  { path: 'definitions', nav: 'definitions', component: Definitions },
];

// The catalogue, the login screen (issue 30, second part): appended apart from the rows above to keep merges simple.
PAGES.push(
  { path: 'pricing', nav: 'pricing', component: Pricing },
  { path: 'login-screen', nav: 'theme', component: LoginTheme },
  { path: 'mail', nav: 'mail', component: MailTemplates },
  { path: 'sign-in-settings', nav: 'signInSettings', component: SignInSettingsPage },
  { path: 'identity-providers', nav: 'providers', component: IdentityProviders },
  { path: 'basic-info', nav: 'basicInfo', component: BasicInfoPage },
);
