/**
 * The Analysis API's operations (/v1/analysis, shared/domain/analysis), served by the pricing group's function
 * (shared/routes.ts): a few reads and small writes, not worth a function of their own.
 */
import { AnalysisService } from '../../shared/domain/analysis/analysis.js';
import { HttpProblem } from '../../shared/http/errors.js';
import { analysisSchemas as s } from '../../shared/schemas/analysis.js';
import { operation } from '../../shared/schemas/operation.js';
import { analysisRepository, apiLogReads } from '../../shared/wiring.js';
import { nowSeconds } from '../../shared/clock.js';

const analysis = () => new AnalysisService({ analysis: analysisRepository(), logs: apiLogReads(), now: nowSeconds });

export const analysisOperations = {
  updateUserBehaviorHistoriesByDay: operation(s.updateUserBehaviorHistoriesByDay, ({ body }, ctx) => analysis().updateBehaviorDay(ctx.saasId, body)),
  getUserBehaviorHistories: operation(s.getUserBehaviorHistories, ({ params }, ctx) => analysis().behaviorHistories(ctx.saasId, params.user_id)),
  getActiveUsers: operation(s.getActiveUsers, ({ query }, ctx) => analysis().activeUsers(ctx.saasId, query)),
  updateActiveUsers: operation(s.updateActiveUsers, ({ body }, ctx) => analysis().updateActiveUsers(ctx.saasId, body)),
  getAggregatedMetrics: operation(s.getAggregatedMetrics, ({ query }, ctx) => analysis().aggregatedMetrics(ctx.saasId, query)),
  getPageStatistics: operation(s.getPageStatistics, ({ query }, ctx) =>
    analysis().pageStatistics(ctx.saasId, query.start_timestamp, query.end_timestamp),
  ),
  getAggregatedUserInfo: operation(s.getAggregatedUserInfo, ({ query }, ctx) => analysis().aggregatedUserInfo(ctx.saasId, query)),
  returnAnalysisInternalServerError: operation(s.returnAnalysisInternalServerError, async () => {
    throw new HttpProblem(500, 'internal_server_error', 'Internal server error (GET /errors/internal-server-error always answers this)');
  }),
};
