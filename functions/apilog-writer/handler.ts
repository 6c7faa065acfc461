/**
 * The API log writer: CloudWatch Logs' subscription filters deliver it the lines the API functions and the
 * sign-in screens wrote for it (shared/domain/apilog/shipped-lines.ts), and it writes the records and the
 * sign-in counts a batch at a time. No route: not an entry of the API (lib/service-stack.ts).
 */
import { observed } from '../../shared/observability.js';
import { writeSubscribedLogs } from '../../shared/wiring.js';

export const handler = observed(writeSubscribedLogs);
