import { SYNTHESIS_ENV } from '../../../local/synthesis/synthesis-env.js';
import type { SynthesizedWorkflows } from '../../../local/synthesis/synthesized-workflows.js';
import {
  ARTIFACTS_BUCKET,
  NOTIFICATION_TOPICS,
  RUN_SUMMARY_TOPIC_ARN,
  SAGEMAKER_ROLE_ARN,
  STATE_MACHINE_ARNS,
  TOKEN_TABLE,
  TOPICS_KEY_ARN,
} from '../aws-harness.js';
import type { FakeIamService } from '../fake-aws/iam-service.js';
import { ACCOUNT_ID, REGION } from '../fake-aws/sagemaker-service.js';
import { bindingsFromEnvironment, DeployedPolicies } from './deployed-policies.js';
import { IamEvaluator, type KnownDenial } from './iam-evaluator.js';

/**
 * The values the conformance layer's requests use for what each Lambda reads from its environment:
 * the deployed template binds these variables to its resources, so the policies name what the
 * requests do.
 */
export const DEPLOYED_ENVIRONMENT: Readonly<Record<string, string>> = {
  ARTIFACTS_BUCKET,
  SAGEMAKER_EXECUTION_ROLE_ARN: SAGEMAKER_ROLE_ARN,
  TASK_TOKEN_TABLE: TOKEN_TABLE,
  ASYNC_SUCCESS_TOPIC_ARN: NOTIFICATION_TOPICS.successTopicArn,
  ASYNC_ERROR_TOPIC_ARN: NOTIFICATION_TOPICS.errorTopicArn,
  ASYNC_TOPICS_KEY_ARN: TOPICS_KEY_ARN,
  RUN_SUMMARY_TOPIC_ARN,
  OPTIMIZATION_STATE_MACHINE_ARN: STATE_MACHINE_ARNS.optimization,
  ASYNC_INFERENCE_STATE_MACHINE_ARN: STATE_MACHINE_ARNS['async-inference'],
};

/**
 * Denials the conformance runs meet whose grants another branch adds. Each entry is reported apart
 * (`Verdict.known`) instead of failing; the list is emptied once those grants are merged.
 * - `sagemaker:InvokeEndpointWithResponseStream`: the load worker's role grants InvokeEndpoint only.
 * - `payloads/`: the examples keep their payloads under `payloads/`, a prefix no step may read.
 */
export const KNOWN_DENIALS: readonly KnownDenial[] = [];

/**
 * The deployed template's policies in the conformance layer's fake account; `synthesizedFor` is the
 * account and Region it was synthesized in (@default SYNTHESIS_ENV, the local synthesis's).
 */
export function deployedPolicies(
  template: Readonly<Record<string, unknown>>,
  synthesizedFor: { readonly account: string; readonly region: string } = SYNTHESIS_ENV,
): DeployedPolicies {
  return new DeployedPolicies({
    template,
    env: { partition: 'aws', region: REGION, account: ACCOUNT_ID },
    synthesizedFor,
    bindings: bindingsFromEnvironment(template, DEPLOYED_ENVIRONMENT),
  });
}

/** The evaluator of the synthesized stack's policies, with the known denials set apart. */
export function iamEvaluator(workflows: SynthesizedWorkflows): IamEvaluator {
  return new IamEvaluator(deployedPolicies(workflows.template), {
    taskTokenStateMachine: workflows.asyncInference.logicalId,
    known: KNOWN_DENIALS,
  });
}

/**
 * The stack's SageMaker execution role, with its synthesized policies, as an IAM role of the fake
 * account: the policy simulator the reused-endpoint check calls evaluates it as deployed.
 */
export function addDeployedExecutionRole(iam: FakeIamService, workflows: SynthesizedWorkflows): void {
  const deployment = deployedPolicies(workflows.template);
  iam.addRole(SAGEMAKER_ROLE_ARN, deployment.rolePolicies(deployment.roleByArn(SAGEMAKER_ROLE_ARN)));
}
