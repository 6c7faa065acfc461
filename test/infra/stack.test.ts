/**
 * The synthesized CloudFormation template: table shape, one route per route-table row, least privilege,
 * KMS grants per function, mail events, monitoring, and the optional custom domain and tracing.
 */
import { beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { GroupFunction } from '../../lib/group-function.js';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { ServiceStack, type ServiceStackProps } from '../../lib/service-stack.js';
import { ServiceTable } from '../../lib/table.js';
import { BUSINESS_METRICS } from '../../shared/metrics.js';
import { API_BASE_PATHS, BASE_PATH, GATEWAY_ROUTES, GROUPS, ROUTES, SCIM_PATH } from '../../shared/routes.js';
import {
  API_LOG_PARTITIONS,
  CONSOLE_SESSION_PARTITIONS,
  CONSOLE_THROTTLE_PARTITIONS,
  EVENT_PARTITIONS,
  EVENT_SEQUENCE_PARTITIONS,
  ACTIVE_USERS_PARTITIONS,
  BEHAVIOR_PARTITIONS,
  SIGN_IN_COUNTS_PARTITIONS,
} from '../../shared/store/keys.js';

type Resource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string; Condition?: string };
interface Statement {
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}
interface Synthesized {
  template: Template;
  resources: Record<string, Resource>;
  outputs: Record<string, { Value: unknown }>;
}

/** Bundling skipped: these tests are about the template, and one full synth runs in CI. */
function synthesize(props: ServiceStackProps = {}): Synthesized {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const template = Template.fromStack(new ServiceStack(app, 'Test', props));
  const json = template.toJSON() as { Resources: Record<string, Resource>; Outputs: Record<string, { Value: unknown }> };
  return { template, resources: json.Resources, outputs: json.Outputs };
}

const RESTORED_STREAM = 'arn:aws:dynamodb:eu-west-1:123456789012:table/restored-2026-01-05/stream/2026-01-05T10:00:00.000';
let template: Template;
let resources: Record<string, Resource>;
let outputs: Record<string, { Value: unknown }>;
/** Everything optional turned on. */
let custom: Synthesized;

beforeAll(() => {
  ({ template, resources, outputs } = synthesize());
  custom = synthesize({
    tracing: true,
    throttle: { rateLimit: 50, burstLimit: 75 },
    customDomain: { domainName: 'auth-api.example.com', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0000-1111' },
    existingTable: { tableName: 'restored-2026-01-05', tableStreamArn: RESTORED_STREAM },
    tokenIssuer: 'https://issuer.example.com/v1/auth',
  });
});

const WORKERS = ['scheduled', 'mail-events', 'apilog-writer'];
const ALL_FUNCTIONS = [...GROUPS, 'login', 'saml', 'console', ...WORKERS];
/**
 * The login function's routes (the hosted screen, the OpenID Connect authorization server; the icon browsers ask
 * every host for, a page rather than a JSON 404) and the SAML function's.
 */
const LOGIN_ROUTES = [`ANY ${BASE_PATH}/login/{proxy+}`, `ANY ${BASE_PATH}/oauth2/{proxy+}`, 'GET /favicon.ico'];
const SAML_ROUTE = `ANY ${BASE_PATH}/saml2/{proxy+}`;
/** SCIM (issue 41): one prefix route to the tenant-users group's function, beside its table routes. */
const SCIM_ROUTE = `ANY ${BASE_PATH}${SCIM_PATH}/{proxy+}`;
/** The operator console's function (web/console): its entry and everything under it. */
const CONSOLE_ROUTES = [`ANY ${BASE_PATH}/console`, `ANY ${BASE_PATH}/console/{proxy+}`];
/** The functions that open no sealed secret (kms:Decrypt), and those that write nothing. */
const NEVER_OPENS = new Set(['mail-events', 'apilog-writer']);
const READ_ONLY = new Set(['public', 'apilog']);
// tenants: a tenant's OpenID Connect client secret (issue 41).
const SEALERS = new Set(['configuration', 'saas-users', 'tenant-users', 'invitations', 'sign-in', 'login', 'saml', 'console', 'billing', 'tenants']);

const ofType = (type: string, from = resources) => Object.entries(from).filter(([, r]) => r.Type === type);

/** The function (logical id) whose environment says it serves `group`. */
function functionOf(group: string, from = resources): string {
  const found = ofType('AWS::Lambda::Function', from).find(([, r]) => environmentOf(r).SERVICE_GROUP === group);
  assert.ok(found, `a function for ${group}`);
  return found[0];
}

function environmentOf(fn: Resource): Record<string, unknown> {
  return (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
}

/** Every statement the function's role holds: in its own inline policies and in any policy attached to it. */
function statementsOf(functionId: string, from = resources): Statement[] {
  const roleRef = (from[functionId]!.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const inline = (from[roleRef]!.Properties.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[];
  return [
    ...inline.flatMap((p) => p.PolicyDocument.Statement),
    ...ofType('AWS::IAM::Policy', from)
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleRef))
      .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement),
  ];
}

const actionsOf = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);
const policyActionsOf = (functionId: string) => statementsOf(functionId).flatMap(actionsOf);

/** A CloudFormation string with its tokens replaced by `<ref>`, for reading the dashboard body. */
function flatten(value: unknown): string {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  return join ? join[1].map(flatten).join(join[0]) : '<ref>';
}

describe('service stack', () => {
  it('has one table with generic keys, gsi1, TTL, recovery, on-demand, retained', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        GlobalSecondaryIndexes: [
          Match.objectLike({
            IndexName: 'gsi1',
            KeySchema: [
              { AttributeName: 'gsi1pk', KeyType: 'HASH' },
              { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
            ],
          }),
        ],
        SSESpecification: Match.objectLike({ SSEEnabled: true, SSEType: 'KMS' }),
        StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      }),
    });
  });

  it('encrypts the table with the secrets key, a retained customer-managed key with rotation on', () => {
    const table = ofType('AWS::DynamoDB::Table')[0]![1];
    const keyId = (table.Properties.SSESpecification as { KMSMasterKeyId: { 'Fn::GetAtt': [string] } }).KMSMasterKeyId['Fn::GetAtt'][0];
    const key = resources[keyId]!;
    assert.equal(key.Type, 'AWS::KMS::Key');
    assert.equal(key.Properties.EnableKeyRotation, true);
    assert.equal(key.DeletionPolicy, 'Retain');
    for (const [, k] of ofType('AWS::KMS::Key')) assert.equal(k.Properties.EnableKeyRotation, true);
    assert.deepEqual(outputs.KmsKeyArn!.Value, { 'Fn::GetAtt': [keyId, 'Arn'] });
  });

  it("has the route table's gateway routes (a greedy route per folder a function owns), the entries' and $default", () => {
    const keys = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey as string);
    const tableKeys = GATEWAY_ROUTES.map((r) => `${r.method} ${r.path}`);
    assert.equal(keys.length, tableKeys.length + LOGIN_ROUTES.length + CONSOLE_ROUTES.length + 3);
    assert.deepEqual(new Set(keys), new Set([...tableKeys, ...LOGIN_ROUTES, SAML_ROUTE, SCIM_ROUTE, ...CONSOLE_ROUTES, '$default']));
    // Far fewer than a route per row: room under API Gateway's 300 routes per API.
    assert.ok(tableKeys.length * 2 < ROUTES.length, `${tableKeys.length} routes for ${ROUTES.length} rows`);
    assert.ok(
      keys.every(
        (k) =>
          k === '$default' ||
          k === 'GET /favicon.ico' ||
          CONSOLE_ROUTES.includes(k) ||
          Object.values(API_BASE_PATHS).some((base) => k.split(' ')[1]!.startsWith(`${base}/`)),
      ),
    );
  });

  it('sends every route to the function of its group', () => {
    const integrationTarget = new Map<string, string>();
    for (const [id, integration] of ofType('AWS::ApiGatewayV2::Integration')) {
      const uri = integration.Properties.IntegrationUri as { 'Fn::GetAtt': [string, string] };
      integrationTarget.set(id, uri['Fn::GetAtt'][0]);
    }
    for (const [, route] of ofType('AWS::ApiGatewayV2::Route')) {
      const key = route.Properties.RouteKey as string;
      const target = (route.Properties.Target as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1][1] as { Ref: string };
      const group =
        key === '$default'
          ? 'public'
          : LOGIN_ROUTES.includes(key)
            ? 'login'
            : key === SAML_ROUTE
              ? 'saml'
              : key === SCIM_ROUTE
                ? 'tenant-users'
                : CONSOLE_ROUTES.includes(key)
                  ? 'console'
                  : GATEWAY_ROUTES.find((r) => `${r.method} ${r.path}` === key)!.fn;
      assert.equal(integrationTarget.get(target.Ref), functionOf(group), key);
    }
  });

  it('lets the API invoke each function through one permission for all its routes, from this API only', () => {
    const [apiId] = ofType('AWS::ApiGatewayV2::Api').map(([id]) => id);
    const ACCOUNT = '123456789012';
    /** A source ARN with the API's id as `API`, the way the permission's ArnLike condition reads it. */
    const arnOf = (value: unknown): string => {
      if (typeof value === 'string') return value;
      const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
      if (join) return join[1].map(arnOf).join(join[0]);
      const ref = (value as { Ref?: string }).Ref;
      return (
        ({ [apiId!]: 'API', 'AWS::Partition': 'aws', 'AWS::Region': 'eu-west-1', 'AWS::AccountId': ACCOUNT } as Record<string, string>)[ref!] ??
        '<ref>'
      );
    };
    // Each function's permissions: one per API family its routes are in (a source ARN holds one pattern).
    const allows = new Map<string, RegExp[]>();
    for (const [id, permission] of ofType('AWS::Lambda::Permission').filter(([, p]) => p.Properties.Principal === 'apigateway.amazonaws.com')) {
      const fn = (permission.Properties.FunctionName as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      const pattern = arnOf(permission.Properties.SourceArn);
      assert.match(pattern, new RegExp(`^arn:aws:execute-api:eu-west-1:${ACCOUNT}:API/\\*/\\*`), `${id} names this API`);
      allows.set(fn, [...(allows.get(fn) ?? []), new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\/]/g, '\\$&').replace(/\*/g, '.*')}$`)]);
    }
    assert.equal(allows.size, GROUPS.length + 3, 'every function with routes: the groups, login, saml, console');
    // Not one per route: one per API family. Three functions serve more than one: pricing (Pricing, Communication and
    // Analysis), configuration (Auth and Integration) and login (the screen's pages under /v1/auth, and /favicon.ico).
    assert.deepEqual(
      [...allows]
        .filter(([, patterns]) => patterns.length > 1)
        .map(([fn, patterns]) => [fn, patterns.length])
        .sort(),
      [
        [functionOf('configuration'), 2],
        [functionOf('login'), 2],
        [functionOf('pricing'), 3],
      ].sort(),
    );
    const allowedBy = (fn: string | undefined, source: string) => (allows.get(fn!) ?? []).some((pattern) => pattern.test(source));

    // What API Gateway presents as the source of a call: the stage, then the route's method and path, or `$default`.
    const called = (key: string, api = 'API') => {
      const [method, path] = key.split(' ') as [string, string | undefined];
      const source =
        path === undefined ? method : `${method === 'ANY' ? 'PATCH' : method}${path.replace(/\{proxy\+\}/, 'a/b').replace(/\{[^}]+\}/g, 'x1')}`;
      return `arn:aws:execute-api:eu-west-1:${ACCOUNT}:${api}/$default/${source}`;
    };
    for (const [, route] of ofType('AWS::ApiGatewayV2::Route')) {
      const key = route.Properties.RouteKey as string;
      const target = (route.Properties.Target as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1][1] as { Ref: string };
      const integration = resources[target.Ref]!.Properties.IntegrationUri as { 'Fn::GetAtt': [string, string] };
      const fn = integration['Fn::GetAtt'][0];
      assert.ok(allows.has(fn), `a permission for the function behind ${key}`);
      assert.ok(allowedBy(fn, called(key)), key);
      assert.ok(!allowedBy(fn, called(key, 'OTHERAPI')), `${key} from another API`);
    }
    // Scoped to a function's own API families: pricing is not invoked from an Auth route.
    assert.ok(!allowedBy(functionOf('pricing'), called(`GET ${BASE_PATH}/users`)));
  });

  it('has one Node.js 22 ARM64 function per group, the scheduled worker and the mail-event handler', () => {
    for (const group of ALL_FUNCTIONS) {
      const fn = resources[functionOf(group)]!;
      assert.equal(fn.Properties.Runtime, 'nodejs22.x');
      assert.deepEqual(fn.Properties.Architectures, ['arm64']);
      assert.equal(environmentOf(fn).METRICS_ENABLED, 'true', `${group} emits its metrics`);
    }
    assert.equal(ofType('AWS::Lambda::Function').length, ALL_FUNCTIONS.length);
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionOf('scheduled'), 'Arn'] } })],
    });
    for (const [, logGroup] of ofType('AWS::Logs::LogGroup')) assert.equal(logGroup.Properties.RetentionInDays, 30);
  });

  it('lets each function touch only what it needs', () => {
    const writes = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
    const publicActions = policyActionsOf(functionOf('public'));
    assert.ok(publicActions.includes('dynamodb:GetItem'));
    for (const action of writes) assert.ok(!publicActions.includes(action), `public may not ${action}`);
    assert.ok(policyActionsOf(functionOf('definitions')).includes('dynamodb:PutItem'));
    // The ApiLog group only reads: its calls' records, like every group's, are written by the API log writer.
    const apilog = policyActionsOf(functionOf('apilog'));
    for (const action of writes) assert.ok(!apilog.includes(action), `apilog may not ${action}`);
    // The writer writes records and sign-in counts, each into its own partitions, and reads nothing.
    const writer = statementsOf(functionOf('apilog-writer'));
    const tableActions = writer.flatMap(actionsOf).filter((action) => action.startsWith('dynamodb:'));
    assert.deepEqual([...new Set(tableActions)].sort(), ['dynamodb:BatchWriteItem', 'dynamodb:UpdateItem']);
    const leadingKeys = (action: string) => writer.filter((st) => actionsOf(st).includes(action)).map((st) => st.Condition);
    // The API log's records and the events' (docs/events.md), and the counters of sign-ins and of each subject's events.
    assert.deepEqual(leadingKeys('dynamodb:BatchWriteItem'), [
      { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [API_LOG_PARTITIONS, EVENT_PARTITIONS] } },
    ]);
    assert.deepEqual(leadingKeys('dynamodb:UpdateItem'), [
      {
        'ForAllValues:StringLike': {
          'dynamodb:LeadingKeys': [SIGN_IN_COUNTS_PARTITIONS, EVENT_SEQUENCE_PARTITIONS, ACTIVE_USERS_PARTITIONS, BEHAVIOR_PARTITIONS],
        },
      },
      // A sign-in's time copied to the user's directory entry (decision 18): that attribute (and the entry's shard) only.
      {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['SAAS#*#USER#*'] },
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'last_login_at', 'gsi1pk'] },
      },
    ]);
    assert.equal(API_LOG_PARTITIONS, 'SAAS#*#APILOG#*');
    // The console writes its failed sign-in counts and signed-out sessions only: every data call it makes goes through the API.
    const operatorConsole = statementsOf(functionOf('console'));
    for (const action of ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']) {
      assert.ok(!operatorConsole.flatMap(actionsOf).includes(action), `console may not ${action}`);
    }
    const updates = operatorConsole.filter((st) => actionsOf(st).includes('dynamodb:UpdateItem'));
    assert.deepEqual(
      updates.map((st) => st.Condition),
      [{ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [CONSOLE_THROTTLE_PARTITIONS, CONSOLE_SESSION_PARTITIONS] } }],
    );

    for (const group of ALL_FUNCTIONS) {
      const actions = policyActionsOf(functionOf(group));
      assert.equal(actions.includes('ses:SendEmail'), group === 'scheduled', `${group} and mail`);
      assert.equal(actions.includes('ses:CreateEmailIdentity'), group === 'configuration', `${group} and SES identities`);
      for (const saasDomains of ['acm:RequestCertificate', 'apigateway:POST', 'iam:CreateServiceLinkedRole']) {
        assert.equal(actions.includes(saasDomains), group === 'configuration', `${group} and SaaS domains (${saasDomains})`);
      }
      for (const action of actions) {
        assert.ok(action !== '*' && !action.endsWith(':*'), `${group} has a wildcard action ${action}`);
        assert.ok(!['dynamodb:DeleteTable', 'dynamodb:CreateTable', 'dynamodb:Scan', 'kms:ScheduleKeyDeletion'].includes(action));
      }
      for (const statement of statementsOf(functionOf(group)).filter((s) => actionsOf(s)[0]!.startsWith('dynamodb:'))) {
        assert.ok(!JSON.stringify(statement.Resource).includes('index/*'), `${group} reaches gsi1 only, not every index`);
      }
    }
  });

  it('lets the configuration function map a SaaS domain to this API and no other, and make only API Gateway’s linked role', () => {
    const configuration = functionOf('configuration');
    const [apiId] = ofType('AWS::ApiGatewayV2::Api').map(([id]) => id);
    assert.deepEqual(environmentOf(resources[configuration]!).API_ID, { Ref: apiId });
    const linkedRole = statementsOf(configuration).find((s) => actionsOf(s).includes('iam:CreateServiceLinkedRole'));
    assert.deepEqual(linkedRole?.Condition, { StringEquals: { 'iam:AWSServiceName': 'ops.apigateway.amazonaws.com' } });
    const apiGateway = statementsOf(configuration).find((s) => actionsOf(s).includes('apigateway:POST'));
    const resourcesOf = JSON.stringify(apiGateway?.Resource);
    for (const path of ['::/domainnames"', '::/domainnames/*"', '::/domainnames/*/apimappings"']) assert.ok(resourcesOf.includes(path), path);
  });

  it('grants kms:GenerateDataKey (sealing) only to the groups that seal, kms:Decrypt to those that open', () => {
    for (const group of ALL_FUNCTIONS) {
      const statements = statementsOf(functionOf(group));
      // DescribeKey (key metadata, from the stream grant of the scheduled worker) neither seals nor opens.
      const direct = new Set(
        statements
          .filter((s) => !s.Condition)
          .flatMap(actionsOf)
          .filter((a) => a.startsWith('kms:') && a !== 'kms:DescribeKey'),
      );
      const expected = NEVER_OPENS.has(group) ? [] : SEALERS.has(group) ? ['kms:Decrypt', 'kms:GenerateDataKey'] : ['kms:Decrypt'];
      assert.deepEqual([...direct].sort(), expected, `${group}: the secret box's own KMS calls`);

      // The table's encryption uses the same key, but only through DynamoDB.
      const viaTable = statements.filter((s) => s.Condition?.StringEquals?.['kms:ViaService']);
      assert.equal(viaTable.length, 1, `${group}: one statement for the table's key`);
      assert.match(flatten(viaTable[0]!.Condition!.StringEquals!['kms:ViaService']), /^dynamodb\..+\.amazonaws\.com$/);
      assert.equal(actionsOf(viaTable[0]!).includes('kms:GenerateDataKey*'), !READ_ONLY.has(group), `${group}: writes through DynamoDB`);
    }
  });
});

describe('function roles', () => {
  it('hold their grants inline, one role per set of grants; a grant to one sharer alone is refused', () => {
    assert.equal(ofType('AWS::IAM::Policy').length, 0, 'no policy beside a role');
    const roleOf = (group: string) => (resources[functionOf(group)]!.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    assert.equal(roleOf('tenant-users'), roleOf('saas-users'));
    assert.notEqual(roleOf('definitions'), roleOf('saas-users'), 'sealing is a grant of its own');
    assert.notEqual(roleOf('console'), roleOf('public'));
    for (const [id, role] of ofType('AWS::IAM::Role')) {
      const sharers = ALL_FUNCTIONS.filter((group) => roleOf(group) === id);
      assert.ok(sharers.length > 0, `${id} serves a function`);
      assert.equal(JSON.stringify(role.Properties.ManagedPolicyArns).match(/AWSLambdaBasicExecutionRole/g)?.length, 1, id);
    }

    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Roles');
    const secretsKey = new Key(stack, 'Key');
    const { table } = new ServiceTable(stack, 'Store', { encryptionKey: secretsKey });
    const props = {
      table,
      secretsKey,
      writes: false,
      seals: false,
      timeout: Duration.seconds(10),
      logRetention: RetentionDays.ONE_DAY,
      defaultDomainName: 'a.example.com',
      tracing: false,
    };
    const publicFn = new GroupFunction(stack, 'Public', { ...props, group: 'public' }).fn;
    const apilogFn = new GroupFunction(stack, 'Apilog', { ...props, group: 'apilog', timeout: Duration.seconds(29) }).fn;
    assert.equal(apilogFn.role, publicFn.role, 'the same grants, one role');
    const extra = new PolicyStatement({ actions: ['sqs:SendMessage'], resources: ['*'] });
    assert.throws(() => publicFn.addToRolePolicy(extra), /serves public, apilog/);
    // A role alone takes a grant of its own, and nobody joins it afterwards.
    const writerFn = new GroupFunction(stack, 'Definitions', { ...props, group: 'definitions', writes: true }).fn;
    writerFn.addToRolePolicy(extra);
    const tenantsFn = new GroupFunction(stack, 'Tenants', { ...props, group: 'tenants', writes: true }).fn;
    assert.notEqual(tenantsFn.role, writerFn.role);
    assert.notEqual(new GroupFunction(stack, 'Sealer', { ...props, group: 'saas-users', seals: true }).fn.role, publicFn.role);
  });
});

describe('API stage', () => {
  it('has throttling defaults, detailed per-route metrics and JSON access logs without query strings', () => {
    const stage = ofType('AWS::ApiGatewayV2::Stage')[0]![1].Properties;
    assert.deepEqual(stage.DefaultRouteSettings, { DetailedMetricsEnabled: true, ThrottlingBurstLimit: 200, ThrottlingRateLimit: 100 });
    const format = JSON.parse((stage.AccessLogSettings as { Format: string }).Format) as Record<string, string>;
    assert.equal(format.requestId, '$context.requestId');
    assert.equal(format.route, '$context.routeKey');
    assert.ok(!Object.values(format).some((v) => /querystring|authorizer|header/i.test(v)), 'no query string or headers in access logs');
  });

  it('takes throttling from the stack props', () => {
    const stage = ofType('AWS::ApiGatewayV2::Stage', custom.resources)[0]![1].Properties;
    assert.deepEqual(stage.DefaultRouteSettings, { DetailedMetricsEnabled: true, ThrottlingBurstLimit: 75, ThrottlingRateLimit: 50 });
  });

  it('has no custom domain unless asked; with one, a regional domain, its mapping and the DNS target as output', () => {
    assert.equal(ofType('AWS::ApiGatewayV2::DomainName').length, 0);
    assert.equal(outputs.CustomDomainTarget, undefined);

    const [domainId, domain] = ofType('AWS::ApiGatewayV2::DomainName', custom.resources)[0]!;
    assert.equal(domain.Properties.DomainName, 'auth-api.example.com');
    custom.template.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainNameConfigurations: [
        Match.objectLike({ CertificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0000-1111', EndpointType: 'REGIONAL' }),
      ],
    });
    custom.template.hasResourceProperties('AWS::ApiGatewayV2::ApiMapping', { DomainName: { Ref: domainId }, Stage: Match.anyValue() });
    assert.deepEqual(custom.outputs.CustomDomainTarget!.Value, { 'Fn::GetAtt': [domainId, 'RegionalDomainName'] });
    assert.equal(custom.outputs.ApiUrl!.Value, `https://auth-api.example.com${BASE_PATH}`);
    assert.equal(custom.outputs.LoginScreenUrl!.Value, `https://auth-api.example.com${BASE_PATH}/login/`);
  });

  it('gives each SaaS’s login screen a host of its own only when asked: a wildcard domain, its mapping, LOGIN_DOMAIN everywhere', () => {
    for (const group of [...GROUPS, 'login', 'saml', 'console']) assert.equal(environmentOf(resources[functionOf(group)]!).LOGIN_DOMAIN, undefined);
    const screens = synthesize({
      loginDomain: { domainName: 'login.example.com', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/2222' },
    });
    const [domainId, domain] = ofType('AWS::ApiGatewayV2::DomainName', screens.resources)[0]!;
    assert.equal(domain.Properties.DomainName, '*.login.example.com');
    screens.template.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainNameConfigurations: [
        Match.objectLike({ CertificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/2222', EndpointType: 'REGIONAL' }),
      ],
    });
    screens.template.hasResourceProperties('AWS::ApiGatewayV2::ApiMapping', { DomainName: { Ref: domainId }, Stage: Match.anyValue() });
    assert.deepEqual(screens.outputs.LoginDomainTarget!.Value, { 'Fn::GetAtt': [domainId, 'RegionalDomainName'] });
    for (const group of [...GROUPS, 'login', 'saml', 'console']) {
      assert.equal(environmentOf(screens.resources[functionOf(group, screens.resources)]!).LOGIN_DOMAIN, 'login.example.com', group);
    }
  });

  it('gives every API function the API URL as PUBLIC_BASE_URL and, unless one is given, as TOKEN_ISSUER', () => {
    for (const group of [...GROUPS, 'login', 'saml', 'console']) {
      const env = environmentOf(resources[functionOf(group)]!);
      assert.deepEqual(env.PUBLIC_BASE_URL, outputs.ApiUrl!.Value, group);
      assert.deepEqual(env.TOKEN_ISSUER, outputs.ApiUrl!.Value, group);
      const customEnv = environmentOf(custom.resources[functionOf(group, custom.resources)]!);
      assert.equal(customEnv.PUBLIC_BASE_URL, `https://auth-api.example.com${BASE_PATH}`);
      assert.equal(customEnv.TOKEN_ISSUER, 'https://issuer.example.com/v1/auth');
    }
  });
});

describe('a restored table', () => {
  it("is used instead of a new one: the functions, the grants and the courier's stream all point at it", () => {
    assert.equal(ofType('AWS::DynamoDB::Table', custom.resources).length, 0);
    for (const group of ALL_FUNCTIONS) {
      const fnId = functionOf(group, custom.resources);
      assert.equal(environmentOf(custom.resources[fnId]!).TABLE_NAME, 'restored-2026-01-05');
      const tableStatement = statementsOf(fnId, custom.resources).find((s) =>
        actionsOf(s).some((a) => /^dynamodb:(GetItem|BatchWriteItem)$/.test(a)),
      );
      assert.match(JSON.stringify(tableStatement?.Resource), /table\/restored-2026-01-05/);
    }
    const mapping = ofType('AWS::Lambda::EventSourceMapping', custom.resources)[0]![1];
    assert.equal(mapping.Properties.EventSourceArn, RESTORED_STREAM);
  });
});

describe('tracing', () => {
  it('is off by default and on with the tracing prop, for every function', () => {
    for (const group of ALL_FUNCTIONS) {
      const off = resources[functionOf(group)]!;
      assert.equal(environmentOf(off).TRACING_ENABLED, 'false');
      assert.notDeepEqual(off.Properties.TracingConfig, { Mode: 'Active' });
      const on = custom.resources[functionOf(group, custom.resources)]!;
      assert.equal(environmentOf(on).TRACING_ENABLED, 'true');
      assert.deepEqual(on.Properties.TracingConfig, { Mode: 'Active' });
      const xray = statementsOf(functionOf(group, custom.resources), custom.resources).flatMap(actionsOf);
      assert.ok(xray.includes('xray:PutTraceSegments'), `${group} may send traces`);
    }
  });
});

describe('the API log writer', () => {
  it('gets the lines of every function that tells them, through one subscription filter each, and sets failed batches aside', () => {
    const writer = functionOf('apilog-writer');
    const signed = GROUPS.filter((group) => ROUTES.some((route) => route.group === group && route.permission !== null));
    const tellers = [...signed, 'login', 'saml'];
    const filters = ofType('AWS::Logs::SubscriptionFilter');
    assert.equal(filters.length, tellers.length);
    const logGroupOf = (group: string) => (resources[functionOf(group)]!.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
    assert.deepEqual(
      filters.map(([, f]) => (f.Properties.LogGroupName as { Ref: string }).Ref).sort(),
      tellers.map(logGroupOf).sort(),
      'the log group of each function with signed routes, the login screen and SAML',
    );
    for (const [, filter] of filters) {
      assert.deepEqual(filter.Properties.DestinationArn, { 'Fn::GetAtt': [writer, 'Arn'] });
      assert.equal(
        filter.Properties.FilterPattern,
        '{ ($.shipped = "api-log") || ($.shipped = "sign-in") || ($.shipped = "event") || ($.shipped = "page-view") }',
      );
    }
    const invokes = ofType('AWS::Lambda::Permission').filter(([, p]) => p.Properties.Principal === 'logs.amazonaws.com');
    assert.equal(invokes.length, 1, 'one permission for CloudWatch Logs, of this account only');
    assert.deepEqual(invokes[0]![1].Properties.SourceAccount, { Ref: 'AWS::AccountId' });
    const [, asyncConfig] = ofType('AWS::Lambda::EventInvokeConfig')[0]!;
    assert.deepEqual(asyncConfig.Properties.FunctionName, { Ref: writer });
    assert.equal(asyncConfig.Properties.MaximumRetryAttempts, 2);
    const onFailure = (asyncConfig.Properties.DestinationConfig as { OnFailure: { Destination: { 'Fn::GetAtt': [string, string] } } }).OnFailure;
    assert.equal(resources[onFailure.Destination['Fn::GetAtt'][0]]!.Type, 'AWS::SQS::Queue');
  });
});

describe('mail delivery', () => {
  it('feeds new outbox items from the stream to the scheduled worker, with a dead-letter queue', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping');
    assert.equal(mappings.length, 1);
    const mapping = mappings[0]![1].Properties;
    assert.deepEqual(mapping.FunctionName, { Ref: functionOf('scheduled') });
    assert.deepEqual(mapping.FunctionResponseTypes, ['ReportBatchItemFailures']);
    assert.equal(mapping.BisectBatchOnFunctionError, true);
    const filter = JSON.stringify(mapping.FilterCriteria);
    assert.ok(filter.includes('OutboxMail') && filter.includes('INSERT'), filter);
    const destination = (mapping.DestinationConfig as { OnFailure: { Destination: { 'Fn::GetAtt': [string, string] } } }).OnFailure.Destination;
    assert.equal(resources[destination['Fn::GetAtt'][0]]!.Type, 'AWS::SQS::Queue');
  });

  it('sends every mail through a configuration set with reputation metrics, whose bounces and complaints reach the mail-event handler', () => {
    const [setId, set] = ofType('AWS::SES::ConfigurationSet')[0]!;
    assert.deepEqual(set.Properties.ReputationOptions, { ReputationMetricsEnabled: true });
    assert.deepEqual(environmentOf(resources[functionOf('scheduled')]!).MAIL_CONFIGURATION_SET, { Ref: setId });
    template.hasResourceProperties('AWS::SES::ConfigurationSetEventDestination', {
      ConfigurationSetName: { Ref: setId },
      EventDestination: Match.objectLike({ Enabled: true, MatchingEventTypes: ['bounce', 'complaint'], EventBridgeDestination: Match.anyValue() }),
    });
    const queueId = ofType('AWS::SQS::Queue')[0]![0];
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.ses'],
        detail: { eventType: ['Bounce', 'Complaint'], mail: { tags: { 'ses:configuration-set': [{ Ref: setId }] } } },
      },
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [functionOf('mail-events'), 'Arn'] },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [queueId, 'Arn'] } },
        }),
      ],
    });
    assert.ok(policyActionsOf(functionOf('mail-events')).includes('dynamodb:PutItem'), 'it writes suppressions');
  });
});

describe('monitoring', () => {
  function alarmWith(description: RegExp): Resource['Properties'] {
    const found = ofType('AWS::CloudWatch::Alarm').filter(([, a]) => description.test(a.Properties.AlarmDescription as string));
    assert.equal(found.length, 1, `one alarm matching ${description}`);
    return found[0]![1].Properties;
  }

  const metricNamesOf = (alarm: Resource['Properties']) =>
    alarm.MetricName
      ? [alarm.MetricName as string]
      : (alarm.Metrics as { MetricStat?: { Metric: { MetricName: string } } }[]).flatMap((m) =>
          m.MetricStat ? [m.MetricStat.Metric.MetricName] : [],
        );

  it('has an alarm topic, encrypted, with an e-mail subscription only when the AlarmEmail parameter is set', () => {
    const topics = ofType('AWS::SNS::Topic');
    assert.equal(topics.length, 1);
    assert.ok(topics[0]![1].Properties.KmsMasterKeyId, 'encrypted');
    template.hasParameter('AlarmEmail', { Type: 'String', Default: '' });
    const [, subscription] = ofType('AWS::SNS::Subscription')[0]!;
    assert.equal(subscription.Properties.Protocol, 'email');
    assert.deepEqual(subscription.Properties.Endpoint, { Ref: 'AlarmEmail' });
    assert.deepEqual(template.toJSON().Conditions[subscription.Condition!], { 'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'AlarmEmail' }, ''] }] });
  });

  it('alarms on 5xx rate, p99 latency, throttles, dead letters and SES bounce and complaint rates, all to the topic', () => {
    const serverErrors = alarmWith(/5xx/);
    assert.deepEqual(metricNamesOf(serverErrors).sort(), ['5xx', 'Count']);
    const latency = alarmWith(/p99 latency/);
    assert.equal(latency.MetricName, 'Latency');
    assert.equal(latency.ExtendedStatistic, 'p99');
    // Ten to an alarm (CloudWatch's limit on an alarm's math), every API function in one of them.
    const throttleAlarms = ofType('AWS::CloudWatch::Alarm').filter(([, a]) =>
      /throttled an API function/.test(String(a.Properties.AlarmDescription)),
    );
    assert.deepEqual(
      throttleAlarms.flatMap(([, a]) => metricNamesOf(a.Properties)),
      [...GROUPS, 'login', 'saml', 'console'].map(() => 'Throttles'),
    );
    assert.ok(throttleAlarms.every(([, a]) => metricNamesOf(a.Properties).length <= 10));
    assert.deepEqual(
      metricNamesOf(alarmWith(/scheduled worker/)),
      WORKERS.map(() => 'Throttles'),
    );
    assert.ok(metricNamesOf(alarmWith(/DynamoDB throttled/)).every((name) => name === 'ThrottledRequests'));
    const deadLetters = alarmWith(/could not be processed/);
    assert.equal(deadLetters.MetricName, 'ApproximateNumberOfMessagesVisible');
    assert.equal(deadLetters.Threshold, 0);
    assert.equal(deadLetters.ComparisonOperator, 'GreaterThanThreshold');
    assert.equal(alarmWith(/bounce rate/).MetricName, 'Reputation.BounceRate');
    assert.equal(alarmWith(/complaint rate/).MetricName, 'Reputation.ComplaintRate');

    const topicId = ofType('AWS::SNS::Topic')[0]![0];
    for (const [id, alarm] of ofType('AWS::CloudWatch::Alarm')) {
      assert.deepEqual(alarm.Properties.AlarmActions, [{ Ref: topicId }], `${id} notifies the topic`);
    }
  });

  it('has one dashboard covering API per route, functions, table, mail, business metrics and SES reputation', () => {
    const dashboards = ofType('AWS::CloudWatch::Dashboard');
    assert.equal(dashboards.length, 1);
    const body = flatten(dashboards[0]![1].Properties.DashboardBody);
    const widgets = (JSON.parse(body) as { widgets: { properties: { metrics?: unknown[] } }[] }).widgets;
    const text = JSON.stringify(widgets);
    for (const metric of ['Count', '4xx', '5xx', 'Latency']) {
      assert.ok(text.includes(`SEARCH('{AWS/ApiGateway,ApiId,Route,Stage} MetricName=\\"${metric}\\"`), `${metric} per route`);
    }
    for (const metric of ['Errors', 'Throttles', 'Duration', 'ConcurrentExecutions']) {
      const lines = widgets.flatMap((w) => w.properties.metrics ?? []).filter((m) => Array.isArray(m) && m[0] === 'AWS/Lambda' && m[1] === metric);
      assert.equal(lines.length, ALL_FUNCTIONS.length, `${metric} for every function`);
    }
    for (const needle of ['ConsumedReadCapacityUnits', 'ConsumedWriteCapacityUnits', 'ThrottledRequests', 'SuccessfulRequestLatency']) {
      assert.ok(text.includes(`"${needle}"`), needle);
    }
    assert.ok(text.includes('"ApproximateNumberOfMessagesVisible"'), 'dead-letter depth');
    for (const name of Object.keys(BUSINESS_METRICS)) assert.ok(text.includes(`"TenantIdentity","${name}"`), `business metric ${name}`);
    assert.ok(text.includes('"Reputation.BounceRate"') && text.includes('"Reputation.ComplaintRate"'), 'SES reputation');
    assert.ok(flatten(outputs.DashboardUrl!.Value).includes('#dashboards:name='));
  });
});
