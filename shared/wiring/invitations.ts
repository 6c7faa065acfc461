/**
 * Joining a tenant: invitations (create, read, delete, accept as an existing user or a new one) and AWS
 * Marketplace sign-up. What belongs here: a service that brings a user into a tenant; it needs users, tenants
 * and sign-up, so it sits above all three.
 */
import { config } from '../config.js';
import { SignedTokenResolver } from '../adapters/marketplace/signed-token-resolver.js';
import { InvitationService } from '../domain/tenants/invitations.js';
import { MarketplaceService } from '../domain/tenants/marketplace.js';
import { secretBox } from './clients.js';
import { configurationReader } from './configuration.js';
import { tokenVerifier } from './keys.js';
import { committer, definitionRepository, invitationRepository, marketplaceRepository, tenantRepository, userRepository } from './repositories.js';
import { signUpService } from './sign-in.js';
import { tenantUserService } from './tenants.js';
import { userService } from './users.js';

/** Tenant invitations: create, read, delete, and accept (as an existing user or a new one). */
export const invitationService = () =>
  new InvitationService({
    invitations: invitationRepository(),
    tenants: tenantRepository(),
    definitions: definitionRepository(),
    users: userRepository(),
    userService: userService(),
    tenantUsers: tenantUserService(),
    tokens: tokenVerifier(),
    committer: committer(),
    box: secretBox(),
    mailLimits: config().mailLimits,
    loginScreenUrl: (saasId) => configurationReader().loginScreenUrl(saasId),
    lifetimeSeconds: config().invitationLifetimeSeconds,
  });

/** The resolver is the seam for AWS Marketplace's own ResolveCustomer (docs/marketplace.md). */
export const marketplaceService = () =>
  new MarketplaceService({
    resolver: new SignedTokenResolver(config().marketplaceTokenSecret),
    signUp: signUpService(),
    users: userService(),
    tenants: tenantRepository(),
    tenantUsers: tenantUserService(),
    accessTokens: tokenVerifier(),
    marketplace: marketplaceRepository(),
    committer: committer(),
  });
