/** The built-in English templates, returned until a SaaS overrides them. `{####}` is the code, password or link. */
import type { TemplateSet } from '../../schemas/configuration.js';

export const DEFAULT_TEMPLATES: TemplateSet = {
  sign_up: {
    subject: 'Welcome: your temporary password',
    message: 'Welcome! Your temporary password is {####}\n\nSign in with it and choose a password of your own.',
  },
  create_user: {
    subject: 'Your account has been created',
    message: 'An account has been created for you. Your temporary password is {####}\n\nSign in with it and choose a password of your own.',
  },
  resend_code: {
    subject: 'Your temporary password',
    message: 'Your temporary password is {####}\n\nSign in with it and choose a password of your own.',
  },
  // Both a forgotten password's code (the login screen) and an administrator's reset (a temporary password).
  forgot_password: {
    subject: 'Setting a new password',
    message: 'To set a new password, use {####}\n\nIf you did not ask for this, ignore this mail or tell your administrator.',
  },
  update_user_attribute: {
    subject: 'Confirm your new e-mail address',
    message: 'Your verification code is {####}\n\nIt is valid for 24 hours.',
  },
  verify_user_attribute: {
    subject: 'Verify your e-mail address',
    message: 'Your verification code is {####}',
  },
  authentication_mfa: {
    subject: 'Your sign-in code',
    message: 'Your sign-in code is {####}\n\nIf you are not signing in, change your password.',
  },
  invite_tenant_user: {
    subject: 'You have been invited',
    message: 'You have been invited to join a team. Accept the invitation here: {####}',
  },
  verify_external_user: {
    subject: 'Link your account',
    message: 'Your code to link your account is {####}\n\nIt is valid for 24 hours.',
  },
};

export const PLACEHOLDER = '{####}';
