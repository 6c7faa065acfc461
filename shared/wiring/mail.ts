/**
 * Mail: the courier that sends the outbox's mails, and the outbox's backlog. What belongs here: a service that
 * sends, queues or counts mail (the SES identities a SaaS sends from are configuration's, configuration.ts).
 */
import { config } from '../config.js';
import { sesSendingClient } from '../adapters/mail/clients.js';
import { Courier } from '../adapters/mail/courier.js';
import { SesMailSender } from '../adapters/mail/ses-sender.js';
import { MailBacklogService } from '../domain/mail/mail-backlog.js';
import { secretBox, sesSettings } from './clients.js';
import { configurationReader } from './configuration.js';
import { outboxRepository, suppressionRepository } from './repositories.js';

/** GET /mail-backlog: the outbox's waiting mails, counted. */
export const mailBacklogService = () => new MailBacklogService(outboxRepository());

/** The courier reads templates and sender addresses only: it needs no SES identity client. */
export const courier = () =>
  new Courier(
    outboxRepository(),
    configurationReader(),
    secretBox(),
    new SesMailSender(sesSendingClient(sesSettings()), config().mailConfigurationSet),
    suppressionRepository(),
  );
