/** The ApiLog API: the record of every signed call of this SaaS (shared/domain/apilog). */
import { HttpProblem } from '../../shared/http/errors.js';
import { operation } from '../../shared/schemas/operation.js';
import { apiLogSchemas as s } from '../../shared/schemas/apilog.js';
import { groupHandler } from '../group-handler.js';
import { apiLogService } from '../../shared/wiring.js';

export const handler = groupHandler('apilog', {
  getLogs: operation(s.getLogs, ({ query }, ctx) => apiLogService().list(ctx.saasId, query)),
  getLog: operation(s.getLog, ({ params }, ctx) => apiLogService().get(ctx.saasId, params.api_log_id)),
  returnApiLogInternalServerError: operation(s.returnApiLogInternalServerError, async () => {
    throw new HttpProblem(500, 'internal_server_error', 'Internal server error (GET /errors/internal-server-error always answers this)');
  }),
});
