/**
 * Bundled into every function in place of `@aws-sdk/credential-provider-node` (lib/bundling.ts). Lambda
 * always hands a function its role's credentials in the environment, the first place the SDK's default
 * chain looks; the rest of that chain (SSO, profiles, web identity, container and instance metadata)
 * weighs about 130 KB per bundle and is never reached there. Local mode, tests and the admin command run
 * unbundled and keep the full chain.
 */
import type { AwsCredentialIdentity } from '@aws-sdk/types';

export function defaultProvider(): () => Promise<AwsCredentialIdentity> {
  return async () => {
    const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_SESSION_TOKEN: sessionToken } = process.env;
    if (!accessKeyId || !secretAccessKey) throw new Error('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are missing: Lambda sets them');
    return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
  };
}

export const credentialsWillNeedRefresh = () => false;
export const credentialsTreatedAsExpired = () => false;
