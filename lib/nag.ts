/**
 * cdk-nag (AwsSolutions rules) findings that this stack accepts, each with the reason written beside the
 * construct it concerns. The infra test runs the rules and fails on anything not acknowledged here.
 */
import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** `rules`: AwsSolutions rule id (with its finding, e.g. `AwsSolutions-IAM5[Resource::*]`) → why it is accepted. */
export function acceptNagFindings(scope: IConstruct, rules: Record<string, string>): void {
  Validations.of(scope).acknowledge(...Object.entries(rules).map(([id, reason]) => ({ id: `AwsSolutions::${id}`, reason })));
}
