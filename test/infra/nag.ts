import { expect } from '@jest/globals';
import { Stage } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

export interface NagFinding {
  /** e.g. `AwsSolutions-S1` or `AwsSolutions-IAM5[Resource::*]` */
  readonly rule: string;
  readonly severity: string;
  readonly constructPath: string;
  readonly description: string;
}

/**
 * The AwsSolutions findings under `scope` that no acknowledgment covers, errors and warnings alike.
 *
 * cdk-nag v3 no longer annotates constructs (Annotations.fromStack finds nothing): it is a
 * policy-validation plugin whose report CDK prints at synth. `validateScope` is the entry point
 * cdk-nag provides for tests; it applies the same acknowledgments as the plugin. The app is
 * synthesized first so that the tree is final, as it is when CDK invokes the plugin.
 */
export function collectNagFindings(scope: IConstruct): NagFinding[] {
  const stage = Stage.of(scope);
  if (stage === undefined) {
    throw new Error(`collectNagFindings: ${scope.node.path} is not inside an App or Stage`);
  }
  stage.synth();
  const report = new AwsSolutionsChecks().validateScope(scope);
  return report.violations.flatMap((violation) =>
    violation.violatingResources.map((resource) => ({
      rule: violation.ruleName,
      severity: violation.severity ?? 'unknown',
      constructPath: resource.constructPath ?? resource.resourceLogicalId ?? '(unknown)',
      description: violation.description,
    })),
  );
}

/** Fails with the list of findings (rule, path, description) when any is unacknowledged. */
export function expectNoUnacknowledgedNagFindings(scope: IConstruct): void {
  const findings = collectNagFindings(scope).map(
    (finding) => `${finding.severity} ${finding.rule} at ${finding.constructPath}: ${finding.description}`,
  );
  expect(findings).toEqual([]);
}
