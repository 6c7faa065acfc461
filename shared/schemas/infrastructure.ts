import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { OperationSchema } from '../http/operation.js';

/** arn:aws:iam::123456789012:role/path/Name (any AWS partition). */
export const RoleArn = Type.String({
  maxLength: 2048,
  pattern: '^arn:aws(-[a-z]+)*:iam::\\d{12}:role/[\\w+=,.@/-]{1,512}$',
  description: 'an IAM role ARN such as arn:aws:iam::123456789012:role/SaaSusCrossAccount',
});

export const InfrastructureSettings = Type.Object(
  {
    enabled: Type.Boolean(),
    role_arn: Type.String(),
    role_external_id: Type.String(),
    stack_template_url: Type.String(),
  },
  { $id: 'InfrastructureSettings' },
);
export type InfrastructureSettings = Static<typeof InfrastructureSettings>;

export const infrastructureSchemas = {
  getSingleTenantSettings: { response: InfrastructureSettings },
  updateSingleTenantSettings: {
    body: Type.Object({
      enabled: Type.Optional(Type.Boolean()),
      role_arn: Type.Optional(Type.Union([RoleArn, Type.Literal('')], { description: RoleArn.description })),
    }),
  },
} satisfies Record<string, OperationSchema>;

export const roleTemplateSchema = {
  query: Type.Object({
    saas_id: Type.String({ maxLength: 64 }),
    expires: Type.Integer({ minimum: 0 }),
    signature: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'lower-case hex' }),
  }),
  response: Type.Object({}, { additionalProperties: true }),
} satisfies OperationSchema;
