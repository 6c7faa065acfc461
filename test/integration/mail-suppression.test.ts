/**
 * Bounce and complaint suppression: the mail-events handler is fed SES's EventBridge events (the shape SES
 * publishes for a configuration set's event destination), then the courier refuses to mail the address.
 */
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Context, EventBridgeEvent } from 'aws-lambda';
import { handler as mailEvents } from '../../functions/mail-events/handler.js';
import { newOutboxMail } from '../../shared/domain/mail/mail.js';
import { suppressionsFrom, type SesMailEvent } from '../../shared/domain/mail/mail-suppression.js';
import { courier, outboxRepository, suppressionRepository, secretBox } from '../../shared/wiring.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { mailsTo } from '../support/mail.js';

let h: Harness;
let saasId: string;
const context = { awsRequestId: 'test-invocation' } as Context;

/** An SES event as EventBridge delivers it, trimmed of headers we do not read but otherwise as recorded. */
function sesEvent(
  detail: Record<string, unknown> & { eventType: 'Bounce' | 'Complaint' },
  tags: Record<string, string[]>,
): EventBridgeEvent<string, SesMailEvent> {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': detail.eventType === 'Bounce' ? 'Email Bounced' : 'Email Complaint Received',
    source: 'aws.ses',
    account: '123456789012',
    time: '2026-01-05T10:00:00Z',
    region: 'eu-west-1',
    resources: ['arn:aws:ses:eu-west-1:123456789012:configuration-set/tenant-identity'],
    detail: {
      ...detail,
      mail: {
        timestamp: '2026-01-05T09:59:58.000Z',
        source: 'no-reply@auth.example.com',
        messageId: '0100018d2a6f-example',
        destination: ['someone@example.test'],
        tags: { 'ses:configuration-set': ['tenant-identity'], 'ses:from-domain': ['auth.example.com'], ...tags },
      },
    } as SesMailEvent,
  };
}

function permanentBounce(address: string, tags: Record<string, string[]>) {
  return sesEvent(
    {
      eventType: 'Bounce',
      bounce: {
        bounceType: 'Permanent',
        bounceSubType: 'General',
        bouncedRecipients: [{ emailAddress: address, action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }],
      },
    },
    tags,
  );
}

async function enqueueTo(to: string): Promise<string> {
  const mail = await newOutboxMail(secretBox(), saasId, 'forgot_password', to, '123456');
  await outboxRepository().enqueue(mail);
  return mail.id;
}

beforeAll(async () => {
  h = await startHarness();
  saasId = (await h.newSaas()).saasId;
});
afterAll(() => h.close());

describe('bounce and complaint suppression', () => {
  it('a permanent bounce suppresses the address; the courier then marks mail to it failed and sends nothing', async () => {
    const address = `gone-${randomUUID()}@example.test`;
    const firstId = await enqueueTo(address);
    assert.equal(await courier().deliver(saasId, firstId), 'sent');

    const result = await mailEvents(permanentBounce(address.toUpperCase(), { saasId: [saasId], mailId: [firstId] }), context);
    assert.deepEqual(result, { suppressed: 1 });
    const remembered = await suppressionRepository().find(saasId, address);
    assert.equal(remembered?.reason, 'bounce');
    assert.equal(remembered?.mailId, firstId);
    assert.equal(remembered?.detail, 'Permanent/General');

    const secondId = await enqueueTo(address);
    assert.equal(await courier().deliver(saasId, secondId), 'failed');
    const refused = await outboxRepository().get(saasId, secondId);
    assert.equal(refused?.status, 'failed');
    assert.match(refused?.lastError ?? '', /^to: this address bounced \(Permanent\/General\)/);
    assert.equal(refused?.sealedValue, undefined, 'the code is dropped with the mail');
    assert.equal((await mailsTo(h.sesUrl, address)).length, 1, 'only the mail before the bounce');
  });

  it('a complaint suppresses the address too, and a later report keeps the first', async () => {
    const address = `annoyed-${randomUUID()}@example.test`;
    const complaint = sesEvent(
      { eventType: 'Complaint', complaint: { complaintFeedbackType: 'abuse', complainedRecipients: [{ emailAddress: address }] } },
      { saasId: [saasId], mailId: ['m-1'] },
    );
    assert.deepEqual(await mailEvents(complaint, context), { suppressed: 1 });
    await mailEvents(permanentBounce(address, { saasId: [saasId], mailId: ['m-2'] }), context);
    const remembered = await suppressionRepository().find(saasId, address);
    assert.equal(remembered?.reason, 'complaint');
    assert.equal(remembered?.mailId, 'm-1');
    const id = await enqueueTo(address);
    assert.equal(await courier().deliver(saasId, id), 'failed');
    assert.equal((await mailsTo(h.sesUrl, address)).length, 0);
  });

  it('suppression belongs to one SaaS: the same address still gets mail from another', async () => {
    const address = `shared-${randomUUID()}@example.test`;
    await mailEvents(permanentBounce(address, { saasId: [saasId], mailId: ['m'] }), context);
    const other = (await h.newSaas()).saasId;
    const mail = await newOutboxMail(secretBox(), other, 'sign_up', address, 'Temp#1');
    await outboxRepository().enqueue(mail);
    assert.equal(await courier().deliver(other, mail.id), 'sent');
    assert.equal((await mailsTo(h.sesUrl, address)).length, 1);
  });

  it('transient bounces and mail without our tags suppress nothing', async () => {
    const address = `full-${randomUUID()}@example.test`;
    const transient = sesEvent(
      { eventType: 'Bounce', bounce: { bounceType: 'Transient', bounceSubType: 'MailboxFull', bouncedRecipients: [{ emailAddress: address }] } },
      { saasId: [saasId], mailId: ['m'] },
    );
    assert.deepEqual(await mailEvents(transient, context), { suppressed: 0 });
    assert.deepEqual(await mailEvents(permanentBounce(address, {}), context), { suppressed: 0 });
    assert.equal(await suppressionRepository().find(saasId, address), undefined);
    const id = await enqueueTo(address);
    assert.equal(await courier().deliver(saasId, id), 'sent');
  });

  it('reads every recipient of one report, without case', () => {
    const event = permanentBounce('A@Example.test', { saasId: ['s'], mailId: ['m'] }).detail;
    event.bounce!.bouncedRecipients!.push({ emailAddress: ' b@example.test ' }, {});
    assert.deepEqual(
      suppressionsFrom(event, 1).map((s) => s.address),
      ['a@example.test', 'b@example.test'],
    );
  });
});
