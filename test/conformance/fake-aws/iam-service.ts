import { type IAMClient, InvalidInputException, NoSuchEntityException } from '@aws-sdk/client-iam';
import { runSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import type { NamedPolicy } from '../iam/deployed-policies.js';
import { type AwsRecorder, installFake } from './recorder.js';

type Input = Record<string, unknown>;

/**
 * IAM's policy simulator over the roles of the account (IAM API reference,
 * SimulatePrincipalPolicy: https://docs.aws.amazon.com/IAM/latest/APIReference/API_SimulatePrincipalPolicy.html):
 * each action on each resource is evaluated against the principal's identity policies (a request
 * that gives no `ResourcePolicy`, as the project's check gives none, is judged on them alone), with the
 * request's context entries; the answer is one `EvaluationResult` per action and resource, with
 * `EvalDecision` `allowed`, `explicitDeny` or `implicitDeny`. A principal the account does not have
 * is `NoSuchEntity`; a request without actions is `InvalidInput`. The evaluation itself is an IAM
 * policy simulator (`@cloud-copilot/iam-simulate`), the one the conformance layer's own IAM
 * evaluation uses.
 */
export class FakeIamService {
  private readonly roles = new Map<string, readonly NamedPolicy[]>();

  /** A role of the account, with its identity policies. */
  addRole(roleArn: string, policies: readonly NamedPolicy[]): void {
    this.roles.set(roleArn, policies);
  }

  install(client: IAMClient, recorder: AwsRecorder): void {
    installFake({
      client,
      clientName: 'IAMClient',
      recorder,
      validationError: (message) =>
        new InvalidInputException({ message, $metadata: { httpStatusCode: 400 } }),
      handle: (command, input) => this.handle(command, input),
    });
  }

  private async handle(command: string, input: Input): Promise<unknown> {
    if (command !== 'SimulatePrincipalPolicyCommand') {
      throw new Error(`FakeIamService: ${command} is not faked; add it to the fake`);
    }
    const principal = String(input.PolicySourceArn);
    const policies = this.roles.get(principal);
    if (policies === undefined) {
      throw new NoSuchEntityException({
        message: `The role with name ${principal.split('/').pop() ?? principal} cannot be found.`,
        $metadata: { httpStatusCode: 404 },
      });
    }
    const actions = (input.ActionNames ?? []) as string[];
    if (actions.length === 0) {
      throw new InvalidInputException({
        message: 'ActionNames must not be empty',
        $metadata: { httpStatusCode: 400 },
      });
    }
    const resources =
      ((input.ResourceArns ?? []) as string[]).length > 0 ? (input.ResourceArns as string[]) : ['*'];
    const context = Object.fromEntries(
      ((input.ContextEntries ?? []) as { ContextKeyName: string; ContextKeyValues: string[] }[]).map(
        (entry) => [
          entry.ContextKeyName,
          entry.ContextKeyValues.length === 1 ? (entry.ContextKeyValues[0] ?? '') : entry.ContextKeyValues,
        ],
      ),
    );
    const account = principal.split(':')[4] ?? '';
    const roleName = principal.split('/').pop() ?? 'role';
    const results = [];
    for (const action of actions) {
      for (const resource of resources) {
        const simulation: Simulation = {
          request: {
            principal: `arn:aws:sts::${account}:assumed-role/${roleName}/simulation`,
            action,
            resource: { resource, accountId: account },
            contextVariables: context,
          },
          identityPolicies: policies.map((policy) => ({ name: policy.name, policy: policy.policy })),
          serviceControlPolicies: [],
          resourceControlPolicies: [],
        };
        const outcome = await runSimulation(simulation, {});
        if (outcome.resultType === 'error') {
          throw new InvalidInputException({
            message: `Cannot simulate ${action} on ${resource}: ${JSON.stringify(outcome.errors)}`,
            $metadata: { httpStatusCode: 400 },
          });
        }
        // "The simulation does not automatically retrieve policies for the specified resources":
        // without ResourcePolicy, IAM answers what the identity policies decide (a KMS key's own
        // policy, which KMS requires besides, is not consulted).
        const identity =
          outcome.resultType === 'single' ? outcome.result.analysis.identityAnalysis?.result : undefined;
        const verdict = identity ?? outcome.overallResult;
        const decision =
          verdict === 'Allowed'
            ? 'allowed'
            : verdict === 'ExplicitlyDenied'
              ? 'explicitDeny'
              : 'implicitDeny';
        results.push({ EvalActionName: action, EvalResourceName: resource, EvalDecision: decision });
      }
    }
    return { EvaluationResults: results, IsTruncated: false };
  }
}
