/**
 * The public function: its unsigned operations (operations.ts), and API Gateway's `$default` route: every path
 * the route table does not know ends here and gets a 404 or 405 in the service's error shape, or, for a
 * browser opening it, the login screen's "page not found" page, which functions/group-handler.ts gives every
 * API function's pipeline.
 */
import { groupHandler } from '../group-handler.js';
import { publicOperations } from './operations.js';

export const handler = groupHandler('public', publicOperations);
