/**
 * Marketplace sign-up (AWS Marketplace SaaS listings). A buyer arrives at the SaaS with a registration token;
 * a resolver port turns it into the customer it names (AWS's ResolveCustomer does this for real listings;
 * the default resolver checks tokens signed with a configured secret). The buyer signs up as an e-mail user,
 * signs in, and then either creates a tenant linked to the customer or links a tenant they belong to.
 *
 * One customer is linked to at most one tenant of a SaaS, and a tenant to at most one customer: the store
 * holds both rules in the transaction that links them, never by reading first.
 */
import { nowSeconds } from '../../clock.js';
import { alreadyExists, forbidden, invalid } from '../../errors.js';
import type { Tenant } from '../../schemas/tenants.js';
import type { SaasUser } from '../../schemas/users.js';
import { RULE, type AtomicWrite, type Committer } from '../atomic.js';
import type { SignUpService } from '../sign-in/sign-up.js';
import type { TenantUserService } from './tenant-users.js';
import { newTenantRecord, tenantNotFound, toTenant, type MarketplaceLink, type TenantRecord, type TenantRepository } from './tenants.js';
import type { AccessTokenVerifier } from '../tokens/tokens.js';
import { userNotFound, type UserService } from '../users/users.js';

/** Whom a registration token names. */
export interface MarketplaceCustomer {
  customerIdentifier: string;
  productCode: string;
}

/**
 * Turns a registration token into its customer. A token it does not accept (malformed, forged, expired, or
 * refused by the marketplace) is `invalidRegistrationToken(reason)`, a 400.
 */
export interface MarketplaceResolverPort {
  resolve(registrationToken: string): Promise<MarketplaceCustomer>;
}

export const invalidRegistrationToken = (reason: string) =>
  invalid('invalid_registration_token', `registration_token: ${reason}`, { field: 'registration_token' });

/** The rules marketplace writes hold, as their refusals name them. */
export const MARKETPLACE_RULE = {
  /** The customer is linked to no tenant, or to this one. */
  customerFree: 'customer_free',
  /** The tenant is live and linked to no customer, or to this one. */
  tenantUnlinked: 'tenant_unlinked',
} as const;

export interface MarketplaceRepository {
  /**
   * The customer's claim on the tenant (rule `customer_free`), with the tenant's own item naming it, so that
   * deleting the tenant frees the customer.
   */
  claimWrite(saasId: string, tenantId: string, link: MarketplaceLink): AtomicWrite;
  /** Links an existing tenant: rules `tenant_unlinked`, `member` (the user belongs to it), `customer_free`. */
  linkExistingWrite(saasId: string, tenantId: string, userId: string, link: MarketplaceLink): AtomicWrite;
}

export interface MarketplaceDeps {
  resolver: MarketplaceResolverPort;
  signUp: Pick<SignUpService, 'register'>;
  users: Pick<UserService, 'record'>;
  tenants: TenantRepository;
  tenantUsers: Pick<TenantUserService, 'prepareMembership'>;
  accessTokens: AccessTokenVerifier;
  marketplace: MarketplaceRepository;
  committer: Committer;
}

const customerTaken = (customer: MarketplaceCustomer) =>
  alreadyExists(
    'marketplace_customer_already_linked',
    `registration_token: marketplace customer ${customer.customerIdentifier} is already linked to another tenant`,
  );

export class MarketplaceService {
  constructor(private readonly deps: MarketplaceDeps) {}

  /**
   * Sign Up with marketplace: like Sign Up, but the registration token, not the self sign-up setting, lets the
   * buyer in (they came through a listing the SaaS published). The token is checked before anything is stored.
   */
  async signUp(saasId: string, email: string, registrationToken: string): Promise<SaasUser> {
    await this.deps.resolver.resolve(registrationToken);
    return this.deps.signUp.register(saasId, email);
  }

  /** Confirm Sign Up with marketplace: a new tenant linked to the customer, with the signed-in user as its member. */
  async confirmSignUp(saasId: string, input: { tenant_name?: string; access_token: string; registration_token: string }): Promise<Tenant> {
    const userId = (await this.deps.accessTokens.verifyAccessToken(saasId, input.access_token)).sub;
    const customer = await this.deps.resolver.resolve(input.registration_token);
    const user = await this.deps.users.record(saasId, userId);
    const link = linkOf(customer);
    const tenant: TenantRecord = {
      ...newTenantRecord({
        // Without a name the tenant is called after the user who made it, whom the SaaS can ask to rename it.
        name: input.tenant_name || user.email || user.sign_in_id,
        attributes: {},
        back_office_staff_email: user.email,
      }),
      marketplace: link,
    };
    const membership = await this.deps.tenantUsers.prepareMembership(saasId, { tenantId: tenant.id, userId, tenantIsNew: true });
    const outcome = await this.deps.committer.commit(
      this.deps.tenants.createWrite(saasId, tenant),
      this.deps.marketplace.claimWrite(saasId, tenant.id, link),
      ...membership.writes,
    );
    if (!outcome.committed) {
      if (outcome.refusedBy === MARKETPLACE_RULE.customerFree) throw customerTaken(customer);
      if (outcome.refusedBy === RULE.userLive) throw userNotFound(userId);
      throw new Error(`creating a marketplace tenant was refused by ${outcome.refusedBy}`);
    }
    return toTenant(tenant);
  }

  /** Link an existing tenant with marketplace: the signed-in user must belong to it. Linking again changes nothing. */
  async link(saasId: string, input: { tenant_id: string; access_token: string; registration_token: string }): Promise<void> {
    const userId = (await this.deps.accessTokens.verifyAccessToken(saasId, input.access_token)).sub;
    const customer = await this.deps.resolver.resolve(input.registration_token);
    const tenantId = input.tenant_id.toLowerCase();
    const tenant = await this.deps.tenants.get(saasId, tenantId);
    if (!tenant) throw tenantNotFound(tenantId);
    const current = tenant.marketplace;
    const link = current?.customer_identifier === customer.customerIdentifier ? current : linkOf(customer);
    const outcome = await this.deps.committer.commit(this.deps.marketplace.linkExistingWrite(saasId, tenantId, userId, link));
    if (outcome.committed) return;
    switch (outcome.refusedBy) {
      case MARKETPLACE_RULE.tenantUnlinked:
        if (!(await this.deps.tenants.get(saasId, tenantId))) throw tenantNotFound(tenantId);
        throw alreadyExists('tenant_already_linked', `tenant_id: tenant ${tenantId} is already linked to another marketplace customer`);
      case RULE.member:
        throw forbidden('not_a_tenant_member', `access_token: the signed-in user does not belong to tenant ${tenantId}`);
      case MARKETPLACE_RULE.customerFree:
        throw customerTaken(customer);
      default:
        throw new Error(`linking a marketplace customer was refused by ${outcome.refusedBy}`);
    }
  }
}

function linkOf(customer: MarketplaceCustomer): MarketplaceLink {
  return { customer_identifier: customer.customerIdentifier, product_code: customer.productCode, linked_at: nowSeconds() };
}
