/**
 * Tenants of a SaaS: their properties, billing information, plan (applied now or reserved for later),
 * payment-provider linkage and SAML identity provider.
 *
 * Plan reservations are applied exactly once, by whichever comes first: the scheduled worker, or a read
 * that finds the reservation due. The repository applies one only while it is still the pending one, so a
 * race between the two gives one application and one history entry.
 */
import { randomUUID } from 'node:crypto';
import { nowSeconds } from '../../clock.js';
import { DomainError, invalid, notFound } from '../../errors.js';
import type { BillingInfo, PaymentCustomer, PlanHistory, PlanUpdate, SamlProps, Tenant, TenantDetail, TenantProps } from '../../schemas/tenants.js';
import type { AtomicWrite } from '../atomic.js';
import { checkAttributeValues } from '../attributes.js';
import { COUNTRY_CODES } from './countries.js';
import type { DefinitionRepository } from '../configuration/definitions.js';
import type { TenantOidc } from '../../schemas/enterprise.js';
import { currentPlanPeriod, type PlanInterval } from './plan-period.js';

/** A tenant's link to its AWS Marketplace customer: part of the tenant record, made by Link AWS Marketplace. */
export interface MarketplaceLink {
  customer_identifier: string;
  product_code: string;
  linked_at: number;
}

export interface Reservation {
  next_plan_id: string;
  using_next_plan_from: number;
  next_plan_tax_rate_id?: string;
  proration_behavior?: PlanHistory['proration_behavior'];
  delete_usage?: boolean;
}

export interface TenantRecord extends TenantProps {
  id: string;
  plan_id?: string;
  billing_info?: BillingInfo;
  reservation?: Reservation;
  plan_histories: PlanHistory[];
  payment_customer?: PaymentCustomer;
  saml?: SamlProps;
  /** The tenant's own OpenID Connect provider (tenant-oidc.ts): an extension the SaaSus operations do not show. */
  oidc?: TenantOidc;
  /** The marketplace customer the tenant is linked to (marketplace.ts links it). */
  marketplace?: MarketplaceLink;
  /** Bumped by every plan change: the optimistic lock of plan updates. */
  rev: number;
  created_at: number;
}

export interface PlanChange {
  plan_id?: string;
  history?: PlanHistory;
  /** The reservation after the change; null removes any. */
  reservation: Reservation | null;
}

/** The tenant fields that simple updates replace, or remove with `null`. */
export interface TenantPatch {
  name?: string;
  attributes?: Record<string, unknown>;
  back_office_staff_email?: string;
  billing_info?: BillingInfo;
  /** null ends the link. */
  payment_customer?: PaymentCustomer | null;
  saml?: SamlProps | null;
  oidc?: TenantOidc | null;
}

export interface TenantRepository {
  create(saasId: string, tenant: TenantRecord): Promise<void>;
  /** The new tenant as part of a larger commit (rule `new_item`). */
  createWrite(saasId: string, tenant: TenantRecord): AtomicWrite;
  /** undefined when missing or being deleted. */
  get(saasId: string, tenantId: string): Promise<TenantRecord | undefined>;
  /** The ids among these of tenants that exist and are not being deleted (strongly consistent, 100 to a read). */
  liveIds(saasId: string, tenantIds: readonly string[]): Promise<Set<string>>;
  list(saasId: string): Promise<TenantRecord[]>;
  patch(saasId: string, tenantId: string, patch: TenantPatch): Promise<boolean>;
  /** Applies the change only if the tenant is still at `expectedRev`. */
  changePlan(saasId: string, tenantId: string, expectedRev: number, change: PlanChange): Promise<boolean>;
  /** Applies the reservation only while it is still the pending one; false when someone else did. */
  applyReservation(saasId: string, tenantId: string, reservation: Reservation, history: PlanHistory): Promise<boolean>;
  dueReservations(saasId: string, now: number): Promise<{ tenantId: string; reservation: Reservation }[]>;
  /** Hides the tenant and removes everything it holds, then the tenant itself. false when missing. */
  delete(saasId: string, tenantId: string): Promise<boolean>;
  /** Clears plans, reservations, histories and payment linkage of every tenant, a page at a time. */
  resetPlans(saasId: string): Promise<number>;
}

/** Reservations must start at least this far ahead (the spec's limits, docs/decisions.md). */
export const MIN_RESERVATION_LEAD_SECONDS = 5 * 60;
const PLAN_UPDATE_ATTEMPTS = 5;

/** A reservation becomes plan history at its reserved time, whenever the worker or a read applied it. */
function historyOf(reservation: Reservation): PlanHistory {
  return {
    plan_id: reservation.next_plan_id,
    plan_applied_at: reservation.using_next_plan_from,
    ...(reservation.next_plan_tax_rate_id ? { tax_rate_id: reservation.next_plan_tax_rate_id } : {}),
    ...(reservation.proration_behavior ? { proration_behavior: reservation.proration_behavior } : {}),
    ...(reservation.delete_usage !== undefined ? { delete_usage: reservation.delete_usage } : {}),
  };
}

/** A tenant as created: no plan, no history. */
export function newTenantRecord(props: TenantProps): TenantRecord {
  return { ...props, id: randomUUID(), plan_histories: [], rev: 0, created_at: nowSeconds() };
}

export const tenantNotFound = (tenantId: string) => notFound('tenant_not_found', `no tenant with id ${tenantId}`);

export function toTenant(record: TenantRecord): Tenant {
  const { reservation } = record;
  return {
    id: record.id,
    name: record.name,
    attributes: record.attributes,
    back_office_staff_email: record.back_office_staff_email,
    ...(record.passkeys_required ? { passkeys_required: true } : {}),
    ...(record.plan_id ? { plan_id: record.plan_id } : {}),
    ...(record.billing_info ? { billing_info: record.billing_info } : {}),
    ...(reservation ?? {}),
    plan_histories: record.plan_histories,
  };
}

/** What tenants ask of the SaaS's pricing catalogue; `no_catalogue` while it has none of the kind. */
export interface PlanCatalogue {
  planStatus(saasId: string, planId: string): Promise<'exists' | 'missing' | 'no_catalogue'>;
  taxRateStatus(saasId: string, taxRateId: string): Promise<'exists' | 'missing' | 'no_catalogue'>;
  /** undefined for a plan the catalogue does not have. */
  planInterval(saasId: string, planId: string): Promise<PlanInterval | undefined>;
}

export class TenantService {
  constructor(
    private readonly tenants: TenantRepository,
    private readonly definitions: DefinitionRepository,
    /** Where a tenant's users start a SAML sign-in: the hosted login screen's `saml` page (web/login/saml/service-provider.ts). */
    private readonly samlSignInUrl: (saasId: string, tenantId: string) => string,
    /** The SaaS's pricing catalogue, where plans, tax rates and billing intervals are checked (shared/domain/pricing). */
    private readonly pricing?: PlanCatalogue,
    /** Whether the SaaS's sign-in settings turn passkeys on: a tenant can require them only then. */
    private readonly passkeysEnabled?: (saasId: string) => Promise<boolean>,
  ) {}

  private async checkProps(saasId: string, props: TenantProps): Promise<void> {
    checkAttributeValues(props.attributes, await this.definitions.listAttributes(saasId, 'tenant'), 'tenant attribute');
    // Required without passkeys on, the members could neither enrol one nor sign in: refused, never a lockout.
    if (props.passkeys_required && this.passkeysEnabled && !(await this.passkeysEnabled(saasId))) {
      throw invalid('passkeys_not_enabled', 'passkeys_required: turn on passkeys in the sign-in settings (passkeys.enable) first', {
        field: 'passkeys_required',
      });
    }
  }

  async create(saasId: string, props: TenantProps): Promise<Tenant> {
    await this.checkProps(saasId, props);
    const record = newTenantRecord(props);
    await this.tenants.create(saasId, record);
    return toTenant(record);
  }

  /** The tenant as of now: a reservation that has come due is applied before it is returned. */
  async current(saasId: string, tenantId: string): Promise<TenantRecord> {
    const record = await this.tenants.get(saasId, tenantId);
    if (!record) throw tenantNotFound(tenantId);
    if (record.reservation && record.reservation.using_next_plan_from <= nowSeconds()) {
      await this.tenants.applyReservation(saasId, tenantId, record.reservation, historyOf(record.reservation));
      const applied = await this.tenants.get(saasId, tenantId);
      if (!applied) throw tenantNotFound(tenantId);
      return applied;
    }
    return record;
  }

  async list(saasId: string): Promise<Tenant[]> {
    const records = await this.tenants.list(saasId);
    const now = nowSeconds();
    const due = records.filter((r) => r.reservation && r.reservation.using_next_plan_from <= now);
    if (due.length === 0) return records.map(toTenant);
    await Promise.all(
      due.map((r) => this.tenants.applyReservation(saasId, r.id, r.reservation as Reservation, historyOf(r.reservation as Reservation))),
    );
    return (await this.tenants.list(saasId)).map(toTenant);
  }

  async details(saasId: string, tenantId: string): Promise<TenantDetail> {
    const record = await this.current(saasId, tenantId);
    const tenant: TenantDetail = toTenant(record);
    const appliedAt = record.plan_id ? record.plan_histories.findLast((h) => h.plan_id === record.plan_id)?.plan_applied_at : undefined;
    if (appliedAt !== undefined) {
      // The plan's own interval where the catalogue has the plan; monthly for plans set before it had them.
      const interval = (await this.pricing?.planInterval(saasId, record.plan_id as string)) ?? 'month';
      const period = currentPlanPeriod(appliedAt, nowSeconds(), interval);
      tenant.current_plan_period_start = period.start;
      tenant.current_plan_period_end = period.end;
    }
    return tenant;
  }

  async update(saasId: string, tenantId: string, props: TenantProps): Promise<void> {
    await this.checkProps(saasId, props);
    if (!(await this.tenants.patch(saasId, tenantId, props))) throw tenantNotFound(tenantId);
  }

  async delete(saasId: string, tenantId: string): Promise<void> {
    if (!(await this.tenants.delete(saasId, tenantId))) throw tenantNotFound(tenantId);
  }

  async updateBillingInfo(saasId: string, tenantId: string, billing: BillingInfo): Promise<void> {
    if (!COUNTRY_CODES.has(billing.address.country)) {
      throw invalid('invalid_parameter', `address.country: '${billing.address.country}' is not an ISO 3166-1 alpha-2 code`, {
        field: 'address.country',
      });
    }
    if (!(await this.tenants.patch(saasId, tenantId, { billing_info: billing }))) throw tenantNotFound(tenantId);
  }

  async updatePlan(saasId: string, tenantId: string, update: PlanUpdate): Promise<void> {
    // Zero values mean "not given" (SDKs without optional fields send them).
    const nextPlanId = update.next_plan_id || undefined;
    const from = update.using_next_plan_from || undefined;
    const taxRateId = update.next_plan_tax_rate_id || undefined;
    if (from !== undefined && nextPlanId === undefined) {
      throw invalid('invalid_parameter', 'next_plan_id: is required with using_next_plan_from', { field: 'next_plan_id' });
    }
    // Once the SaaS has plans, a tenant's plan must be one of them; before, any id is taken (docs/pricing.md).
    if (nextPlanId !== undefined && this.pricing && (await this.pricing.planStatus(saasId, nextPlanId)) === 'missing') {
      throw invalid('pricing_plan_not_found', `next_plan_id: no pricing plan with id ${nextPlanId} (GET /v1/pricing/plans lists them)`, {
        field: 'next_plan_id',
      });
    }
    // The same for the tax rate the plan history records, once the SaaS has tax rates.
    if (nextPlanId !== undefined && taxRateId !== undefined && this.pricing && (await this.pricing.taxRateStatus(saasId, taxRateId)) === 'missing') {
      throw invalid('tax_rate_not_found', `next_plan_tax_rate_id: no tax rate with id ${taxRateId} (GET /v1/pricing/tax-rates lists them)`, {
        field: 'next_plan_tax_rate_id',
      });
    }
    for (let attempt = 0; attempt < PLAN_UPDATE_ATTEMPTS; attempt++) {
      const tenant = await this.current(saasId, tenantId);
      const linked = tenant.payment_customer !== undefined;
      for (const field of ['proration_behavior', 'delete_usage'] as const) {
        if (update[field] !== undefined && !linked) {
          throw invalid(
            'payment_provider_not_linked',
            `${field}: needs the tenant to be linked to a payment-provider customer first: ` +
              "PUT /tenants/{tenant_id}/stripe-customer {customer_id, subscription_schedule_id} (this service's extension), " +
              `or change the plan without ${field}`,
            { field },
          );
        }
      }
      const pending = tenant.reservation;
      if (nextPlanId === undefined && !pending) return;
      if (pending?.delete_usage) {
        throw invalid(
          'reservation_not_cancelable',
          `the plan change reserved for ${pending.using_next_plan_from} deletes usage and cannot be canceled or replaced`,
        );
      }
      const now = nowSeconds();
      const optional = {
        ...(update.proration_behavior !== undefined ? { proration_behavior: update.proration_behavior } : {}),
        ...(update.delete_usage !== undefined ? { delete_usage: update.delete_usage } : {}),
      };
      let change: PlanChange;
      if (nextPlanId === undefined) {
        change = { reservation: null };
      } else if (from === undefined) {
        change = {
          plan_id: nextPlanId,
          history: { plan_id: nextPlanId, plan_applied_at: now, ...(taxRateId ? { tax_rate_id: taxRateId } : {}), ...optional },
          reservation: null,
        };
      } else {
        if (from < now + MIN_RESERVATION_LEAD_SECONDS) {
          throw invalid('invalid_parameter', 'using_next_plan_from: must be at least 5 minutes after now', {
            field: 'using_next_plan_from',
          });
        }
        change = {
          reservation: {
            next_plan_id: nextPlanId,
            using_next_plan_from: from,
            ...(taxRateId ? { next_plan_tax_rate_id: taxRateId } : {}),
            ...optional,
          },
        };
      }
      if (await this.tenants.changePlan(saasId, tenantId, tenant.rev, change)) return;
    }
    throw new DomainError('conflict', 'concurrent_update', 'the tenant plan changed concurrently; try again');
  }

  /** The scheduled worker's job for one SaaS: apply every reservation that has come due. */
  async applyDueReservations(saasId: string): Promise<number> {
    const due = await this.tenants.dueReservations(saasId, nowSeconds());
    const applied = await Promise.all(due.map((d) => this.tenants.applyReservation(saasId, d.tenantId, d.reservation, historyOf(d.reservation))));
    return applied.filter(Boolean).length;
  }

  resetPlans(saasId: string): Promise<number> {
    return this.tenants.resetPlans(saasId);
  }

  async paymentCustomer(saasId: string, tenantId: string): Promise<PaymentCustomer> {
    const tenant = await this.tenants.get(saasId, tenantId);
    if (!tenant) throw tenantNotFound(tenantId);
    if (!tenant.payment_customer) {
      throw notFound('payment_customer_not_found', `tenant ${tenantId} is not linked to a payment-provider customer`);
    }
    return tenant.payment_customer;
  }

  /** Links the tenant to a payment-provider customer; null ends the link. */
  async linkPaymentCustomer(saasId: string, tenantId: string, customer: PaymentCustomer | null): Promise<void> {
    if (!(await this.tenants.patch(saasId, tenantId, { payment_customer: customer }))) throw tenantNotFound(tenantId);
  }

  async identityProvider(saasId: string, tenantId: string): Promise<{ saml?: SamlProps & { sign_in_url: string } }> {
    const tenant = await this.tenants.get(saasId, tenantId);
    if (!tenant) throw tenantNotFound(tenantId);
    if (!tenant.saml) return {};
    return { saml: { ...tenant.saml, sign_in_url: this.samlSignInUrl(saasId, tenantId) } };
  }

  /**
   * null turns the tenant's SAML sign-in off. The identity provider is named by its metadata: at a URL (read
   * at sign-in) or given whole (checked by the tenants function before: saml-metadata.ts).
   */
  async setIdentityProvider(saasId: string, tenantId: string, saml: SamlProps | null): Promise<void> {
    if (saml && !saml.metadata_url && !saml.metadata_xml) {
      throw invalid('invalid_parameter', 'identity_provider_props: give metadata_url or metadata_xml', { field: 'identity_provider_props' });
    }
    if (!(await this.tenants.patch(saasId, tenantId, { saml }))) throw tenantNotFound(tenantId);
  }
}
