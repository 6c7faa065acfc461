import * as Type from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { OperationSchema } from './operation.js';

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
    /** The SDKs' name of stack_template_url: the same link. */
    cloudformation_template_url: Type.String(),
    /** No DDL template is kept by this service: always ''. */
    ddl_template_url: Type.String(),
  },
  {
    $id: 'InfrastructureSettings',
    description: "cloudformation_template_url is the SDK name of stack_template_url; ddl_template_url is '' (no DDL template is kept)",
  },
);
export type InfrastructureSettings = Static<typeof InfrastructureSettings>;

export const infrastructureSchemas = {
  getSingleTenantSettings: { response: InfrastructureSettings },
  getCloudFormationLaunchStackLinkForSingleTenant: { response: Type.Object({ link: Type.String() }) },
  updateSingleTenantSettings: {
    body: Type.Object({
      enabled: Type.Optional(Type.Boolean()),
      role_arn: Type.Optional(Type.Union([RoleArn, Type.Literal('')], { description: RoleArn.description })),
      /** The id the role's trust policy demands; set it to keep a role made elsewhere. */
      role_external_id: Type.Optional(Type.String({ minLength: 2, maxLength: 1224, pattern: '^[\\w+=,.@:/-]+$' })),
      // Custom templates are not kept (the service serves its own role template): refused when given, never dropped.
      cloudformation_template: Type.Optional(Type.String({ description: "not supported: only '' is accepted" })),
      ddl_template: Type.Optional(Type.String({ description: "not supported: only '' is accepted" })),
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
