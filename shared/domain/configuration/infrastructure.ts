/**
 * Single-tenant infrastructure settings: whether the SaaS lets the service manage stacks in its own AWS
 * account, through a cross-account role it creates from our CloudFormation template. The template is
 * reached through a signed URL that expires after an hour.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { nowSeconds } from '../../clock.js';
import { invalid, notFound } from '../../errors.js';
import type { InfrastructureSettings } from '../../schemas/infrastructure.js';
import type { SettingsRepository } from './settings.js';

interface InfrastructureDocument {
  enabled: boolean;
  role_arn: string;
  role_external_id: string;
}

const DOCUMENT = 'infrastructure';
export const TEMPLATE_URL_LIFETIME_SECONDS = 3600;

function templateSignature(externalId: string, saasId: string, expires: number): string {
  return createHmac('sha256', externalId).update(`${saasId}.${expires}`).digest('hex');
}

export class InfrastructureService {
  constructor(
    private readonly settings: SettingsRepository,
    /** The AWS account the service runs in: the one the cross-account role trusts. */
    private readonly serviceAccountId: string,
  ) {}

  /** The first read makes the SaaS's external id; it never changes after that. */
  private document(saasId: string): Promise<InfrastructureDocument> {
    return this.settings.putIfAbsent<InfrastructureDocument>(saasId, DOCUMENT, {
      enabled: false,
      role_arn: '',
      role_external_id: randomBytes(16).toString('hex'),
    });
  }

  /** `baseUrl`: the API's public base URL (configuration, never the request's Host). */
  async read(saasId: string, baseUrl: string): Promise<InfrastructureSettings> {
    const doc = await this.document(saasId);
    const expires = nowSeconds() + TEMPLATE_URL_LIFETIME_SECONDS;
    const query = new URLSearchParams({
      saas_id: saasId,
      expires: String(expires),
      signature: templateSignature(doc.role_external_id, saasId, expires),
    });
    const templateUrl = `${baseUrl}/single-tenant/role-template?${query}`;
    return { ...doc, stack_template_url: templateUrl, cloudformation_template_url: templateUrl, ddl_template_url: '' };
  }

  /** Get CloudFormation Launch Stack Link: the console's quick-create page for the role template, in `region`. */
  async launchStackLink(saasId: string, baseUrl: string, region: string): Promise<{ link: string }> {
    const { stack_template_url: templateUrl } = await this.read(saasId, baseUrl);
    const query = new URLSearchParams({ templateURL: templateUrl, stackName: 'SaaSIdentityCrossAccountRole' });
    return { link: `https://${region}.console.aws.amazon.com/cloudformation/home?region=${region}#/stacks/quickcreate?${query}` };
  }

  async update(
    saasId: string,
    change: { enabled?: boolean; role_arn?: string; role_external_id?: string; cloudformation_template?: string; ddl_template?: string },
  ): Promise<void> {
    for (const field of ['cloudformation_template', 'ddl_template'] as const) {
      if (change[field]) {
        throw invalid(
          'template_not_supported',
          `${field}: custom templates are not kept; the role template is served at cloudformation_template_url`,
          { field },
        );
      }
    }
    // Checked against what is stored before anything is written: a refused change must not make the document.
    const stored = await this.settings.get<InfrastructureDocument>(saasId, DOCUMENT);
    const enabled = change.enabled ?? stored?.enabled ?? false;
    const roleArn = change.role_arn ?? stored?.role_arn ?? '';
    if (enabled && !roleArn) {
      throw invalid(
        'role_arn_required',
        'role_arn: enabling needs the ARN of the role created from stack_template_url (arn:aws:iam::<account>:role/<name>)',
        { field: 'role_arn' },
      );
    }
    const doc = stored ?? (await this.document(saasId));
    const externalId = change.role_external_id ?? doc.role_external_id;
    await this.settings.put(saasId, DOCUMENT, { ...doc, enabled, role_arn: roleArn, role_external_id: externalId });
  }

  /** The CloudFormation template behind a signed URL; a wrong, altered or expired URL finds nothing. */
  async roleTemplate(saasId: string, expires: number, signature: string): Promise<Record<string, unknown>> {
    const missing = notFound('template_not_found', 'this template URL is not valid or has expired; read the settings again for a new one');
    const now = nowSeconds();
    if (expires < now || expires > now + TEMPLATE_URL_LIFETIME_SECONDS) throw missing;
    const doc = await this.settings.get<InfrastructureDocument>(saasId, DOCUMENT);
    if (!doc) throw missing;
    const expected = Buffer.from(templateSignature(doc.role_external_id, saasId, expires), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) throw missing;
    return {
      AWSTemplateFormatVersion: '2010-09-09',
      Description: 'Cross-account role that lets the identity service manage single-tenant stacks in this account',
      Resources: {
        CrossAccountRole: {
          Type: 'AWS::IAM::Role',
          Properties: {
            AssumeRolePolicyDocument: {
              Version: '2012-10-17',
              Statement: [
                {
                  Effect: 'Allow',
                  Principal: { AWS: `arn:aws:iam::${this.serviceAccountId}:root` },
                  Action: 'sts:AssumeRole',
                  Condition: { StringEquals: { 'sts:ExternalId': doc.role_external_id } },
                },
              ],
            },
            ManagedPolicyArns: ['arn:aws:iam::aws:policy/AWSCloudFormationFullAccess'],
          },
        },
      },
      Outputs: { RoleArn: { Value: { 'Fn::GetAtt': ['CrossAccountRole', 'Arn'] } } },
    };
  }
}
