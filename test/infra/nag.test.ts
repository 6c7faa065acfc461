/**
 * cdk-nag's AwsSolutions rules over the synthesized stack: any finding not acknowledged with a written
 * reason (lib/nag.ts, beside the construct concerned) fails the test.
 */
import { afterAll, describe, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { ServiceStack, type ServiceStackProps } from '../../lib/service-stack.js';

const outdirs: string[] = [];
afterAll(() => outdirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

interface Report {
  pluginReports: { violations: { ruleName: string; violatingConstructs: { constructPath?: string }[] }[] }[];
}

/** Synthesizes with the AwsSolutions pack; answers the unacknowledged findings ('' when there are none). */
function findings(build: (app: App) => void): string {
  const outdir = mkdtempSync(join(tmpdir(), 'nag-'));
  outdirs.push(outdir);
  // Bundling skipped: the rules read the template, not the code.
  const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
  build(app);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  try {
    app.synth();
    return '';
  } catch (error) {
    const reportFile = join(outdir, 'validation-report.json');
    if (!existsSync(reportFile)) throw error;
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
    const lines = report.pluginReports.flatMap((p) =>
      p.violations.flatMap((v) => v.violatingConstructs.map((c) => `${v.ruleName} at ${c.constructPath ?? '?'}`)),
    );
    return lines.join('\n') || String(error);
  }
}

function acknowledgementsIn(root: IConstruct): { path: string; id: string; reason: string }[] {
  return root.node
    .findAll()
    .flatMap((construct) =>
      construct.node.metadata
        .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((entry) => Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({ path: construct.node.path, id, reason }))),
    );
}

const EVERYTHING_ON: ServiceStackProps = {
  tracing: true,
  customDomain: { domainName: 'auth-api.example.com', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0000-1111' },
};

describe('cdk-nag AwsSolutions rules', () => {
  it('find nothing unacknowledged in the default stack', () => {
    assert.equal(
      findings((app) => new ServiceStack(app, 'Default')),
      '',
    );
  });

  it('find nothing unacknowledged with tracing and a custom domain', () => {
    let stack: ServiceStack | undefined;
    assert.equal(
      findings((app) => {
        stack = new ServiceStack(app, 'Full', EVERYTHING_ON);
      }),
      '',
    );
    const acknowledged = acknowledgementsIn(stack as ServiceStack);
    assert.ok(acknowledged.length > 0);
    for (const ack of acknowledged) {
      assert.match(ack.id, /^AwsSolutions::AwsSolutions-/, ack.path);
      assert.ok(ack.reason.trim().split(/\s+/).length >= 6, `${ack.path} ${ack.id}: the reason says why`);
    }
  });

  it('do run: a topic that accepts plain HTTP is reported', () => {
    assert.match(
      findings((app) => new Topic(new Stack(app, 'Careless'), 'Plain')),
      /AwsSolutions-SNS3 at Careless\/Plain/,
    );
  });
});
