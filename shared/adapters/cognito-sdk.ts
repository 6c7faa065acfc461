/**
 * The part of the AWS SDK's Cognito client that the lazy migration uses (shared/adapters/cognito-pool.ts). It is a
 * module of its own so that it can stay out of the functions' bundles: cognito-pool.ts imports it dynamically under
 * COGNITO_SDK_IMPORT (lib/bundling.ts), left external, and the stack builds it beside the bundles that may need it,
 * so a sign-in that never migrates never carries or loads the client (about 281 KB with its Smithy core).
 */
export { CognitoIdentityProviderClient, GetUserCommand, InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';
