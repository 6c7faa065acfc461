/**
 * The stack's resource budget (docs/deployment-shape.md, "Resource budget"): CloudFormation refuses a stack of more
 * than 500 resources, and API Gateway an HTTP API of more than 300 routes (its default quota). One synth of the largest
 * shape the props allow (both custom domains, tracing), bundling skipped; it prints the count per resource type.
 */
import { beforeAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { App } from 'aws-cdk-lib';
import { ServiceStack } from '../../lib/service-stack.js';

/**
 * Well under CloudFormation's 500, so that an API family or two can still land before anyone must move things. It
 * was 350 while the stack had 309; with greedy routes (docs/decisions.md, decision 17) it has about 200.
 */
const BUDGET = 300;
/** API Gateway's default quota of routes per HTTP API (it can be raised on request). */
const ROUTE_QUOTA = 300;

let counts: Map<string, number>;
let total: number;

beforeAll(() => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new ServiceStack(app, 'Budget', {
    tracing: true,
    customDomain: { domainName: 'auth-api.example.com', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0000-1111' },
    loginDomain: { domainName: 'login.example.com', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/2222' },
  });
  const { Resources } = app.synth().getStackByName(stack.stackName).template as { Resources: Record<string, { Type: string }> };
  counts = new Map();
  for (const { Type } of Object.values(Resources)) counts.set(Type, (counts.get(Type) ?? 0) + 1);
  total = Object.keys(Resources).length;
  const table = [...counts].sort(([a, x], [b, y]) => y - x || a.localeCompare(b)).map(([type, n]) => `${String(n).padStart(5)}  ${type}`);
  process.stdout.write(`\nCloudFormation resources: ${total} (budget ${BUDGET}, limit 500)\n${table.join('\n')}\n`);
});

describe('the resource budget', () => {
  it(`keeps the stack at ${BUDGET} resources or fewer`, () => {
    assert.ok(
      total <= BUDGET,
      `the stack has ${total} resources, over its budget of ${BUDGET} (CloudFormation's limit is 500). Do not raise the budget. ` +
        'Where the next resources go: an operation goes in the route table (shared/routes.ts) and costs nothing here when ' +
        "its folder is its function's already (GATEWAY_ROUTES makes one greedy route per folder a function owns); keep new " +
        'folders of an API family in one function where you can. The next API family with a function of its own goes ' +
        'in a nested stack of its own (its function, log group, role, integration, routes and permission; one resource ' +
        'here). docs/deployment-shape.md, "Resource budget"',
    );
  });

  it('spends one resource per route: no permission, integration or role per route', () => {
    const routes = counts.get('AWS::ApiGatewayV2::Route') ?? 0;
    const functions = counts.get('AWS::Lambda::Function') ?? 0;
    assert.ok(routes > functions);
    const invokers = (counts.get('AWS::Events::Rule') ?? 0) + 1; // the event rules, CloudWatch Logs
    assert.ok((counts.get('AWS::Lambda::Permission') ?? 0) <= functions + invokers, 'one invoke permission per function and per other invoker');
    assert.ok((counts.get('AWS::ApiGatewayV2::Integration') ?? 0) <= functions, 'an integration per function');
    assert.ok((counts.get('AWS::IAM::Role') ?? 0) <= functions, 'a role per set of grants');
    assert.equal(counts.get('AWS::IAM::Policy') ?? 0, 0, 'grants inline in their role');
  });

  it(`stays inside API Gateway's ${ROUTE_QUOTA} routes per API`, () => {
    const routes = counts.get('AWS::ApiGatewayV2::Route') ?? 0;
    assert.ok(
      routes <= ROUTE_QUOTA,
      `the API has ${routes} routes, over API Gateway's default quota of ${ROUTE_QUOTA} per HTTP API: ask AWS to raise it for the account before deploying, or serve the next API family from an API of its own (docs/deployment-shape.md, "Resource budget")`,
    );
  });
});
