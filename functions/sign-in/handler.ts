/** The sign-in group. Its operations come with their issue; until then each route answers 501 not_implemented. */
import { createGroupHandler } from '../../shared/http/pipeline.js';

export const handler = createGroupHandler('sign-in', {});
