/**
 * Every page of the console, in the navigation's order: its path (the first segment after the console's base),
 * its name in the catalogue's `nav`, and its component. Adding a page is one file in pages/ and one row here
 * (docs/console.md).
 */
import type { FunctionComponent } from 'preact';
import type { ConsoleTexts } from '../texts/en.js';
import { Overview } from './pages/overview.js';
import { Definitions } from './pages/definitions.js';
import { Activity } from './pages/activity.js';
import { Tenants } from './pages/tenants.js';
import { Users } from './pages/users.js';
import { Invitations } from './pages/invitations.js';
import { Pricing } from './pages/pricing.js';
import { LoginTheme } from './pages/login-theme.js';
import { SignInSettingsPage } from './pages/sign-in-settings.js';
import { Basics } from './pages/basics.js';
import { Providers } from './pages/providers.js';
import { Mail } from './pages/mail.js';
import { UsagePage } from './pages/usage-chart.js';
import { SamlPage } from './pages/saml.js';
import { PaymentPage } from './pages/payment.js';
import { EventsPage } from './pages/events.js';
import { MigrationPage } from './pages/migration.js';
// In a file of its own, so that the pages importing it form no cycle with this list.
import type { PageProps } from './page-props.js';

export interface PageEntry {
  path: string;
  nav: keyof ConsoleTexts['nav'];
  component: FunctionComponent<PageProps>;
}

export const PAGES: PageEntry[] = [
  { path: 'overview', nav: 'overview', component: Overview },
  { path: 'basics', nav: 'basics', component: Basics },
  { path: 'definitions', nav: 'definitions', component: Definitions },
  { path: 'tenants', nav: 'tenants', component: Tenants },
  { path: 'users', nav: 'users', component: Users },
  { path: 'invitations', nav: 'invitations', component: Invitations },
  { path: 'pricing', nav: 'pricing', component: Pricing },
  { path: 'theme', nav: 'theme', component: LoginTheme },
  { path: 'sign-in-settings', nav: 'signInSettings', component: SignInSettingsPage },
  { path: 'providers', nav: 'providers', component: Providers },
  { path: 'mail', nav: 'mail', component: Mail },
  { path: 'activity', nav: 'activity', component: Activity },
];

// The settings pages of issue 30's second part: appended apart from the rows above to keep merges simple.
PAGES.push(
  { path: 'usage', nav: 'usage', component: UsagePage },
  { path: 'saml', nav: 'saml', component: SamlPage },
  { path: 'payment', nav: 'payment', component: PaymentPage },
);

// Issue 42: where the events go (docs/events.md).
PAGES.push({ path: 'events', nav: 'events', component: EventsPage });

// Issue 39: import jobs, their refused rows, and a file uploaded to start one (docs/migration.md).
PAGES.push({ path: 'migration', nav: 'migration', component: MigrationPage });
