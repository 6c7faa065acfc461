/**
 * The default marketplace resolver: registration tokens are JWTs signed with HMAC-SHA256 (`alg: HS256`) under
 * the deployment's MARKETPLACE_TOKEN_SECRET, made by whatever receives the marketplace's redirect (a small
 * fulfilment endpoint that calls AWS's ResolveCustomer, or an operator by hand). Claims:
 *
 *   sub           the marketplace customer identifier (1 to 255 characters)
 *   product_code  the product the customer subscribed to (1 to 255 characters)
 *   exp           Unix seconds after which the token is refused (required: a token is not a standing credential)
 *
 * To use AWS Marketplace's own tokens instead, implement MarketplaceResolverPort with the Marketplace Metering
 * Service's ResolveCustomer call and hand it to marketplaceService() in shared/wiring/invitations.ts (docs/marketplace.md).
 */
import { errors, jwtVerify, SignJWT } from 'jose';
import { nowSeconds } from '../../clock.js';
import { invalidRegistrationToken, type MarketplaceCustomer, type MarketplaceResolverPort } from '../../domain/tenants/marketplace.js';

const ALGORITHM = 'HS256';
const MAX_CLAIM_LENGTH = 255;

const keyOf = (secret: string) => new TextEncoder().encode(secret);

function claimText(value: unknown, claim: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_CLAIM_LENGTH) {
    throw invalidRegistrationToken(`its ${claim} claim must be a string of 1 to ${MAX_CLAIM_LENGTH} characters`);
  }
  return value;
}

export class SignedTokenResolver implements MarketplaceResolverPort {
  /** `secret` undefined: marketplace sign-up is not configured, and every token is refused. */
  constructor(private readonly secret: string | undefined) {}

  async resolve(registrationToken: string): Promise<MarketplaceCustomer> {
    if (this.secret === undefined) throw invalidRegistrationToken('marketplace sign-up is not configured on this deployment');
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(registrationToken, keyOf(this.secret), {
        algorithms: [ALGORITHM],
        requiredClaims: ['sub', 'exp'],
        currentDate: new Date(nowSeconds() * 1000),
      }));
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw invalidRegistrationToken('has expired');
      if (error instanceof errors.JWTClaimValidationFailed) throw invalidRegistrationToken(`its ${error.claim} claim is missing or invalid`);
      throw invalidRegistrationToken('is not a registration token signed by this deployment');
    }
    return { customerIdentifier: claimText(payload.sub, 'sub'), productCode: claimText(payload.product_code, 'product_code') };
  }
}

/** A registration token the default resolver accepts: for fulfilment endpoints, operators and tests. */
export function signRegistrationToken(secret: string, customer: MarketplaceCustomer, expiresAt = nowSeconds() + 3600): Promise<string> {
  return new SignJWT({ product_code: customer.productCode })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setSubject(customer.customerIdentifier)
    .setIssuedAt(nowSeconds())
    .setExpirationTime(expiresAt)
    .sign(keyOf(secret));
}
