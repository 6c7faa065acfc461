import * as Type from '@sinclair/typebox';
import type { OperationSchema } from './operation.js';

export const Jwks = Type.Object(
  {
    keys: Type.Array(
      Type.Object({
        kty: Type.Literal('RSA'),
        n: Type.String(),
        e: Type.String(),
        kid: Type.String(),
        alg: Type.Literal('RS256'),
        use: Type.Literal('sig'),
      }),
    ),
  },
  { $id: 'Jwks', description: 'The public keys that verify ID and access tokens (RFC 7517)' },
);

export const OpenIdConfiguration = Type.Object(
  {
    issuer: Type.String(),
    authorization_endpoint: Type.String(),
    token_endpoint: Type.String(),
    userinfo_endpoint: Type.String(),
    end_session_endpoint: Type.String(),
    jwks_uri: Type.String(),
    scopes_supported: Type.Array(Type.String()),
    response_types_supported: Type.Array(Type.String()),
    response_modes_supported: Type.Array(Type.String()),
    grant_types_supported: Type.Array(Type.String()),
    code_challenge_methods_supported: Type.Array(Type.String()),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
    authorization_response_iss_parameter_supported: Type.Boolean(),
    subject_types_supported: Type.Array(Type.String()),
    id_token_signing_alg_values_supported: Type.Array(Type.String()),
    claims_supported: Type.Array(Type.String()),
  },
  {
    $id: 'OpenIdConfiguration',
    description:
      'OpenID Provider metadata (OpenID Connect Discovery 1.0): the endpoints of the authorization server, where the keys are, which algorithm signs',
  },
);

export const publicSchemas = {
  getJwks: { response: Jwks },
  getOpenIdConfiguration: { response: OpenIdConfiguration },
} satisfies Record<string, OperationSchema>;
