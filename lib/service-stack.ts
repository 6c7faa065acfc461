import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { HttpApi, HttpMethod, HttpRoute, HttpRouteKey, HttpStage, type HttpRouteIntegration } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Key } from 'aws-cdk-lib/aws-kms';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { BASE_PATH, GROUPS, ROUTES, type Group } from '../shared/routes.js';
import { ENTITY } from '../shared/store/keys.js';
import { GroupFunction } from './group-function.js';
import { ServiceTable } from './table.js';

export interface ServiceStackProps extends StackProps {
  /** Shown as the default domain of every SaaS until it configures its own. */
  defaultDomainName?: string;
  logRetention?: RetentionDays;
  /** API Gateway's default stage throttling. */
  throttle?: { rateLimit: number; burstLimit: number };
}

/** Groups that only read: everything else writes. */
const READ_ONLY_GROUPS: ReadonlySet<string> = new Set<Group>(['public']);

/**
 * The whole service: one table, one KMS key for secrets, one HTTP API whose routes come from the route
 * table, one function per operation group, and the scheduled worker.
 */
export class ServiceStack extends Stack {
  constructor(scope: Construct, id: string, props: ServiceStackProps = {}) {
    super(scope, id, props);

    const secretsKey = new Key(this, 'SecretsKey', {
      description: 'Envelope encryption of stored secrets and the table',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const { table } = new ServiceTable(this, 'Store', { encryptionKey: secretsKey });

    const common = {
      table,
      secretsKey,
      logRetention: props.logRetention ?? RetentionDays.ONE_MONTH,
      defaultDomainName: props.defaultDomainName ?? 'auth.example.com',
    };
    const functions = new Map<string, GroupFunction>();
    for (const group of GROUPS) {
      functions.set(
        group,
        new GroupFunction(this, `Group-${group}`, {
          ...common,
          group,
          writes: !READ_ONLY_GROUPS.has(group),
          sendsMail: false,
          managesMailIdentities: group === 'configuration',
          timeout: Duration.seconds(10),
        }),
      );
    }
    // Mail delivery and plan reservations: no route, a one-minute schedule, the only sender of mail.
    const scheduled = new GroupFunction(this, 'Group-scheduled', {
      ...common,
      group: 'scheduled',
      writes: true,
      sendsMail: true,
      timeout: Duration.seconds(60),
    });
    new Rule(this, 'EveryMinute', {
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(scheduled.fn)],
    });
    // New outbox items reach the courier through the stream; what keeps failing lands in a dead-letter queue.
    const mailDeadLetters = new Queue(this, 'MailDeadLetters', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.KMS_MANAGED,
      enforceSSL: true,
    });
    scheduled.fn.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.LATEST,
        batchSize: 10,
        retryAttempts: 5,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(mailDeadLetters),
        filters: [FilterCriteria.filter({ eventName: FilterRule.isEqual('INSERT'), dynamodb: { NewImage: { entity: { S: FilterRule.isEqual(ENTITY.outbox) } } } })],
      }),
    );

    const throttle = props.throttle ?? { rateLimit: 100, burstLimit: 200 };
    const api = new HttpApi(this, 'Api', {
      description: 'Identity and tenant management API',
      createDefaultStage: false,
    });
    const stage = new HttpStage(this, 'DefaultStage', {
      httpApi: api,
      stageName: '$default',
      autoDeploy: true,
      throttle,
    });
    const integrations = new Map<string, HttpRouteIntegration>();
    const integrationOf = (group: string) => {
      let integration = integrations.get(group);
      if (!integration) {
        integration = new HttpLambdaIntegration(`Integration-${group}`, (functions.get(group) as GroupFunction).fn);
        integrations.set(group, integration);
      }
      return integration;
    };
    for (const route of ROUTES) {
      api.addRoutes({
        path: `${BASE_PATH}${route.path}`,
        methods: [HttpMethod[route.method]],
        integration: integrationOf(route.group),
      });
    }
    // Every other path and method: the public function answers 404 or 405 in the service's error shape.
    new HttpRoute(this, 'DefaultRoute', { httpApi: api, routeKey: HttpRouteKey.DEFAULT, integration: integrationOf('public') });

    new CfnOutput(this, 'ApiUrl', { value: `${stage.url.replace(/\/$/, '')}${BASE_PATH}`, description: 'Base URL of the API' });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'MailDeadLetterQueueUrl', { value: mailDeadLetters.queueUrl });
    new CfnOutput(this, 'KmsKeyArn', { value: secretsKey.keyArn, description: 'For `npm run admin -- --aws --kms-key-id`' });
  }
}
