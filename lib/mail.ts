/**
 * Mail infrastructure: the SES configuration set every mail is sent with (reputation metrics on), and its
 * bounce and complaint events, delivered through EventBridge to the function that suppresses the address.
 */
import { Duration } from 'aws-cdk-lib';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { ConfigurationSet, ConfigurationSetEventDestination, EmailSendingEvent, EventDestination } from 'aws-cdk-lib/aws-ses';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface MailEventsProps {
  /** Receives each bounce or complaint event (functions/mail-events). */
  eventHandler: IFunction;
  /** Where events land that the handler kept failing on. */
  deadLetters: IQueue;
}

export class MailEvents extends Construct {
  readonly configurationSet: ConfigurationSet;

  constructor(scope: Construct, id: string, props: MailEventsProps) {
    super(scope, id);
    this.configurationSet = new ConfigurationSet(this, 'ConfigurationSet', { reputationMetrics: true });
    new ConfigurationSetEventDestination(this, 'BouncesAndComplaints', {
      configurationSet: this.configurationSet,
      // SES publishes to the account's default bus only.
      destination: EventDestination.eventBus(EventBus.fromEventBusName(this, 'DefaultBus', 'default')),
      events: [EmailSendingEvent.BOUNCE, EmailSendingEvent.COMPLAINT],
    });
    new Rule(this, 'BounceAndComplaintRule', {
      description: 'Bounces and complaints of mail sent by this stack',
      eventPattern: {
        source: ['aws.ses'],
        detail: {
          eventType: ['Bounce', 'Complaint'],
          mail: { tags: { 'ses:configuration-set': [this.configurationSet.configurationSetName] } },
        },
      },
      targets: [new LambdaFunction(props.eventHandler, { retryAttempts: 8, maxEventAge: Duration.hours(24), deadLetterQueue: props.deadLetters })],
    });
  }
}
