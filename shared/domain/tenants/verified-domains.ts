/**
 * Verified domains and home-realm discovery (docs/enterprise.md). A tenant claims a domain and proves it by
 * publishing a DNS TXT record; proven, the domain is that tenant's within the SaaS: its people, typing
 * `x@acme.com` on the hosted screen, go straight to the tenant's identity provider, and no other tenant's
 * provider may speak for an address there.
 *
 * A claim is the tenant's (any tenant may claim, none may squat: a claim without proof routes nothing). The
 * verified domain is one item per SaaS and domain, taken conditionally, so of two tenants proving the same
 * domain one wins and the other is refused. The proof is read again when a route through it is older than
 * RECHECK_SECONDS: a record that is gone lapses the claim; a resolver that fails (a timeout, SERVFAIL) does not.
 */
import { randomBytes } from 'node:crypto';
import { nowSeconds } from '../../clock.js';
import { alreadyExists, invalid, notFound } from '../../errors.js';

/** The TXT record's name is this label before the domain. */
export const PROOF_LABEL = '_identity-verification';
const PROOF_PREFIX = 'identity-verification=';
/** A verified domain's proof is read again when a sign-in routes through it this long after the last reading. */
export const RECHECK_SECONDS = 24 * 60 * 60;
export const MAX_CLAIMS_PER_TENANT = 20;

export interface DomainClaim {
  domain: string;
  tenant_id: string;
  token: string;
  created_at: number;
  verified_at?: number;
  lapsed_at?: number;
  /** A user of the domain whom the tenant's provider signs in and who is no member yet joins with this role. */
  jit_role?: string;
}

/** The SaaS-wide owner of a verified domain. */
export interface DomainOwner {
  domain: string;
  tenant_id: string;
  checked_at: number;
  jit_role?: string;
}

export interface DomainRepository {
  claims(saasId: string, tenantId: string): Promise<DomainClaim[]>;
  claim(saasId: string, tenantId: string, domain: string): Promise<DomainClaim | undefined>;
  saveClaim(saasId: string, claim: DomainClaim): Promise<void>;
  deleteClaim(saasId: string, tenantId: string, domain: string): Promise<boolean>;
  owner(saasId: string, domain: string): Promise<DomainOwner | undefined>;
  /** Written only while nobody or this tenant holds the domain; false when another tenant does. */
  takeOwnership(saasId: string, owner: DomainOwner): Promise<boolean>;
  /** Removed only while `tenantId` holds it. */
  releaseOwnership(saasId: string, domain: string, tenantId: string): Promise<void>;
}

/** The TXT records at a name: 'missing' when the name or its TXT records do not exist; a throw when the resolver failed. */
export type TxtResolver = (name: string) => Promise<string[] | 'missing'>;

export interface DomainView {
  domain: string;
  status: 'pending' | 'verified' | 'lapsed';
  /** What to publish in the domain's DNS. */
  record: { type: 'TXT'; name: string; value: string };
  verified_at?: number;
  jit_role_name?: string;
}

const DOMAIN = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

export function normalDomain(domain: string, field = 'domain'): string {
  const value = domain.trim().toLowerCase().replace(/\.$/, '');
  if (!DOMAIN.test(value)) throw invalid('invalid_parameter', `${field}: is not a domain name such as acme.com`, { field });
  return value;
}

const view = (claim: DomainClaim, owner: DomainOwner | undefined): DomainView => ({
  domain: claim.domain,
  status: owner?.tenant_id === claim.tenant_id ? 'verified' : claim.lapsed_at ? 'lapsed' : 'pending',
  record: { type: 'TXT', name: `${PROOF_LABEL}.${claim.domain}`, value: `${PROOF_PREFIX}${claim.token}` },
  ...(claim.verified_at && owner?.tenant_id === claim.tenant_id ? { verified_at: claim.verified_at } : {}),
  ...(claim.jit_role ? { jit_role_name: claim.jit_role } : {}),
});

const claimedElsewhere = (domain: string) =>
  alreadyExists('domain_claimed', `${domain} is verified by another tenant of this SaaS; it can be verified by one tenant only`);

export interface VerifiedDomainDeps {
  domains: DomainRepository;
  resolveTxt: TxtResolver;
  tenantExists(saasId: string, tenantId: string): Promise<boolean>;
  roleExists(saasId: string, roleName: string): Promise<boolean>;
}

export class VerifiedDomainService {
  constructor(private readonly deps: VerifiedDomainDeps) {}

  async list(saasId: string, tenantId: string): Promise<{ domains: DomainView[] }> {
    await this.tenant(saasId, tenantId);
    const claims = await this.deps.domains.claims(saasId, tenantId);
    const owners = await Promise.all(claims.map((c) => this.deps.domains.owner(saasId, c.domain)));
    return { domains: claims.map((c, i) => view(c, owners[i])) };
  }

  /** A claim, or the tenant's existing one with its new role: the TXT record to publish. Refused while another tenant holds the domain. */
  async claim(saasId: string, tenantId: string, input: { domain: string; jit_role_name?: string | null }): Promise<DomainView> {
    await this.tenant(saasId, tenantId);
    const domain = normalDomain(input.domain);
    const role = input.jit_role_name ?? undefined;
    if (role !== undefined && !(await this.deps.roleExists(saasId, role))) {
      throw invalid('invalid_parameter', `jit_role_name: no role named ${role}`, { field: 'jit_role_name' });
    }
    const owner = await this.liveOwner(saasId, domain);
    if (owner && owner.tenant_id !== tenantId) throw claimedElsewhere(domain);
    const existing = await this.deps.domains.claim(saasId, tenantId, domain);
    if (!existing && (await this.deps.domains.claims(saasId, tenantId)).length >= MAX_CLAIMS_PER_TENANT) {
      throw invalid('too_many_domains', `a tenant may claim at most ${MAX_CLAIMS_PER_TENANT} domains`);
    }
    const { jit_role: _old, ...kept } = existing ?? {
      domain,
      tenant_id: tenantId,
      token: randomBytes(18).toString('base64url'),
      created_at: nowSeconds(),
    };
    const claim: DomainClaim = { ...kept, ...(role ? { jit_role: role } : {}) };
    await this.deps.domains.saveClaim(saasId, claim);
    if (owner) {
      const { jit_role: _was, ...held } = owner;
      await this.deps.domains.takeOwnership(saasId, { ...held, ...(role ? { jit_role: role } : {}) });
    }
    return view(claim, owner);
  }

  /** Reads the proof now: verified and the domain this tenant's, or a 400 saying what to publish; refused (domain_claimed) when another tenant holds it. */
  async verify(saasId: string, tenantId: string, domainName: string): Promise<DomainView> {
    await this.tenant(saasId, tenantId);
    const domain = normalDomain(domainName);
    const claim = await this.deps.domains.claim(saasId, tenantId, domain);
    if (!claim) throw notFound('domain_not_found', `this tenant has not claimed ${domain}`);
    const proof = await this.proofFound(claim);
    if (!proof) {
      await this.lapse(saasId, claim);
      const { record } = view(claim, undefined);
      throw invalid('domain_not_verified', `no TXT record ${record.name} with the value ${record.value} was found; publish it and try again`);
    }
    const owner: DomainOwner = { domain, tenant_id: tenantId, checked_at: nowSeconds(), ...(claim.jit_role ? { jit_role: claim.jit_role } : {}) };
    if (!(await this.deps.domains.takeOwnership(saasId, owner))) throw claimedElsewhere(domain);
    const { lapsed_at: _lapsed, ...rest } = claim;
    const verified: DomainClaim = { ...rest, verified_at: claim.verified_at && !claim.lapsed_at ? claim.verified_at : nowSeconds() };
    await this.deps.domains.saveClaim(saasId, verified);
    return view(verified, owner);
  }

  async remove(saasId: string, tenantId: string, domainName: string): Promise<void> {
    await this.tenant(saasId, tenantId);
    const domain = normalDomain(domainName);
    if (!(await this.deps.domains.deleteClaim(saasId, tenantId, domain))) throw notFound('domain_not_found', `this tenant has not claimed ${domain}`);
    await this.deps.domains.releaseOwnership(saasId, domain, tenantId);
  }

  /**
   * Home-realm discovery: the tenant that holds an address's domain, with its role for newcomers; undefined
   * for a domain nobody verified, or whose proof has gone (the claim lapses then).
   */
  async ownerOf(saasId: string, email: string): Promise<DomainOwner | undefined> {
    const at = email.lastIndexOf('@');
    const domain = at > 0 ? email.slice(at + 1).toLowerCase() : '';
    if (!DOMAIN.test(domain)) return undefined;
    const owner = await this.liveOwner(saasId, domain);
    if (!owner || nowSeconds() - owner.checked_at < RECHECK_SECONDS) return owner;
    const claim = await this.deps.domains.claim(saasId, owner.tenant_id, domain);
    let proof: boolean;
    try {
      proof = claim ? await this.proofFound(claim) : false;
    } catch {
      // The resolver failed: nothing says the proof is gone; it is read again next time.
      return owner;
    }
    if (!proof) {
      if (claim) await this.lapse(saasId, claim);
      else await this.deps.domains.releaseOwnership(saasId, domain, owner.tenant_id);
      return undefined;
    }
    const checked = { ...owner, checked_at: nowSeconds() };
    await this.deps.domains.takeOwnership(saasId, checked);
    return checked;
  }

  /** The domain's owner, while that tenant exists: a deleted tenant's claims went with it, and its domain goes too. */
  private async liveOwner(saasId: string, domain: string): Promise<DomainOwner | undefined> {
    const owner = await this.deps.domains.owner(saasId, domain);
    if (!owner || (await this.deps.tenantExists(saasId, owner.tenant_id))) return owner;
    await this.deps.domains.releaseOwnership(saasId, domain, owner.tenant_id);
    return undefined;
  }

  private async proofFound(claim: DomainClaim): Promise<boolean> {
    const records = await this.deps.resolveTxt(`${PROOF_LABEL}.${claim.domain}`);
    return records !== 'missing' && records.some((r) => r.trim() === `${PROOF_PREFIX}${claim.token}`);
  }

  /** The proof is gone: the domain is nobody's, and the tenant's claim says since when. */
  private async lapse(saasId: string, claim: DomainClaim): Promise<void> {
    const owner = await this.deps.domains.owner(saasId, claim.domain);
    if (owner?.tenant_id !== claim.tenant_id) return;
    await this.deps.domains.releaseOwnership(saasId, claim.domain, claim.tenant_id);
    await this.deps.domains.saveClaim(saasId, { ...claim, lapsed_at: nowSeconds() });
  }

  private async tenant(saasId: string, tenantId: string): Promise<void> {
    if (!(await this.deps.tenantExists(saasId, tenantId))) throw notFound('tenant_not_found', `no tenant with id ${tenantId}`);
  }
}
