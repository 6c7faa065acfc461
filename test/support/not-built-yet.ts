/**
 * Routes of other lanes' issues that still answer 501 on this branch. The request fuzz and the isolation
 * sweep allow them their 501; the fuzz's last test fails for a route in this set that has been built, and
 * for a route outside it that answers 501, so the set is emptied as the routes are merged.
 */
export const NOT_BUILT_YET: ReadonlySet<string> = new Set([
  // Sign-in flows.
  'signIn',
  'respondToChallenge',
  'confirmDevice',
  'updateDeviceStatus',
  'getAuthCredentials',
  'createAuthCredentials',
  'getUserInfo',
  // E-mail update, MFA registration, external accounts, invitations.
  'requestEmailUpdate',
  'confirmEmailUpdate',
  'createSecretCode',
  'updateSoftwareToken',
  'requestExternalUserLink',
  'confirmExternalUserLink',
  'getTenantInvitations',
  'createTenantInvitation',
  'getTenantInvitation',
  'deleteTenantInvitation',
  'validateInvitation',
  'getInvitationValidity',
]);
