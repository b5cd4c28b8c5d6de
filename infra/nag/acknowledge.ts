import { Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Acknowledgments of cdk-nag and CloudFormation Guard findings, in one place so every one carries a
 * written reason.
 *
 * cdk-nag v3 reports through the CDK policy-validation framework and reads acknowledgments that
 * `Validations.of(construct).acknowledge()` records on the construct or one of its ancestors, so an
 * acknowledgment on a role covers that role and its policies and nothing else. Granular rules
 * (IAM5 wildcards) are acknowledged one finding at a time, `RuleId[Finding]`: the v3 form of v2's
 * `appliesTo` (node_modules/cdk-nag/MIGRATION.md).
 */

/** A reason must explain the decision; "N/A" or "not needed" does not. */
const MIN_REASON_LENGTH = 30;

export function acknowledgeNagRule(scope: IConstruct, id: string, reason: string): void {
  acknowledge(scope, id, reason, 'cdk-nag');
}

/**
 * The name the CloudFormation Guard validator reports under (`CfnGuardValidator.name`); the policy
 * validation framework matches acknowledgments of its findings as `<plugin name>::<rule name>`.
 */
export const GUARD_PLUGIN_NAME = 'cdk-validator-cfnguard';

/**
 * Acknowledges one CloudFormation Guard rule on `scope` and what it contains, by the Guard rule's
 * name (e.g. `sqs_dlq_check` for Control Tower's CT.SQS.PR.1), as synth's report prints it.
 */
export function acknowledgeGuardRule(scope: IConstruct, ruleName: string, reason: string): void {
  acknowledge(scope, `${GUARD_PLUGIN_NAME}::${ruleName}`, reason, 'CloudFormation Guard');
}

function acknowledge(scope: IConstruct, id: string, reason: string, checker: string): void {
  if (reason.trim().length < MIN_REASON_LENGTH) {
    throw new Error(
      `${checker} acknowledgment of ${id} on ${scope.node.path}: got the reason "${reason}", expected a ` +
        `sentence of at least ${MIN_REASON_LENGTH} characters saying why the finding is acceptable`,
    );
  }
  Validations.of(scope).acknowledge({ id, reason });
}

/** Acknowledges AwsSolutions-IAM5 for one wildcard resource (an ARN string or token) on `scope`. */
export function acknowledgeWildcardResource(scope: IConstruct, resource: string, reason: string): void {
  const finding = flattenCfnReference(Stack.of(scope).resolve(resource));
  acknowledgeNagRule(scope, `AwsSolutions-IAM5[Resource::${finding}]`, reason);
}

/** Acknowledges AwsSolutions-IAM5 for one wildcard action (e.g. `kms:GenerateDataKey*`) on `scope`. */
export function acknowledgeWildcardAction(scope: IConstruct, action: string, reason: string): void {
  acknowledgeNagRule(scope, `AwsSolutions-IAM5[Action::${action}]`, reason);
}

/**
 * The flat string cdk-nag prints for a resolved CloudFormation value in a finding id, e.g.
 * `{ "Fn::Join": ["", [{ "Fn::GetAtt": ["Bucket83908E77", "Arn"] }, "/runs/*"]] }` →
 * `<Bucket83908E77.Arn>/runs/*`. Mirrors cdk-nag's `flattenCfnReference` (lib/utils, not
 * exported), so the acknowledgment matches the finding without hard-coding logical ids.
 */
export function flattenCfnReference(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value.replace(/\$\{/g, '<').replace(/\}/g, '>');
  if (isRecord(value)) {
    const join = value['Fn::Join'];
    if (Array.isArray(join) && typeof join[0] === 'string' && Array.isArray(join[1])) {
      return join[1].map((item: unknown) => flattenCfnReference(item)).join(join[0]);
    }
    if ('Fn::Sub' in value) return flattenCfnReference(value['Fn::Sub']);
    const getAtt = value['Fn::GetAtt'];
    if (Array.isArray(getAtt)) {
      return `<${flattenCfnReference(getAtt[0])}.${flattenCfnReference(getAtt[1])}>`;
    }
    if ('Fn::ImportValue' in value) return flattenCfnReference(value['Fn::ImportValue']);
    if ('Ref' in value) return `<${flattenCfnReference(value.Ref)}>`;
  }
  return JSON.stringify(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
