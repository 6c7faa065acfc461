/** E-mail sending identities: SES v2 on AWS; a stand-in with stable, made-up DKIM tokens locally. */
import { createHash } from 'node:crypto';
import {
  AlreadyExistsException,
  CreateEmailIdentityCommand,
  GetAccountCommand,
  GetEmailIdentityCommand,
  NotFoundException,
  type SESv2Client,
} from '@aws-sdk/client-sesv2';
import type { EmailIdentityPort } from '../../domain/configuration/configuration.js';

export class SesEmailIdentities implements EmailIdentityPort {
  constructor(private readonly ses: SESv2Client) {}

  async ensure(domain: string): Promise<{ dkimTokens: string[]; verified: boolean }> {
    try {
      const out = await this.ses.send(new CreateEmailIdentityCommand({ EmailIdentity: domain }));
      return { dkimTokens: out.DkimAttributes?.Tokens ?? [], verified: out.VerifiedForSendingStatus ?? false };
    } catch (error) {
      if (!(error instanceof AlreadyExistsException)) throw error;
      return (await this.status(domain)) ?? { dkimTokens: [], verified: false };
    }
  }

  async status(domain: string): Promise<{ dkimTokens: string[]; verified: boolean } | undefined> {
    try {
      const out = await this.ses.send(new GetEmailIdentityCommand({ EmailIdentity: domain }));
      return { dkimTokens: out.DkimAttributes?.Tokens ?? [], verified: out.VerifiedForSendingStatus ?? false };
    } catch (error) {
      if (error instanceof NotFoundException) return undefined;
      throw error;
    }
  }

  async productionAccess(): Promise<boolean> {
    return (await this.ses.send(new GetAccountCommand({}))).ProductionAccessEnabled ?? false;
  }
}

/** Local mode: nothing to verify against, so DNS never validates and mail stays in the viewer. */
export class LocalEmailIdentities implements EmailIdentityPort {
  async ensure(domain: string): Promise<{ dkimTokens: string[]; verified: boolean }> {
    const dkimTokens = [1, 2, 3].map((i) => createHash('sha256').update(`${domain}#${i}`).digest('hex').slice(0, 32));
    return { dkimTokens, verified: false };
  }

  async status(): Promise<undefined> {
    return undefined;
  }

  async productionAccess(): Promise<boolean> {
    return false;
  }
}
