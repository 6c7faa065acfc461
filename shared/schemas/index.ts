/** Every operation's schema by operation id: validation in the handlers, and the OpenAPI document. */
import type { OperationSchema } from '../http/operation.js';
import { definitionSchemas } from './definitions.js';

export const OPERATION_SCHEMAS: Record<string, OperationSchema> = {
  ...definitionSchemas,
};
