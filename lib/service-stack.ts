import { Aws, CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  ApiMapping,
  DomainName,
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
  type HttpRouteIntegration,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { CfnPermission, FilterCriteria, FilterRule, StartingPosition, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { FilterPattern, LogGroup, RetentionDays, SubscriptionFilter } from 'aws-cdk-lib/aws-logs';
import { LambdaDestination } from 'aws-cdk-lib/aws-logs-destinations';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  BASE_PATH,
  ENTRIES,
  ENTRY_FUNCTIONS,
  GATEWAY_ROUTES,
  GROUP_ACCESS,
  GROUPS,
  groupTimeoutSeconds,
  LOGIN_PATH,
  ROUTES,
  type EntryFunction,
  type EntryGrants,
} from '../shared/routes.js';
import { buildPageAssetsSync, pageAssetsDir } from '../web/page-assets.js';
import {
  ACTIVE_USERS_PARTITIONS,
  API_LOG_PARTITIONS,
  BEHAVIOR_PARTITIONS,
  DIRECTORY_COPY_ATTRIBUTES,
  ENTITY,
  EVENT_PARTITIONS,
  EVENT_SEQUENCE_PARTITIONS,
  SIGN_IN_COUNTS_PARTITIONS,
  USER_PARTITIONS,
} from '../shared/store/keys.js';
import { SHIPPED_KINDS, SHIPPED_MEMBER } from '../shared/schemas/apilog.js';
import { GroupFunction, type GroupFunctionProps } from './group-function.js';
import { MailEvents } from './mail.js';
import { Monitoring, type AlarmThresholds } from './monitoring.js';
import { acceptNagFindings } from './nag.js';
import { ServiceTable, type ExistingTable } from './table.js';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';

export interface ServiceStackProps extends StackProps {
  /** Shown as the default domain of every SaaS until it configures its own. */
  defaultDomainName?: string;
  logRetention?: RetentionDays;
  /** API Gateway's default stage throttling. */
  throttle?: { rateLimit: number; burstLimit: number };
  /** X-Ray tracing of every function and its AWS SDK calls (off by default: it costs per trace). */
  tracing?: boolean;
  /** Serve the API on your own domain: an ACM certificate for it in the stack's region. */
  customDomain?: { domainName: string; certificateArn: string };
  /**
   * A host of its own for each SaaS's login screen, `<saas id>.<domainName>` (docs/security.md, one origin per
   * login screen): a wildcard API Gateway domain for `*.<domainName>` with an ACM certificate covering it, in
   * the stack's region. Without it every screen shares the API's origin and runs no SaaS-supplied script.
   */
  loginDomain?: { domainName: string; certificateArn: string };
  alarmThresholds?: Partial<AlarmThresholds>;
  /** Use this table (restored from a backup) instead of creating one. */
  existingTable?: ExistingTable;
  /**
   * The `iss` of every token (TOKEN_ISSUER). By default the API's own base URL (ApiUrl), where OpenID discovery
   * finds `/.well-known/openid-configuration`. Changing it ends every token issued under the old one.
   */
  tokenIssuer?: string;
}

/**
 * The whole service: one table, one KMS key for secrets, one HTTP API whose routes come from the route
 * table, one function per operation group, the scheduled worker, mail events, and the monitoring.
 */
export class ServiceStack extends Stack {
  constructor(scope: Construct, id: string, props: ServiceStackProps = {}) {
    super(scope, id, props);

    const secretsKey = new Key(this, 'SecretsKey', {
      description: 'Envelope encryption of stored secrets and the table',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const { table } = new ServiceTable(this, 'Store', {
      encryptionKey: secretsKey,
      ...(props.existingTable ? { existing: props.existingTable } : {}),
    });
    const logRetention = props.logRetention ?? RetentionDays.ONE_MONTH;

    const common = {
      table,
      secretsKey,
      logRetention,
      defaultDomainName: props.defaultDomainName ?? 'auth.example.com',
      tracing: props.tracing ?? false,
    };
    const api = new HttpApi(this, 'Api', {
      description: 'Identity and tenant management API',
      createDefaultStage: false,
    });
    const functions = new Map<string, NodejsFunction>();
    const groupFunctions = new Map<string, GroupFunction>();
    for (const group of GROUPS) {
      const groupFunction = new GroupFunction(this, `Group-${group}`, {
        ...common,
        group,
        ...GROUP_ACCESS[group],
        managesMailIdentities: group === 'configuration',
        // A SaaS's own domain is mapped to this API by the configuration function (docs/login-screen.md).
        ...(group === 'configuration' ? { servesSaasDomainsOf: api.apiId } : {}),
        timeout: Duration.seconds(groupTimeoutSeconds(group)),
      });
      groupFunctions.set(group, groupFunction);
      functions.set(group, groupFunction.fn);
    }
    // The browser-facing apps (shared/routes.ts, ENTRY_FUNCTIONS): a page's script and style are built here and
    // copied beside its bundle.
    for (const [name, grants] of Object.entries(ENTRY_FUNCTIONS) as [EntryFunction, EntryGrants][]) {
      const { page, servesSaasDomains, ...access } = grants;
      if (page) buildPageAssetsSync(page);
      const entryFunction = new GroupFunction(this, `Group-${name}`, {
        ...common,
        group: name,
        ...access,
        timeout: Duration.seconds(groupTimeoutSeconds(name)),
        ...(page ? { publicDir: pageAssetsDir(page) } : {}),
        ...(servesSaasDomains ? { servesSaasDomainsOf: api.apiId } : {}),
      });
      groupFunctions.set(name, entryFunction);
      functions.set(name, entryFunction.fn);
    }

    // Stream records and mail events the functions kept failing on.
    const mailDeadLetters = new Queue(this, 'MailDeadLetters', {
      retentionPeriod: Duration.days(14),
      // SQS-managed encryption: EventBridge cannot deliver to a queue under the AWS-managed KMS key.
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    acceptNagFindings(mailDeadLetters, { 'AwsSolutions-SQS3': 'this queue is the dead-letter queue' });
    const mailEventHandler = new GroupFunction(this, 'Group-mail-events', {
      ...common,
      group: 'mail-events',
      writes: true,
      seals: false,
      opens: false,
      timeout: Duration.seconds(30),
    });
    const mail = new MailEvents(this, 'Mail', { eventHandler: mailEventHandler.fn, deadLetters: mailDeadLetters });
    const configurationSetName = mail.configurationSet.configurationSetName;

    // Mail delivery and plan reservations: no route, a one-minute schedule, the only sender of mail.
    const scheduled = new GroupFunction(this, 'Group-scheduled', {
      ...common,
      group: 'scheduled',
      writes: true,
      seals: false,
      sendsMailWith: configurationSetName,
      timeout: Duration.seconds(60),
    });
    new Rule(this, 'EveryMinute', {
      description: 'Plan reservations that came due, and mails due again',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(scheduled.fn)],
    });
    // Events go to the default bus of the account and region each SaaS names (docs/events.md): known only at run time.
    scheduled.fn.addToRolePolicy(
      new PolicyStatement({ actions: ['events:PutEvents'], resources: [`arn:${Aws.PARTITION}:events:*:*:event-bus/default`] }),
    );
    acceptNagFindings(scheduled, {
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:events:*:*:event-bus/default]':
        'events go to the default bus of the account and region a SaaS saves with PUT /v1/integration/eventbridge/info, known only at run time; PutEvents and nothing else',
    });
    // Event deliveries given up after three days of retries go to the same alarmed dead letters (docs/events.md); the
    // stream's dead-letter destination below already lets the function send there.
    scheduled.fn.addEnvironment('DEAD_LETTER_QUEUE_URL', mailDeadLetters.queueUrl);
    // New outbox items and events reach the courier and the deliverer through the stream; what keeps failing lands in
    // the dead letters.
    scheduled.fn.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.LATEST,
        batchSize: 10,
        retryAttempts: 5,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(mailDeadLetters),
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('INSERT'),
            dynamodb: { NewImage: { entity: { S: FilterRule.isEqual(ENTITY.outbox) } } },
          }),
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('INSERT'),
            dynamodb: { NewImage: { entity: { S: FilterRule.isEqual(ENTITY.apiEvent) } } },
          }),
        ],
      }),
    );

    const apiLogWriter = this.addApiLogWriter(common, groupFunctions, mailDeadLetters);

    const stage = new HttpStage(this, 'DefaultStage', {
      httpApi: api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? { rateLimit: 100, burstLimit: 200 },
      // Per-route requests, errors and latency on the dashboard.
      detailedMetricsEnabled: true,
      accessLogSettings: {
        destination: new LogGroupLogDestination(new LogGroup(this, 'ApiAccessLogs', { retention: logRetention })),
        format: ACCESS_LOG_FORMAT,
      },
    });
    this.addRoutes(api, functions);

    const monitoring = new Monitoring(this, 'Monitoring', {
      api,
      stageName: stage.stageName,
      apiFunctions: functions,
      workerFunctions: new Map([
        ['scheduled', scheduled.fn],
        ['mail-events', mailEventHandler.fn],
        ['apilog-writer', apiLogWriter],
      ]),
      table,
      mailDeadLetters,
      mailConfigurationSet: configurationSetName,
      thresholds: props.alarmThresholds ?? {},
    });

    let apiOrigin = stage.url.replace(/\/$/, '');
    if (props.customDomain) {
      const domain = new DomainName(this, 'CustomDomain', {
        domainName: props.customDomain.domainName,
        certificate: Certificate.fromCertificateArn(this, 'CustomDomainCertificate', props.customDomain.certificateArn),
      });
      new ApiMapping(this, 'CustomDomainMapping', { api, domainName: domain, stage });
      apiOrigin = `https://${props.customDomain.domainName}`;
      new CfnOutput(this, 'CustomDomainTarget', {
        value: domain.regionalDomainName,
        description: `DNS: a CNAME (or alias A record) from ${props.customDomain.domainName} to this name`,
      });
      new CfnOutput(this, 'CustomDomainHostedZoneId', { value: domain.regionalHostedZoneId, description: 'For a Route 53 alias record' });
    }

    if (props.loginDomain) {
      const { domainName, certificateArn } = props.loginDomain;
      const screens = new DomainName(this, 'LoginDomain', {
        domainName: `*.${domainName}`,
        certificate: Certificate.fromCertificateArn(this, 'LoginDomainCertificate', certificateArn),
      });
      new ApiMapping(this, 'LoginDomainMapping', { api, domainName: screens, stage });
      new CfnOutput(this, 'LoginDomainTarget', {
        value: screens.regionalDomainName,
        description: `DNS: a CNAME (or alias A record) from *.${domainName} to this name`,
      });
      new CfnOutput(this, 'LoginDomainHostedZoneId', { value: screens.regionalHostedZoneId, description: 'For a Route 53 alias record' });
    }

    // Every URL the service hands out (discovery, JWKS, role template) is built from this, never from a request.
    for (const fn of functions.values()) {
      fn.addEnvironment('PUBLIC_BASE_URL', `${apiOrigin}${BASE_PATH}`);
      fn.addEnvironment('TOKEN_ISSUER', props.tokenIssuer ?? `${apiOrigin}${BASE_PATH}`);
      if (props.loginDomain) fn.addEnvironment('LOGIN_DOMAIN', props.loginDomain.domainName);
    }
    new CfnOutput(this, 'ApiUrl', { value: `${apiOrigin}${BASE_PATH}`, description: 'Base URL of the API' });
    new CfnOutput(this, 'LoginScreenUrl', {
      value: props.loginDomain
        ? `https://{saas id}.${props.loginDomain.domainName}${BASE_PATH}${LOGIN_PATH}/`
        : `${apiOrigin}${BASE_PATH}${LOGIN_PATH}/`,
      description: props.loginDomain
        ? "Each SaaS's hosted login screen: this URL with its SaaS id in the host name and after the last /"
        : "Each SaaS's hosted login screen: this URL followed by its SaaS id and /",
    });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'KmsKeyArn', { value: secretsKey.keyArn, description: 'For `npm run admin -- --aws --kms-key-id`' });
    new CfnOutput(this, 'MailDeadLetterQueueUrl', { value: mailDeadLetters.queueUrl });
    new CfnOutput(this, 'MailConfigurationSet', { value: configurationSetName, description: 'SES configuration set of every mail' });
    new CfnOutput(this, 'AlarmTopicArn', { value: monitoring.alarmTopic.topicArn, description: 'Subscribe more endpoints here' });
    new CfnOutput(this, 'DashboardUrl', {
      value: `https://${Aws.REGION}.console.aws.amazon.com/cloudwatch/home?region=${Aws.REGION}#dashboards:name=${monitoring.dashboard.dashboardName}`,
    });
  }

  /**
   * The API log writer (functions/apilog-writer, docs/deployment-shape.md, "The API log"): each function that tells
   * lines for it (every group with signed routes: their calls' records; the sign-in group, the login screen and
   * SAML: counted sign-in outcomes) has a subscription filter on its log group that delivers them. It writes
   * those two kinds of partitions and reads nothing. CloudWatch Logs invokes it asynchronously: Lambda retries a
   * failed batch twice, then the batch goes to the dead letters (MailDeadLetters, the stack's one dead-letter
   * queue, whose alarm already watches it).
   */
  private addApiLogWriter(
    common: Omit<GroupFunctionProps, 'group' | 'writes' | 'seals' | 'timeout'>,
    groupFunctions: ReadonlyMap<string, GroupFunction>,
    deadLetters: Queue,
  ): IFunction {
    const writer = new GroupFunction(this, 'Group-apilog-writer', {
      ...common,
      group: 'apilog-writer',
      writes: false,
      reads: false,
      seals: false,
      opens: false,
      // The API log's records; the events of changing calls (shared/domain/integration) and their counters.
      batchPutsOnly: [API_LOG_PARTITIONS, EVENT_PARTITIONS],
      // The counters of sign-ins and of each subject's events; who signed in each day and month, and how many; the
      // pages GetUserInfo was called from.
      updatesOnly: [SIGN_IN_COUNTS_PARTITIONS, EVENT_SEQUENCE_PARTITIONS, ACTIVE_USERS_PARTITIONS, BEHAVIOR_PARTITIONS],
      // A sign-in's time copied to its user's directory entry (decision 18), and nothing else of a user's items.
      attributeUpdatesOnly: { partitions: [USER_PARTITIONS], attributes: DIRECTORY_COPY_ATTRIBUTES },
      timeout: Duration.seconds(60),
    });
    writer.fn.configureAsyncInvoke({ retryAttempts: 2, onFailure: new SqsDestination(deadLetters) });
    // One permission for every log group of the account rather than one per subscription (a resource each): only
    // those who may create subscription filters in this account can point one here, and the writer takes only
    // well-formed lines (shared/domain/apilog/shipped-lines.ts).
    const invoke = new CfnPermission(this, 'ApiLogWriterFromLogs', {
      action: 'lambda:InvokeFunction',
      functionName: writer.fn.functionArn,
      principal: 'logs.amazonaws.com',
      sourceAccount: Aws.ACCOUNT_ID,
      sourceArn: `arn:${Aws.PARTITION}:logs:${Aws.REGION}:${Aws.ACCOUNT_ID}:log-group:*`,
    });
    const pattern = FilterPattern.any(
      FilterPattern.stringValue(`$.${SHIPPED_MEMBER}`, '=', SHIPPED_KINDS.apiLog),
      FilterPattern.stringValue(`$.${SHIPPED_MEMBER}`, '=', SHIPPED_KINDS.signIn),
      FilterPattern.stringValue(`$.${SHIPPED_MEMBER}`, '=', SHIPPED_KINDS.event),
      FilterPattern.stringValue(`$.${SHIPPED_MEMBER}`, '=', SHIPPED_KINDS.pageView),
    );
    const tellers = [...GROUPS.filter((group) => ROUTES.some((route) => route.group === group && route.permission !== null)), ...SIGN_IN_SCREENS];
    for (const name of tellers) {
      const source = groupFunctions.get(name);
      if (!source) throw new Error(`no function ${name} to subscribe the API log writer to`);
      const filter = new SubscriptionFilter(source, 'ToApiLogWriter', {
        logGroup: source.logGroup,
        destination: new LambdaDestination(writer.fn, { addPermissions: false }),
        filterPattern: pattern,
      });
      filter.node.addDependency(invoke);
    }
    return writer.fn;
  }

  /**
   * The route table's API routes (a greedy route per folder a function owns) and one per entry of the
   * browser-facing apps; every other path and method goes to the public function. Each function has one
   * integration and one invoke permission for all of its routes (CDK's default is a permission per route: 169 of
   * the stack's resources, of CloudFormation's 500).
   */
  private addRoutes(api: HttpApi, functions: ReadonlyMap<string, IFunction>): void {
    const integrations = new Map<string, HttpRouteIntegration>();
    /** Each function's route keys' paths, for its one permission. */
    const pathsOf = new Map<string, string[]>();
    const integrationOf = (fn: string, path: string) => {
      pathsOf.set(fn, [...(pathsOf.get(fn) ?? []), path]);
      let integration = integrations.get(fn);
      if (!integration) {
        integration = new RoutesIntegration(`Integration-${fn}`, functions.get(fn) as IFunction);
        integrations.set(fn, integration);
      }
      return integration;
    };
    // A greedy route per folder a function owns (shared/routes.ts, GATEWAY_ROUTES; docs/decisions.md, decision 17).
    for (const route of GATEWAY_ROUTES) {
      api.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration: integrationOf(route.fn, route.path) });
    }
    // The browser-facing apps' entries (shared/routes.ts, ENTRIES): a prefix takes every path below it.
    for (const entry of ENTRIES) {
      const path = entry.path.endsWith('/') ? `${entry.path}{proxy+}` : entry.path;
      api.addRoutes({ path, methods: [entry.method ? HttpMethod[entry.method] : HttpMethod.ANY], integration: integrationOf(entry.fn, path) });
    }
    // The public function answers 404 or 405 in the service's error shape.
    const fallback = new HttpRoute(this, 'DefaultRoute', {
      httpApi: api,
      routeKey: HttpRouteKey.DEFAULT,
      integration: integrationOf('public', HttpRouteKey.DEFAULT.key),
    });
    // One permission per function and API family (`/v1/pricing`, `/v1/communication`): a source ARN holds one
    // pattern, and a pattern over two families would be `/v1/*`, letting any route of the API invoke the function.
    for (const [fn, paths] of pathsOf) {
      const families = new Map<string, string[]>();
      // The function behind `$default` is invoked from any route: one permission over them all.
      const familyOf = (path: string) => (paths.includes(HttpRouteKey.DEFAULT.key) ? '' : apiFamily(path));
      for (const path of paths) families.set(familyOf(path), [...(families.get(familyOf(path)) ?? []), path]);
      for (const [index, familyPaths] of [...families.values()].entries()) {
        (functions.get(fn) as IFunction).addPermission(index === 0 ? 'FromApi' : `FromApi${index + 1}`, {
          principal: new ServicePrincipal('apigateway.amazonaws.com'),
          sourceArn: this.formatArn({ service: 'execute-api', resource: api.apiId, resourceName: `*/*${routesPattern(familyPaths)}` }),
        });
      }
    }
    for (const scope of [api, fallback]) {
      acceptNagFindings(scope, {
        'AwsSolutions-APIG4':
          'signed routes check the SAASUSSIGV1 request signature in the function (docs/decisions.md, decision 1: the SDKs sign requests, and no API Gateway authorizer speaks that scheme); public routes serve public documents only',
      });
    }
  }
}

/** CDK's Lambda integration without the invoke permission it adds per route: addRoutes grants one per function. */
class RoutesIntegration extends HttpLambdaIntegration {
  protected override completeBind(): void {}
}

/** A route's API family: `/v1/pricing` of `/v1/pricing/plans`; `$default` is a family of its own. */
const apiFamily = (path: string) => path.split('/').slice(0, 3).join('/');

/**
 * The part after `<api id>/<stage>/<method>` of an execute-api source ARN that covers every one of these paths: their
 * common folder (`/v1/pricing/*`), or any route at all (`''`) for the function behind `$default`, whose ARN is
 * `<api id>/<stage>/$default`. Path parameters are cut off: the ARN may name the route's template or the path.
 */
function routesPattern(paths: readonly string[]): string {
  if (paths.includes(HttpRouteKey.DEFAULT.key)) return '';
  let common = (paths[0] ?? '').split('{')[0] as string;
  for (const path of paths) while (!path.startsWith(common)) common = common.slice(0, -1);
  return `${common.slice(0, common.lastIndexOf('/') + 1)}*`;
}

/** The entry functions where users sign in (their outcomes are counted SaaS-wide), besides the sign-in group. */
const SIGN_IN_SCREENS = ['login', 'saml'] as const satisfies readonly EntryFunction[];

/** One JSON line per request. The path only, never the query string: it may carry a code or refresh token. */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    time: '$context.requestTime',
    ip: '$context.identity.sourceIp',
    method: '$context.httpMethod',
    route: '$context.routeKey',
    path: '$context.path',
    status: '$context.status',
    responseLength: '$context.responseLength',
    latencyMs: '$context.responseLatency',
    integrationLatencyMs: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
  }),
);
