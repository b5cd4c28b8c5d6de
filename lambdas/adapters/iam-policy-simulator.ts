import { type EvaluationResult, type IAMClient, SimulatePrincipalPolicyCommand } from '@aws-sdk/client-iam';
import type { DeniedAction, PolicyCheck, PolicySimulation, PolicySimulator } from '../../core/async/index.js';
import { errorMessage, errorName } from './aws-errors.js';

/**
 * IAM `SimulatePrincipalPolicy` (IAM API reference): evaluates the principal's policies for each
 * action on each resource, without calling anything. The caller needs `iam:SimulatePrincipalPolicy`
 * on the principal (Service Authorization Reference, IAM: its resource types are role, user and
 * group ARNs). Whatever makes the simulation itself fail (AccessDenied, throttling, a deleted
 * role) is `unavailable`: the check is advice, and must not block a run on its own failure.
 */
export class IamPolicySimulator implements PolicySimulator {
  constructor(private readonly client: IAMClient) {}

  async simulate(principalArn: string, checks: readonly PolicyCheck[]): Promise<PolicySimulation> {
    const denied: DeniedAction[] = [];
    try {
      for (const check of checks) denied.push(...(await this.deniedOf(principalArn, check)));
    } catch (error) {
      return {
        status: 'unavailable',
        reason: `iam:SimulatePrincipalPolicy on ${principalArn} failed: ${errorName(error) ?? 'Error'}: ${errorMessage(error)}`,
      };
    }
    return { status: 'simulated', denied };
  }

  /** One check, every page of it (`IsTruncated` / `Marker`). */
  private async deniedOf(principalArn: string, check: PolicyCheck): Promise<DeniedAction[]> {
    const denied: DeniedAction[] = [];
    let marker: string | undefined;
    do {
      const page = await this.client.send(
        new SimulatePrincipalPolicyCommand({
          PolicySourceArn: principalArn,
          ActionNames: [check.action],
          ResourceArns: [...check.resourceArns],
          ...(check.context === undefined
            ? {}
            : {
                ContextEntries: Object.entries(check.context).map(([name, value]) => ({
                  ContextKeyName: name,
                  ContextKeyValues: [value],
                  ContextKeyType: 'string' as const,
                })),
              }),
          ...(marker === undefined ? {} : { Marker: marker }),
        }),
      );
      for (const result of page.EvaluationResults ?? []) denied.push(...deniedIn(result));
      marker = page.IsTruncated === true ? page.Marker : undefined;
    } while (marker !== undefined);
    return denied;
  }
}

/** `EvalDecision` is `allowed`, `explicitDeny` or `implicitDeny` (IAM `PolicyEvaluationDecisionType`). */
function deniedIn(result: EvaluationResult): DeniedAction[] {
  const action = result.EvalActionName ?? '';
  const perResource = result.ResourceSpecificResults ?? [];
  if (perResource.length > 0) {
    return perResource
      .filter((r) => r.EvalResourceDecision !== 'allowed')
      .map((r) => ({
        action,
        resourceArn: r.EvalResourceName ?? '*',
        decision: r.EvalResourceDecision ?? 'implicitDeny',
      }));
  }
  return result.EvalDecision === 'allowed'
    ? []
    : [
        {
          action,
          resourceArn: result.EvalResourceName ?? '*',
          decision: result.EvalDecision ?? 'implicitDeny',
        },
      ];
}
