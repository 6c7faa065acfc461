/**
 * The courier against the local SES stand-in, with a proxy in front of it that can fail on purpose. Mail is
 * read back from the stand-in's store.
 */
import { afterAll, beforeAll, beforeEach, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { deliverFromStream, runScheduledWork } from '../../functions/scheduled/handler.js';
import { resetClockForTests, setClockForTests } from '../../shared/clock.js';
import { newOutboxMail, type OutboxRepository } from '../../shared/domain/mail/mail.js';
import { Courier } from '../../shared/adapters/mail/courier.js';
import { SesMailSender } from '../../shared/adapters/mail/ses-sender.js';
import type { TemplateName } from '../../shared/schemas/configuration.js';
import { TransactWriteCommand } from '../../shared/store/dynamo-client.js';
import { outboxItem } from '../../shared/store/outbox-repository.js';
import { configurationService, outboxRepository, suppressionRepository, dynamo, secretBox, tableName } from '../../shared/wiring.js';
import { FlakySes } from '../../dev-support/flaky-ses.js';
import { startHarness, type Harness } from '../../dev-support/harness.js';
import { mailsTo } from '../support/mail.js';

let h: Harness;
let saasId: string;

const flaky = new FlakySes();
let clockOffset = 0;

function courierThroughProxy(outbox: OutboxRepository = outboxRepository()): Courier {
  const ses = new SESv2Client({ region: 'us-east-1', endpoint: flaky.url, maxAttempts: 1 });
  return new Courier(outbox, configurationService(), secretBox(), new SesMailSender(ses), suppressionRepository(), {
    immediateRetryDelaysMs: [10, 10],
    maxAttempts: 3,
    leaseSeconds: 60,
    recordRetryDelaysMs: [10, 10],
  });
}

async function enqueue(template: TemplateName, value: string): Promise<{ id: string; to: string }> {
  const to = `user-${randomUUID()}@example.test`;
  const mail = await newOutboxMail(secretBox(), saasId, template, to, value);
  await outboxRepository().enqueue(mail);
  return { id: mail.id, to };
}

beforeAll(async () => {
  h = await startHarness();
  saasId = (await h.newSaas()).saasId;
  await flaky.start(h.sesUrl);
  setClockForTests(() => Date.now() + clockOffset);
});
afterAll(async () => {
  resetClockForTests();
  await flaky.close();
  await h.close();
});
beforeEach(() => {
  flaky.failures = 0;
  flaky.status = 500;
});

describe('courier', () => {
  it('sends the default template with the value in it, from the default sender, and drops the value', async () => {
    const { id, to } = await enqueue('create_user', 'Temp#Pass1');
    assert.equal(await courierThroughProxy().deliver(saasId, id), 'sent');
    const [mail, ...others] = await mailsTo(h.sesUrl, to);
    assert.equal(others.length, 0);
    assert.equal(mail!.from, 'no-reply@auth.localhost');
    assert.equal(mail!.subject, 'Your account has been created');
    assert.ok(mail!.body.text?.includes('Temp#Pass1'));
    const stored = await outboxRepository().get(saasId, id);
    assert.equal(stored?.status, 'sent');
    assert.equal(stored?.sealedValue, undefined, 'the code is not kept after sending');
    assert.ok(stored?.messageId);
    assert.equal(await courierThroughProxy().deliver(saasId, id), 'skipped', 'never sent twice');
    assert.equal((await mailsTo(h.sesUrl, to)).length, 1);
  });

  it("uses the SaaS's own template and addresses, and escapes the value in HTML", async () => {
    await configurationService().updateTemplates(saasId, {
      forgot_password: { subject: 'Code {####}', message: '<p>Your code is <b>{####}</b></p>' },
    });
    await configurationService().updateBasicInfo(saasId, {
      domain_name: 'auth.acme.test',
      from_email_address: 'hello@acme.test',
      reply_email_address: 'help@acme.test',
    });
    const { id, to } = await enqueue('forgot_password', '<1&2>');
    assert.equal(await courierThroughProxy().deliver(saasId, id), 'sent');
    const [mail] = await mailsTo(h.sesUrl, to);
    assert.equal(mail!.from, 'hello@acme.test');
    assert.deepEqual(mail!.replyTo, ['help@acme.test']);
    assert.equal(mail!.subject, 'Code <1&2>');
    assert.equal(mail!.body.html, '<p>Your code is <b>&lt;1&amp;2&gt;</b></p>');
  });

  it('SES failing twice, then working: exactly one mail arrives', async () => {
    const { id, to } = await enqueue('authentication_mfa', '123456');
    flaky.failures = 2;
    const before = flaky.requests;
    assert.equal(await courierThroughProxy().deliver(saasId, id), 'sent');
    assert.equal(flaky.requests - before, 3);
    assert.equal((await mailsTo(h.sesUrl, to)).length, 1);
    assert.equal((await outboxRepository().get(saasId, id))?.attempts, 1);
  });

  it('a longer outage (throttling) defers the mail with backoff; a later run sends it once', async () => {
    const { id, to } = await enqueue('resend_code', 'Temp#2');
    flaky.failures = 3;
    flaky.status = 429;
    const courier = courierThroughProxy();
    assert.equal(await courier.deliver(saasId, id), 'retry');
    const deferred = await outboxRepository().get(saasId, id);
    assert.equal(deferred?.status, 'pending');
    assert.match(deferred?.lastError ?? '', /TooManyRequests|injected/);
    assert.equal((await mailsTo(h.sesUrl, to)).length, 0);
    assert.deepEqual(await courier.deliverDue(saasId), { sent: 0, retry: 0, failed: 0, skipped: 0 }, 'not due before its backoff');
    clockOffset += 31_000;
    const counts = await courier.deliverDue(saasId);
    assert.equal(counts.sent, 1);
    assert.equal((await mailsTo(h.sesUrl, to)).length, 1);
    clockOffset = 0;
  });

  it('a rejected mail is marked failed at once and never retried; endless failure stops at the attempt limit', async () => {
    const rejected = await enqueue('sign_up', 'x');
    flaky.failures = 1;
    flaky.status = 400;
    assert.equal(await courierThroughProxy().deliver(saasId, rejected.id), 'failed');
    const failed = await outboxRepository().get(saasId, rejected.id);
    assert.equal(failed?.status, 'failed');
    assert.equal(failed?.sealedValue, undefined);

    const doomed = await enqueue('sign_up', 'y');
    flaky.failures = 1000;
    flaky.status = 503;
    const courier = courierThroughProxy();
    const outcomes: string[] = [];
    for (let i = 0; i < 4; i++) {
      outcomes.push(await courier.deliver(saasId, doomed.id));
      clockOffset += 3600_000;
    }
    clockOffset = 0;
    assert.deepEqual(outcomes, ['retry', 'retry', 'failed', 'skipped']);
    assert.equal((await mailsTo(h.sesUrl, doomed.to)).length, 0);
  });

  it('a store blip while recording a sent mail is retried through, so the mail is not sent again when its claim lapses', async () => {
    const { id, to } = await enqueue('authentication_mfa', '654321');
    const real = outboxRepository();
    let blips = 2;
    const blipping: OutboxRepository = Object.assign(Object.create(real) as OutboxRepository, {
      markSent: (...args: Parameters<OutboxRepository['markSent']>) =>
        blips-- > 0 ? Promise.reject(new Error('socket hang up')) : real.markSent(...args),
    });
    assert.equal(await courierThroughProxy(blipping).deliver(saasId, id), 'sent');
    assert.equal((await outboxRepository().get(saasId, id))?.status, 'sent');
    clockOffset += 3600_000;
    await courierThroughProxy().deliverDue(saasId);
    clockOffset = 0;
    assert.equal((await mailsTo(h.sesUrl, to)).length, 1);
  });

  it('two couriers racing for one mail send it once', async () => {
    for (let round = 0; round < 5; round++) {
      const { id, to } = await enqueue('verify_user_attribute', `code-${round}`);
      const outcomes = await Promise.all([courierThroughProxy().deliver(saasId, id), courierThroughProxy().deliver(saasId, id)]);
      assert.deepEqual(outcomes.sort(), ['sent', 'skipped']);
      assert.equal((await mailsTo(h.sesUrl, to)).length, 1);
    }
  });

  it('the stream handler delivers new outbox items and ignores everything else', async () => {
    const { id, to } = await enqueue('verify_external_user', '999000');
    const item = await outboxRepository().get(saasId, id);
    const event = {
      Records: [
        { eventName: 'INSERT', dynamodb: { SequenceNumber: '1', NewImage: { entity: { S: 'Role' }, saasId: { S: saasId }, id: { S: 'x' } } } },
        { eventName: 'MODIFY', dynamodb: { SequenceNumber: '2', NewImage: { entity: { S: 'OutboxMail' }, saasId: { S: saasId }, id: { S: id } } } },
        {
          eventName: 'INSERT',
          dynamodb: { SequenceNumber: '3', NewImage: { entity: { S: 'OutboxMail' }, saasId: { S: item!.saasId }, id: { S: id } } },
        },
      ],
    } as unknown as DynamoDBStreamEvent;
    assert.deepEqual(await deliverFromStream(event), { batchItemFailures: [] });
    assert.equal((await mailsTo(h.sesUrl, to)).length, 1);
    assert.equal((await outboxRepository().get(saasId, id))?.status, 'sent');
  });

  it('an outbox item written in a transaction exists only if the change it belongs to does', async () => {
    const db = dynamo();
    const mail = await newOutboxMail(secretBox(), saasId, 'sign_up', `tx-${randomUUID()}@example.test`, 'Temp#1');
    const change = { pk: `SAAS#${saasId}#TEST`, sk: 'CHANGE' };
    const write = () =>
      db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: tableName(), Item: { ...change, entity: 'Test', v: 1 }, ConditionExpression: 'attribute_not_exists(pk)' } },
            outboxItem(tableName(), mail),
          ],
        }),
      );
    await write();
    assert.equal((await outboxRepository().get(saasId, mail.id))?.status, 'pending');
    const second = await newOutboxMail(secretBox(), saasId, 'sign_up', 'other@example.test', 'Temp#2');
    await assert.rejects(
      db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: tableName(), Item: { ...change, entity: 'Test', v: 1 }, ConditionExpression: 'attribute_not_exists(pk)' } },
            outboxItem(tableName(), second),
          ],
        }),
      ),
      /TransactionCanceled/,
    );
    assert.equal(await outboxRepository().get(saasId, second.id), undefined, 'no mail for a change that did not happen');
  });

  it('the scheduled run delivers what is due, for every SaaS', async () => {
    const { id, to } = await enqueue('invite_tenant_user', 'https://app.test/invite/1');
    const result = await runScheduledWork();
    assert.ok(result.mailsSent >= 1);
    assert.equal((await mailsTo(h.sesUrl, to)).length, 1);
    assert.equal((await outboxRepository().get(saasId, id))?.status, 'sent');
  });
});
