/**
 * A SaaS's own domain for its login screen: an ACM certificate that a DNS record the SaaS adds validates, then
 * an API Gateway custom domain with that certificate, mapped to the service's API, which the SaaS's CNAME
 * targets. Locally a stand-in answers records of the same shape and never sees the domain in DNS.
 */
import { createHash } from 'node:crypto';
import { resolveCname } from 'node:dns/promises';
import { ACMClient, DescribeCertificateCommand, RequestCertificateCommand } from '@aws-sdk/client-acm';
import {
  ApiGatewayV2Client,
  ConflictException,
  CreateApiMappingCommand,
  CreateDomainNameCommand,
  GetDomainNameCommand,
} from '@aws-sdk/client-apigatewayv2';
import type { SiteDomainPort } from '../domain/configuration/configuration.js';
import type { DnsRecord } from '../schemas/configuration.js';
import { traced } from '../observability.js';

const hashOf = (text: string, length: number) => createHash('sha256').update(text).digest('hex').slice(0, length);

/** Whether `domain`'s CNAME is `target` now (a name that does not resolve is not). */
async function cnamePointsAt(domain: string, target: string): Promise<boolean> {
  const bare = (name: string) => name.replace(/\.$/, '').toLowerCase();
  try {
    return (await resolveCname(domain)).some((name) => bare(name) === bare(target));
  } catch {
    return false;
  }
}

export class AwsSiteDomains implements SiteDomainPort {
  constructor(
    private readonly acm: ACMClient,
    private readonly apiGateway: ApiGatewayV2Client,
    /** The service's HTTP API, which the domain serves ($default stage). */
    private readonly apiId: string,
  ) {}

  async requestCertificate(domain: string): Promise<string> {
    // The same domain asked again within the hour gets the same certificate.
    const out = await this.acm.send(
      new RequestCertificateCommand({ DomainName: domain, ValidationMethod: 'DNS', IdempotencyToken: hashOf(domain, 32) }),
    );
    if (!out.CertificateArn) throw new Error(`ACM made no certificate for ${domain}`);
    return out.CertificateArn;
  }

  async certificate(certificateId: string): Promise<{ record?: DnsRecord; issued: boolean }> {
    const { Certificate } = await this.acm.send(new DescribeCertificateCommand({ CertificateArn: certificateId }));
    const record = Certificate?.DomainValidationOptions?.[0]?.ResourceRecord;
    return {
      ...(record?.Name && record.Value ? { record: { type: 'CNAME' as const, name: record.Name, value: record.Value } } : {}),
      issued: Certificate?.Status === 'ISSUED',
    };
  }

  async serve(domain: string, certificateId: string): Promise<string> {
    let target: string | undefined;
    try {
      const made = await this.apiGateway.send(
        new CreateDomainNameCommand({
          DomainName: domain,
          DomainNameConfigurations: [{ CertificateArn: certificateId, EndpointType: 'REGIONAL', SecurityPolicy: 'TLS_1_2' }],
        }),
      );
      target = made.DomainNameConfigurations?.[0]?.ApiGatewayDomainName;
    } catch (error) {
      if (!(error instanceof ConflictException)) throw error;
      target = (await this.apiGateway.send(new GetDomainNameCommand({ DomainName: domain }))).DomainNameConfigurations?.[0]?.ApiGatewayDomainName;
    }
    try {
      await this.apiGateway.send(new CreateApiMappingCommand({ DomainName: domain, ApiId: this.apiId, Stage: '$default' }));
    } catch (error) {
      if (!(error instanceof ConflictException)) throw error;
    }
    if (!target) throw new Error(`API Gateway answered no target name for ${domain}`);
    return target;
  }

  pointsAt(domain: string, target: string): Promise<boolean> {
    return cnamePointsAt(domain, target);
  }
}

/**
 * Local mode: a certificate issued at once with a validation record of ACM's shape and a made-up target. Nothing
 * serves the domain on a laptop, so it never goes live (and no DNS is asked: the machine may have none).
 */
export class LocalSiteDomains implements SiteDomainPort {
  /** The region the made-up targets name, as API Gateway's would. */
  constructor(private readonly region: string) {}

  async requestCertificate(domain: string): Promise<string> {
    return `local-certificate:${domain}`;
  }

  async certificate(certificateId: string): Promise<{ record: DnsRecord; issued: boolean }> {
    const domain = certificateId.replace(/^local-certificate:/, '');
    return {
      record: { type: 'CNAME', name: `_${hashOf(`${domain}#name`, 32)}.${domain}.`, value: `_${hashOf(`${domain}#value`, 32)}.acm-validations.aws.` },
      issued: true,
    };
  }

  async serve(domain: string): Promise<string> {
    return `d-${hashOf(domain, 10)}.execute-api.${this.region}.amazonaws.com`;
  }

  async pointsAt(): Promise<boolean> {
    return false;
  }
}

/** What the wiring passes: the region, whether this is local mode, and the service's HTTP API id (API_ID). */
export interface SiteDomainSettings {
  region: string;
  local: boolean;
  apiId: string | undefined;
}

/** Built once per cold start, in the region of the first call: a process serves one region. */
let clients: { acm: ACMClient; apiGateway: ApiGatewayV2Client } | undefined;

/** ACM and API Gateway on AWS (the configuration function only), the stand-in under npm start and the tests. */
export function siteDomains({ region, local, apiId }: SiteDomainSettings): SiteDomainPort {
  if (local) return new LocalSiteDomains(region);
  if (!apiId) throw new Error('API_ID is required to serve a SaaS domain (the stack sets it on the configuration function)');
  clients ??= { acm: traced(new ACMClient({ region })), apiGateway: traced(new ApiGatewayV2Client({ region })) };
  return new AwsSiteDomains(clients.acm, clients.apiGateway, apiId);
}
