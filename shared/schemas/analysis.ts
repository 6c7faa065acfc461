/**
 * The SaaSus Analysis API (/v1/analysis), as its published definition (analysisapi.yml) names members and types:
 * active users, users' page histories and page statistics, and counts of creates and GetUserInfo calls per day
 * (shared/domain/analysis). Lengths are this service's (the definition gives none).
 */
import * as Type from '@sinclair/typebox';
import type { OperationSchema } from './operation.js';
import { Uuid } from './common.js';

const Date10 = (description: string) => Type.String({ minLength: 7, maxLength: 10, description });
const Type_ = Type.Union([Type.Literal('daily'), Type.Literal('monthly')]);
const EnvId = Type.Integer({ minimum: 0, maximum: 2 ** 53 - 1 });
const Seconds = Type.Integer({ minimum: 0, maximum: 253_402_300_799 });
const History = Type.Object({ timestamp: Seconds, referer: Type.String({ maxLength: 2048 }) });

const ActiveUserData = Type.Object({ date: Type.String(), tenant_id: Type.String(), env_id: Type.Integer(), active_users: Type.Integer() });
const TenantIds = Type.Optional(Type.String({ maxLength: 10_000, description: 'tenant ids, repeated or separated by commas' }));
const Range = { start_date: Date10('YYYY-MM-DD'), end_date: Date10('YYYY-MM-DD'), tenant_ids: TenantIds };
const noBody = {} satisfies OperationSchema;

export const analysisSchemas = {
  updateUserBehaviorHistoriesByDay: {
    body: Type.Object({ timestamp: Seconds, user_id: Uuid, histories: Type.Array(History, { maxItems: 10_000 }) }),
    maxBodyBytes: 2 * 1024 * 1024,
  },
  getUserBehaviorHistories: {
    params: Type.Object({ user_id: Uuid }),
    response: Type.Object(
      { histories: Type.Array(Type.Object({ behaved_at: Type.Integer(), histories: Type.Array(History) })) },
      { $id: 'UserBehaviorHistories' },
    ),
  },
  getActiveUsers: {
    query: Type.Object({
      type: Type_,
      date_from: Date10('YYYY-MM (monthly) or YYYY-MM-DD (daily)'),
      date_to: Type.Optional(Date10('YYYY-MM (monthly) or YYYY-MM-DD (daily)')),
      tenant_id: Type.Optional(Uuid),
      env_id: Type.Optional(EnvId),
    }),
    response: Type.Object({ data: Type.Array(ActiveUserData) }, { $id: 'ActiveUsers' }),
  },
  updateActiveUsers: {
    body: Type.Object({
      type: Type_,
      date: Date10('YYYY-MM (monthly) or YYYY-MM-DD (daily)'),
      tenant_id: Uuid,
      env_id: EnvId,
      active_users: Type.Integer({ minimum: 0, maximum: 2 ** 53 - 1 }),
    }),
  },
  getAggregatedMetrics: {
    query: Type.Object({
      metrics_type: Type.Union([Type.Literal('create_tenant'), Type.Literal('create_saas_user'), Type.Literal('create_tenant_user')]),
      ...Range,
    }),
    response: Type.Object(
      {
        metrics: Type.Array(
          Type.Object({ date: Type.String(), count: Type.Integer(), details: Type.Optional(Type.Record(Type.String(), Type.Integer())) }),
        ),
      },
      { $id: 'AggregatedMetrics' },
    ),
  },
  getPageStatistics: {
    query: Type.Object({ start_timestamp: Seconds, end_timestamp: Seconds }),
    response: Type.Object(
      {
        start_date: Type.Integer(),
        end_date: Type.Integer(),
        total_page_views: Type.Integer(),
        total_unique_users: Type.Integer(),
        page_statistics: Type.Array(Type.Object({ page_url: Type.String(), total_views: Type.Integer(), unique_users: Type.Integer() })),
      },
      { $id: 'PageStatistics' },
    ),
  },
  getAggregatedUserInfo: {
    query: Type.Object(Range),
    response: Type.Object(
      { metrics: Type.Array(Type.Object({ date: Type.String(), details: Type.Record(Type.String(), Type.Integer()) })) },
      { $id: 'AggregatedUserInfoMetrics' },
    ),
  },
  returnAnalysisInternalServerError: noBody,
} satisfies Record<string, OperationSchema>;
