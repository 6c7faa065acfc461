/**
 * The operator console in English: the catalogue every page reads (page/), and the shell's few words
 * (shell.ts). ja.ts has the same keys: its type is this one's, and test/unit/console-texts.test.ts fails on a
 * key missing or left empty in either. `{name}` marks are filled by `fill`.
 */
export const EN = {
  lang: 'en',
  languageName: 'English',
  product: 'Tenant Identity Service',
  title: 'Operator console',
  scriptNeeded: 'The console needs JavaScript.',
  notFound: 'There is no such page in the console.',
  skipToContent: 'Skip to content',
  common: {
    loading: 'Loading…',
    save: 'Save',
    create: 'Create',
    cancel: 'Cancel',
    delete: 'Delete',
    search: 'Search',
    next: 'Next page',
    previous: 'First page',
    none: 'Nothing here yet.',
    saved: 'Saved.',
    created: 'Created.',
    deleted: 'Deleted.',
    yes: 'Yes',
    no: 'No',
    actions: 'Actions',
    requestId: 'Request id: {id}',
    seeActivity: 'See this call in the activity',
    forbidden: 'This API key may not do this ({message}).',
    failed: 'The service answered {status}: {message}',
    unreachable: 'The console could not reach the service. Try again.',
    signedOut: 'Your session ended. Sign in again.',
    required: 'required',
    language: 'Language',
  },
  signIn: {
    heading: 'Sign in to the operator console',
    intro: 'Use an API key of your SaaS: its permissions are what you may see and change here.',
    saasId: 'SaaS ID',
    apiKey: 'API key',
    secret: 'Client secret',
    submit: 'Sign in',
    demo: 'Sign in as the demo operator',
    demoNote: 'Offered by npm start on this computer only.',
    failed: 'The SaaS ID, API key or client secret is not right.',
    throttled: 'Too many failed sign-ins. Wait a few minutes and try again.',
    signOut: 'Sign out',
    signedInAs: 'SaaS {saas} · key {key}',
  },
  nav: {
    label: 'Console',
    overview: 'Overview',
    definitions: 'Environments and roles',
    activity: 'Activity',
    tenants: 'Tenants',
    users: 'Users',
    invitations: 'Invitations',
    pricing: 'Pricing',
    theme: 'Login screen',
  },
  overview: {
    heading: 'Overview',
    users: 'Users',
    tenants: 'Tenants',
    plans: 'Pricing plans',
    calls: 'API calls, last 7 days',
    failures: 'Failed calls (4xx, 5xx)',
    signIns: 'Sign-ins through the API',
    unknown: '—',
  },
  definitions: {
    envsHeading: 'Environments',
    envId: 'ID',
    envName: 'Name',
    envDisplayName: 'Display name',
    rolesHeading: 'Roles',
    roleName: 'Role name',
    roleDisplayName: 'Display name',
    createRole: 'Create role',
    attributesHeading: 'Attributes',
    userAttributes: 'User attributes',
    tenantAttributes: 'Tenant attributes',
    saasUserAttributes: 'SaaS user attributes',
    attributeName: 'Name',
    attributeDisplayName: 'Display name',
    attributeType: 'Type',
  },
} as const;

type Widen<T> = T extends string ? string : { [K in keyof T]: Widen<T[K]> };
export type ConsoleTexts = Widen<typeof EN>;

/** `{name}` marks filled from `values` (unknown marks stay). */
export const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/\{(\w+)\}/g, (mark, name: string) => (name in values ? String(values[name]) : mark));
