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
    /** The SaaS's own CloudFormation template when it stored one, else the role template (stack_template_url). */
    cloudformation_template_url: Type.String(),
    /** The SaaS's own DDL template, or '' when it stored none. */
    ddl_template_url: Type.String(),
  },
  {
    $id: 'InfrastructureSettings',
    description:
      "stack_template_url: the role template; cloudformation_template_url: the SaaS's own template when stored, else the role template; ddl_template_url: the SaaS's DDL template, or ''. Signed URLs, valid an hour.",
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
      /** The id the role's trust policy demands; set it to keep a role made elsewhere. '' keeps the stored one. */
      role_external_id: Type.Optional(
        Type.Union([Type.String({ minLength: 2, maxLength: 1224, pattern: '^[\\w+=,.@:/-]+$' }), Type.Literal('')], {
          description: "kept as given; '' keeps the stored one",
        }),
      ),
      // Base64 of UTF-8 text; the size caps are checked on the decoded bytes (domain/configuration/infrastructure.ts).
      cloudformation_template: Type.Optional(
        Type.String({
          maxLength: 70_000,
          description: "base64 of the SaaS's CloudFormation template, at most 51,200 bytes; '' keeps the stored one",
        }),
      ),
      ddl_template: Type.Optional(
        Type.String({ maxLength: 90_000, description: "base64 of the SaaS's DDL template, at most 65,536 bytes; '' keeps the stored one" }),
      ),
    }),
  },
} satisfies Record<string, OperationSchema>;

export const roleTemplateSchema = {
  query: Type.Object({
    saas_id: Type.String({ maxLength: 64 }),
    expires: Type.Integer({ minimum: 0 }),
    signature: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'lower-case hex' }),
    template: Type.Optional(
      Type.Union([Type.Literal('cloudformation'), Type.Literal('ddl')], {
        description: "one of the SaaS's own templates; absent: the role template",
      }),
    ),
  }),
  response: Type.Object({}, { additionalProperties: true, description: "the role template (JSON), or the SaaS's own template as text/plain" }),
} satisfies OperationSchema;
