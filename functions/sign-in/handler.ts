/** The sign-in group. Routes without an operation yet answer 501 not_implemented until their issue lands. */
import { createGroupHandler } from '../../shared/http/pipeline.js';
import { signUpOperations } from './sign-up-operations.js';

export const handler = createGroupHandler('sign-in', { ...signUpOperations });
