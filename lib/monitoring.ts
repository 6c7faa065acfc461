/**
 * What an operator watches: one CloudWatch dashboard (API per route, functions, table, mail, business
 * metrics, SES reputation) and the alarms that page them, through one SNS topic whose e-mail subscription
 * is a deploy-time parameter.
 */
import { Aws, CfnCondition, CfnParameter, Duration, Fn, Stack } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  Stats,
  TextWidget,
  TreatMissingData,
  type IMetric,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { CfnSubscription, Topic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { BUSINESS_METRICS, METRICS_DIMENSIONS, METRICS_NAMESPACE, type MetricName } from '../shared/metrics.js';

export interface AlarmThresholds {
  /** Share of requests answered 5xx, in percent, over 5 minutes (2 of 3 periods). */
  serverErrorPercent: number;
  /** API Gateway's p99 latency in ms, over 5 minutes (2 of 3 periods). */
  latencyP99Ms: number;
  /** SES bounce rate (0..1). SES reviews an account at 5 % and may pause it at 10 %. */
  bounceRate: number;
  /** SES complaint rate (0..1). SES reviews at 0.1 % and may pause at 0.5 %. */
  complaintRate: number;
}

export const DEFAULT_ALARM_THRESHOLDS: AlarmThresholds = { serverErrorPercent: 1, latencyP99Ms: 2000, bounceRate: 0.04, complaintRate: 0.001 };

export interface MonitoringProps {
  api: IHttpApi;
  stageName: string;
  /** The functions serving API routes, by group. */
  apiFunctions: ReadonlyMap<string, IFunction>;
  /** Background functions (scheduled worker, mail events), by name. */
  workerFunctions: ReadonlyMap<string, IFunction>;
  table: ITable;
  mailDeadLetters: Queue;
  mailConfigurationSet: string;
  thresholds?: Partial<AlarmThresholds>;
}

const FIVE_MINUTES = Duration.minutes(5);
/** The table operations the store issues (shared/store): the ones whose throttles and latency matter. */
const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
  Operation.BATCH_GET_ITEM,
];
const MAIL_METRICS: MetricName[] = ['MailSent', 'MailFailed', 'MailRetried', 'MailSuppressed'];
const SIGN_IN_METRICS: MetricName[] = ['SignInSucceeded', 'SignInFailed', 'SignInLockedOut', 'MfaChallengeIssued'];

function businessMetric(name: MetricName, statistic: string = Stats.SUM): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { ...METRICS_DIMENSIONS },
    statistic,
    period: FIVE_MINUTES,
    label: name,
  });
}

export class Monitoring extends Construct {
  readonly dashboard: Dashboard;
  readonly alarmTopic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(
    scope: Construct,
    id: string,
    private readonly props: MonitoringProps,
  ) {
    super(scope, id);
    this.alarmTopic = this.createAlarmTopic();
    this.createAlarms({ ...DEFAULT_ALARM_THRESHOLDS, ...props.thresholds });
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${Aws.STACK_NAME}-${Aws.REGION}`,
      defaultInterval: Duration.hours(3),
      widgets: [this.apiRow(), this.routeRows(), this.functionRow(), this.tableRow(), this.mailRow(), this.businessRow()],
    });
  }

  /** Alarm notifications go to an encrypted topic; its key lets CloudWatch publish and nothing more. */
  private createAlarmTopic(): Topic {
    const key = new Key(this, 'AlarmTopicKey', { description: 'Encryption of the alarm notification topic', enableKeyRotation: true });
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    const topic = new Topic(this, 'AlarmTopic', { displayName: 'Tenant identity service alarms', masterKey: key, enforceSSL: true });
    const email = new CfnParameter(Stack.of(this), 'AlarmEmail', {
      type: 'String',
      default: '',
      allowedPattern: '^$|^[^@\\s]+@[^@\\s]+$',
      description: 'E-mail address that receives the alarms (confirm the subscription mail). Empty: no subscription.',
    });
    const hasEmail = new CfnCondition(this, 'HasAlarmEmail', { expression: Fn.conditionNot(Fn.conditionEquals(email.valueAsString, '')) });
    const subscription = new CfnSubscription(this, 'AlarmEmailSubscription', {
      topicArn: topic.topicArn,
      protocol: 'email',
      endpoint: email.valueAsString,
    });
    subscription.cfnOptions.condition = hasEmail;
    return topic;
  }

  private alarm(id: string, description: string, metric: IMetric, threshold: number, periods = { evaluate: 3, toAlarm: 2 }): void {
    const alarm = new Alarm(this, id, {
      alarmDescription: description,
      metric,
      threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: periods.evaluate,
      datapointsToAlarm: periods.toAlarm,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new SnsAction(this.alarmTopic));
    alarm.addOkAction(new SnsAction(this.alarmTopic));
    this.alarms.push(alarm);
  }

  private createAlarms(t: AlarmThresholds): void {
    const { api, table, mailDeadLetters, apiFunctions, workerFunctions } = this.props;
    const once = { evaluate: 1, toAlarm: 1 };
    const throttles = (functions: ReadonlyMap<string, IFunction>) =>
      this.sumOf(
        'throttles',
        [...functions.values()].map((fn) => fn.metricThrottles({ period: FIVE_MINUTES })),
      );
    this.alarm('ServerErrorRate', `More than ${t.serverErrorPercent} % of API requests answered 5xx`, this.serverErrorRate(), t.serverErrorPercent);
    this.alarm(
      'LatencyP99',
      `API p99 latency above ${t.latencyP99Ms} ms`,
      api.metricLatency({ statistic: Stats.p(99), period: FIVE_MINUTES }),
      t.latencyP99Ms,
    );
    // An alarm's math may sum at most 10 metrics: the API functions are watched ten at a time.
    const api10 = [...apiFunctions];
    for (let i = 0; i < api10.length; i += 10) {
      this.alarm(
        i === 0 ? 'ApiFunctionThrottles' : `ApiFunctionThrottles${i / 10 + 1}`,
        `Lambda throttled an API function (${api10
          .slice(i, i + 10)
          .map(([name]) => name)
          .join(', ')}): raise the account concurrency or lower API throttling`,
        throttles(new Map(api10.slice(i, i + 10))),
        0,
        once,
      );
    }
    this.alarm(
      'WorkerThrottles',
      'Lambda throttled the scheduled worker, the mail-event handler or the API log writer',
      throttles(workerFunctions),
      0,
      once,
    );
    const tableThrottles = table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period: FIVE_MINUTES });
    this.alarm('TableThrottles', 'DynamoDB throttled requests of the table', tableThrottles, 0, once);
    this.alarm(
      'MailDeadLetters',
      'Mail stream records or API log batches that could not be processed: see docs/deployment.md, "Dead letters"',
      mailDeadLetters.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, period: FIVE_MINUTES }),
      0,
      once,
    );
    this.alarm('SesBounceRate', `SES bounce rate above ${t.bounceRate * 100} %`, this.sesReputation('Reputation.BounceRate'), t.bounceRate, once);
    this.alarm(
      'SesComplaintRate',
      `SES complaint rate above ${t.complaintRate * 100} %`,
      this.sesReputation('Reputation.ComplaintRate'),
      t.complaintRate,
      once,
    );
  }

  private sumOf(label: string, metrics: IMetric[]): MathExpression {
    const usingMetrics = Object.fromEntries(metrics.map((m, i) => [`m${i}`, m]));
    return new MathExpression({ expression: Object.keys(usingMetrics).join(' + '), usingMetrics, label, period: FIVE_MINUTES });
  }

  private serverErrorRate(): MathExpression {
    const { api } = this.props;
    return new MathExpression({
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: {
        errors: api.metricServerError({ statistic: Stats.SUM, period: FIVE_MINUTES }),
        requests: api.metricCount({ statistic: Stats.SUM, period: FIVE_MINUTES }),
      },
      label: '5xx %',
      period: FIVE_MINUTES,
    });
  }

  /** Reputation metrics of the stack's configuration set (enabled on it), published by SES. */
  private sesReputation(metricName: string): Metric {
    return new Metric({
      namespace: 'AWS/SES',
      metricName,
      dimensionsMap: { 'ses:configuration-set': this.props.mailConfigurationSet },
      statistic: Stats.MAXIMUM,
      period: Duration.hours(1),
    });
  }

  /** One line per API route, found by CloudWatch (detailed metrics are on for the stage). */
  private perRoute(metricName: string, statistic: string, label: string): MathExpression {
    const { api, stageName } = this.props;
    return new MathExpression({
      expression: `SEARCH('{AWS/ApiGateway,ApiId,Route,Stage} MetricName="${metricName}" ApiId="${api.apiId}" Stage="${stageName}"', '${statistic}', 300)`,
      usingMetrics: {},
      label,
      period: FIVE_MINUTES,
    });
  }

  private perFunction(metric: (fn: IFunction) => Metric): IMetric[] {
    return [...this.props.apiFunctions, ...this.props.workerFunctions].map(([name, fn]) => metric(fn).with({ label: name, period: FIVE_MINUTES }));
  }

  private header(markdown: string): TextWidget {
    return new TextWidget({ markdown, width: 24, height: 1 });
  }

  private graph(title: string, left: IMetric[], options: { width?: number; height?: number; right?: IMetric[] } = {}): GraphWidget {
    return new GraphWidget({
      title,
      left,
      width: options.width ?? 8,
      height: options.height ?? 6,
      ...(options.right ? { right: options.right } : {}),
    });
  }

  private apiRow(): IWidget[] {
    const { api } = this.props;
    const apiMetric = (statistic: string, label: string) => ({ statistic, label, period: FIVE_MINUTES });
    return [
      this.header('## API (all routes)'),
      this.graph('Requests, 4xx and 5xx', [
        api.metricCount(apiMetric(Stats.SUM, 'requests')),
        api.metricClientError(apiMetric(Stats.SUM, '4xx')),
        api.metricServerError(apiMetric(Stats.SUM, '5xx')),
      ]),
      this.graph('Latency p50 / p99 (ms)', [api.metricLatency(apiMetric(Stats.p(50), 'p50')), api.metricLatency(apiMetric(Stats.p(99), 'p99'))]),
      this.graph('5xx rate (%)', [this.serverErrorRate()]),
    ];
  }

  private routeRows(): IWidget[] {
    const tall = { height: 8 };
    return [
      this.header('## Per route (routes with traffic appear)'),
      this.graph('Requests per route', [this.perRoute('Count', 'Sum', 'requests')], tall),
      this.graph('4xx per route', [this.perRoute('4xx', 'Sum', '4xx')], tall),
      this.graph('5xx per route', [this.perRoute('5xx', 'Sum', '5xx')], tall),
      this.graph('p50 latency per route (ms)', [this.perRoute('Latency', 'p50', 'p50')], { ...tall, width: 12 }),
      this.graph('p99 latency per route (ms)', [this.perRoute('Latency', 'p99', 'p99')], { ...tall, width: 12 }),
    ];
  }

  private functionRow(): IWidget[] {
    const quarter = { width: 6 };
    return [
      this.header('## Functions'),
      this.graph(
        'Errors',
        this.perFunction((fn) => fn.metricErrors({ statistic: Stats.SUM })),
        quarter,
      ),
      this.graph(
        'Throttles',
        this.perFunction((fn) => fn.metricThrottles({ statistic: Stats.SUM })),
        quarter,
      ),
      this.graph(
        'Duration p99 (ms)',
        this.perFunction((fn) => fn.metricDuration({ statistic: Stats.p(99) })),
        quarter,
      ),
      this.graph(
        'Concurrent executions (max)',
        this.perFunction((fn) => fn.metric('ConcurrentExecutions', { statistic: Stats.MAXIMUM })),
        quarter,
      ),
    ];
  }

  private tableRow(): IWidget[] {
    const { table } = this.props;
    return [
      this.header('## DynamoDB table'),
      this.graph('Consumed capacity units', [
        table.metricConsumedReadCapacityUnits({ period: FIVE_MINUTES, label: 'read' }),
        table.metricConsumedWriteCapacityUnits({ period: FIVE_MINUTES, label: 'write' }),
      ]),
      this.graph('Throttled requests', [
        table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period: FIVE_MINUTES, label: 'throttled' }),
      ]),
      this.graph(
        'Latency per operation (ms, average)',
        TABLE_OPERATIONS.map((operation) =>
          table.metricSuccessfulRequestLatency({ dimensionsMap: { Operation: operation }, period: FIVE_MINUTES, label: operation }),
        ),
      ),
    ];
  }

  private mailRow(): IWidget[] {
    const deadLetters = this.props.mailDeadLetters.metricApproximateNumberOfMessagesVisible({
      statistic: Stats.MAXIMUM,
      period: FIVE_MINUTES,
      label: 'dead letters',
    });
    return [
      this.header('## Mail'),
      this.graph('Backlog and dead letters', [businessMetric('MailBacklog', Stats.MAXIMUM).with({ label: 'mails not final (backlog)' })], {
        right: [deadLetters],
      }),
      this.graph(
        'Mails sent, failed, retried, suppressed',
        MAIL_METRICS.map((name) => businessMetric(name)),
      ),
      this.graph(
        'SES bounce and complaint rates',
        [
          this.sesReputation('Reputation.BounceRate').with({ label: 'bounce rate' }),
          this.sesReputation('Reputation.ComplaintRate').with({ label: 'complaint rate' }),
        ],
        { right: [businessMetric('MailBounced'), businessMetric('MailComplained')] },
      ),
    ];
  }

  private businessRow(): IWidget[] {
    const described = (Object.entries(BUSINESS_METRICS) as [MetricName, string][]).map(([name, meaning]) => `**${name}**: ${meaning}`);
    return [
      this.header('## Sign-in and plans'),
      this.graph(
        'Sign-ins and MFA challenges; range checks of new passwords left unanswered (right)',
        SIGN_IN_METRICS.map((name) => businessMetric(name)),
        { right: [businessMetric('BreachedRangeUnreachable')] },
      ),
      this.graph('Plan reservations applied, API log writes failed, stored settings left out, events retried and given up', [
        businessMetric('PlanReservationsApplied'),
        businessMetric('ApiLogWriteFailed'),
        businessMetric('StoredSettingUnusable'),
        businessMetric('EventDeliveryRetried'),
        businessMetric('EventDeliveryFailed'),
      ]),
      new TextWidget({ markdown: `### What the business metrics count\n${described.join('  \n')}`, width: 8, height: 6 }),
    ];
  }
}
