/**
 * The public function: its unsigned operations (operations.ts), and API Gateway's `$default` route: every path
 * the route table does not know ends here and gets a 404 or 405 in the service's error shape, or, for a
 * browser opening it, the login screen's "page not found" page. The page is the pipeline's UnmatchedPage port
 * (shared/http/pipeline.ts), filled here, where the function is put together, so the operations import nothing
 * of web/.
 */
import { groupHandler } from '../../shared/wiring.js';
import { unmatchedPage } from '../../web/login/unmatched-page.js';
import { publicOperations } from './operations.js';

export const handler = groupHandler('public', unmatchedPage, publicOperations);
