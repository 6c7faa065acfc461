/**
 * Single-tenant infrastructure settings: whether the SaaS lets the service manage stacks in its own AWS
 * account, through a cross-account role it creates from our CloudFormation template. The SaaS may keep its
 * own CloudFormation and DDL templates here too (the SDKs' updateSingleTenantSettings sends them, base64);
 * the launch-stack link then uses its CloudFormation template. Every template is reached through a signed
 * URL that expires after an hour.
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
  /**
   * The key of the template URLs' signatures. Documents made before the external id could be chosen by the
   * SaaS lack it and sign with that (then random) id; a chosen id may be guessable, so every write sets it.
   */
  url_key?: string;
  /** Which of the SaaS's own templates are stored (each in its own document: they are large). */
  templates?: TemplateKind[];
}

export type TemplateKind = 'cloudformation' | 'ddl';
/** The template served at a signed URL: the service's role template, or one the SaaS stored. */
export type ServedTemplate = 'role' | TemplateKind;

/** A SaaS's own template, as text, with how to serve it. */
export interface StoredTemplate {
  kind: TemplateKind;
  text: string;
}

/**
 * The largest templates kept, decoded: CloudFormation's own limit for a template given inline (51,200
 * bytes), and the same order for a DDL script. Both together stay far below DynamoDB's item size.
 */
export const TEMPLATE_MAX_BYTES: Readonly<Record<TemplateKind, number>> = { cloudformation: 51_200, ddl: 65_536 };

const DOCUMENT = 'infrastructure';
const templateDocument = (kind: TemplateKind) => `infrastructure-template-${kind}`;
export const TEMPLATE_URL_LIFETIME_SECONDS = 3600;

const urlKeyOf = (doc: InfrastructureDocument) => doc.url_key ?? doc.role_external_id;

function templateSignature(key: string, saasId: string, expires: number, template: ServedTemplate): string {
  // The role template's message is unchanged from before custom templates, so its URLs stay valid.
  return createHmac('sha256', key)
    .update(template === 'role' ? `${saasId}.${expires}` : `${saasId}.${expires}.${template}`)
    .digest('hex');
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A template as the SDKs send it (base64 of a UTF-8 text file), decoded and checked; '' counts as not given. */
function decodeTemplate(kind: TemplateKind, base64: string | undefined): string | undefined {
  if (!base64) return undefined;
  const field = `${kind}_template`;
  if (!BASE64.test(base64)) throw invalid('invalid_parameter', `${field}: is not base64`, { field });
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length > TEMPLATE_MAX_BYTES[kind]) {
    throw invalid('template_too_large', `${field}: ${bytes.length} bytes; at most ${TEMPLATE_MAX_BYTES[kind]} are kept`, { field });
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalid('invalid_parameter', `${field}: is not UTF-8 text`, { field });
  }
}

/** The deployment's facts the infrastructure settings name (the wiring passes them). */
export interface Deployment {
  /** The AWS account the service runs in: the one the cross-account role trusts. */
  serviceAccountId: string;
  /** The API's public base URL (configuration, never the request's Host): template URLs start with it. */
  publicBaseUrl: string;
  /** The region whose CloudFormation console the Launch Stack link opens. */
  region: string;
}

export class InfrastructureService {
  constructor(
    private readonly settings: SettingsRepository,
    private readonly deployment: Deployment,
  ) {}

  /** The first read makes the SaaS's external id; it never changes after that. */
  private document(saasId: string): Promise<InfrastructureDocument> {
    return this.settings.putIfAbsent<InfrastructureDocument>(saasId, DOCUMENT, {
      enabled: false,
      role_arn: '',
      role_external_id: randomBytes(16).toString('hex'),
      url_key: randomBytes(32).toString('hex'),
    });
  }

  private templateUrl(saasId: string, doc: InfrastructureDocument, template: ServedTemplate): string {
    const expires = nowSeconds() + TEMPLATE_URL_LIFETIME_SECONDS;
    const query = new URLSearchParams({
      saas_id: saasId,
      expires: String(expires),
      ...(template === 'role' ? {} : { template }),
      signature: templateSignature(urlKeyOf(doc), saasId, expires, template),
    });
    return `${this.deployment.publicBaseUrl}/single-tenant/role-template?${query}`;
  }

  async read(saasId: string): Promise<InfrastructureSettings> {
    const doc = await this.document(saasId);
    const stored = doc.templates ?? [];
    const roleTemplateUrl = this.templateUrl(saasId, doc, 'role');
    return {
      enabled: doc.enabled,
      role_arn: doc.role_arn,
      role_external_id: doc.role_external_id,
      stack_template_url: roleTemplateUrl,
      cloudformation_template_url: stored.includes('cloudformation') ? this.templateUrl(saasId, doc, 'cloudformation') : roleTemplateUrl,
      ddl_template_url: stored.includes('ddl') ? this.templateUrl(saasId, doc, 'ddl') : '',
    };
  }

  /**
   * Get CloudFormation Launch Stack Link: the console's quick-create page, in the service's region, for the SaaS's own
   * CloudFormation template when it stored one, else for the role template.
   */
  async launchStackLink(saasId: string): Promise<{ link: string }> {
    const { region } = this.deployment;
    const { cloudformation_template_url: templateUrl } = await this.read(saasId);
    const query = new URLSearchParams({ templateURL: templateUrl, stackName: 'SaaSIdentityCrossAccountRole' });
    return { link: `https://${region}.console.aws.amazon.com/cloudformation/home?region=${region}#/stacks/quickcreate?${query}` };
  }

  async update(
    saasId: string,
    change: { enabled?: boolean; role_arn?: string; role_external_id?: string; cloudformation_template?: string; ddl_template?: string },
  ): Promise<void> {
    const templates = {
      cloudformation: decodeTemplate('cloudformation', change.cloudformation_template),
      ddl: decodeTemplate('ddl', change.ddl_template),
    };
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
    // As given ('' counts as not given, as SDKs without optional fields send it).
    const externalId = change.role_external_id || doc.role_external_id;
    const kept = new Set(doc.templates ?? []);
    for (const kind of ['cloudformation', 'ddl'] as const) {
      const text = templates[kind];
      if (text === undefined) continue;
      // The template first: the settings never name one that is not there.
      await this.settings.put<StoredTemplate>(saasId, templateDocument(kind), { kind, text });
      kept.add(kind);
    }
    await this.settings.put(saasId, DOCUMENT, {
      ...doc,
      enabled,
      role_arn: roleArn,
      role_external_id: externalId,
      url_key: doc.url_key ?? randomBytes(32).toString('hex'),
      ...(kept.size ? { templates: [...kept].sort() } : {}),
    });
  }

  /** The CloudFormation template behind a signed URL; a wrong, altered or expired URL finds nothing. */
  async roleTemplate(
    saasId: string,
    expires: number,
    signature: string,
    template: ServedTemplate = 'role',
  ): Promise<Record<string, unknown> | StoredTemplate> {
    const missing = notFound('template_not_found', 'this template URL is not valid or has expired; read the settings again for a new one');
    const now = nowSeconds();
    if (expires < now || expires > now + TEMPLATE_URL_LIFETIME_SECONDS) throw missing;
    const doc = await this.settings.get<InfrastructureDocument>(saasId, DOCUMENT);
    if (!doc) throw missing;
    const expected = Buffer.from(templateSignature(urlKeyOf(doc), saasId, expires, template), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) throw missing;
    if (template !== 'role') {
      const stored = await this.settings.get<StoredTemplate>(saasId, templateDocument(template));
      if (!stored) throw missing;
      return stored;
    }
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
                  Principal: { AWS: `arn:aws:iam::${this.deployment.serviceAccountId}:root` },
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
