/** The synthesized CloudFormation template: table shape, one route per route-table row, least privilege. */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { ServiceStack } from '../../lib/service-stack.js';
import { BASE_PATH, GROUPS, ROUTES, routeKey } from '../../shared/routes.js';

type Resource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };
let template: Template;
let resources: Record<string, Resource>;

before(() => {
  // Bundling skipped: this test is about the template, and one full synth runs in CI.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  template = Template.fromStack(new ServiceStack(app, 'Test'));
  resources = template.toJSON().Resources as Record<string, Resource>;
});

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

/** The function (logical id) whose environment says it serves `group`. */
function functionOf(group: string): string {
  const found = ofType('AWS::Lambda::Function').find(
    ([, r]) => (r.Properties.Environment as { Variables: Record<string, unknown> }).Variables.SERVICE_GROUP === group,
  );
  assert.ok(found, `a function for ${group}`);
  return found[0];
}

function policyActionsOf(functionId: string): string[] {
  const roleRef = (resources[functionId]!.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleRef))
    .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: { Action: string | string[] }[] }).Statement)
    .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
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
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
  });

  it('has exactly one API route per route-table row, plus $default', () => {
    const keys = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey as string);
    assert.equal(keys.length, ROUTES.length + 1);
    assert.deepEqual(new Set(keys), new Set([...ROUTES.map(routeKey), '$default']));
    assert.ok(keys.every((k) => k === '$default' || k.split(' ')[1]!.startsWith(BASE_PATH)));
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
      const group = key === '$default' ? 'public' : ROUTES.find((r) => routeKey(r) === key)!.group;
      assert.equal(integrationTarget.get(target.Ref), functionOf(group), key);
    }
  });

  it('has one Node.js 22 ARM64 function per group and the scheduled worker on a schedule', () => {
    for (const group of [...GROUPS, 'scheduled']) {
      const fn = resources[functionOf(group)]!;
      assert.equal(fn.Properties.Runtime, 'nodejs22.x');
      assert.deepEqual(fn.Properties.Architectures, ['arm64']);
    }
    assert.equal(ofType('AWS::Lambda::Function').length, GROUPS.length + 1);
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 minute)' });
    for (const [, logGroup] of ofType('AWS::Logs::LogGroup')) assert.equal(logGroup.Properties.RetentionInDays, 30);
  });

  it('lets each function touch only what it needs', () => {
    const writes = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
    const publicActions = policyActionsOf(functionOf('public'));
    assert.ok(publicActions.includes('dynamodb:GetItem'));
    for (const action of writes) assert.ok(!publicActions.includes(action), `public may not ${action}`);
    assert.ok(policyActionsOf(functionOf('definitions')).includes('dynamodb:PutItem'));

    for (const group of [...GROUPS, 'scheduled']) {
      const actions = policyActionsOf(functionOf(group));
      assert.ok(actions.includes('kms:Decrypt'), `${group} opens API-key secrets`);
      assert.equal(actions.includes('ses:SendEmail'), group === 'scheduled', `${group} and mail`);
      assert.equal(actions.includes('ses:CreateEmailIdentity'), group === 'configuration', `${group} and SES identities`);
      for (const action of actions) {
        assert.ok(action !== '*' && !action.endsWith(':*'), `${group} has a wildcard action ${action}`);
        assert.ok(!['dynamodb:DeleteTable', 'dynamodb:CreateTable', 'kms:ScheduleKeyDeletion'].includes(action));
      }
    }
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
});
