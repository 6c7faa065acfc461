/** The Pricing API's metering counts: the hot path, alone in its function so its cold starts load nothing else. */
import { operation } from '../../shared/schemas/operation.js';
import { meteringSchemas as s } from '../../shared/schemas/pricing.js';
import { groupHandler } from '../group-handler.js';
import { meteringService as metering } from '../../shared/wiring.js';

export const handler = groupHandler('metering', {
  getMeteringUnitDateCountByTenantIdAndUnitNameAndDate: operation(s.getMeteringUnitDateCountByTenantIdAndUnitNameAndDate, ({ params }, ctx) =>
    metering().dateCount(ctx.saasId, params.tenant_id, params.metering_unit_name, params.date),
  ),
  updateMeteringUnitTimestampCount: operation(s.updateMeteringUnitTimestampCount, ({ params, body }, ctx) =>
    metering().update(ctx.saasId, params.tenant_id, params.metering_unit_name, params.timestamp, body),
  ),
  deleteMeteringUnitTimestampCount: operation(s.deleteMeteringUnitTimestampCount, ({ params }, ctx) =>
    metering().deleteTimestamp(ctx.saasId, params.tenant_id, params.metering_unit_name, params.timestamp),
  ),
  getMeteringUnitDateCountByTenantIdAndUnitNameToday: operation(s.getMeteringUnitDateCountByTenantIdAndUnitNameToday, ({ params }, ctx) =>
    metering().dateCount(ctx.saasId, params.tenant_id, params.metering_unit_name, 'today'),
  ),
  updateMeteringUnitTimestampCountNow: operation(s.updateMeteringUnitTimestampCountNow, ({ params, body }, ctx) =>
    metering().update(ctx.saasId, params.tenant_id, params.metering_unit_name, 'now', body),
  ),
  getMeteringUnitMonthCountByTenantIdAndUnitNameThisMonth: operation(s.getMeteringUnitMonthCountByTenantIdAndUnitNameThisMonth, ({ params }, ctx) =>
    metering().monthCount(ctx.saasId, params.tenant_id, params.metering_unit_name, 'this'),
  ),
  getMeteringUnitMonthCountByTenantIdAndUnitNameAndMonth: operation(s.getMeteringUnitMonthCountByTenantIdAndUnitNameAndMonth, ({ params }, ctx) =>
    metering().monthCount(ctx.saasId, params.tenant_id, params.metering_unit_name, params.month),
  ),
  getMeteringUnitDateCountsByTenantIdAndDate: operation(s.getMeteringUnitDateCountsByTenantIdAndDate, ({ params }, ctx) =>
    metering().dateCounts(ctx.saasId, params.tenant_id, params.date),
  ),
  getMeteringUnitMonthCountsByTenantIdAndMonth: operation(s.getMeteringUnitMonthCountsByTenantIdAndMonth, ({ params }, ctx) =>
    metering().monthCounts(ctx.saasId, params.tenant_id, params.month),
  ),
  getMeteringUnitDateCountByTenantIdAndUnitNameAndDatePeriod: operation(
    s.getMeteringUnitDateCountByTenantIdAndUnitNameAndDatePeriod,
    ({ params, query }, ctx) =>
      metering().period(ctx.saasId, params.tenant_id, params.metering_unit_name, query.start_timestamp, query.end_timestamp),
  ),
});
