/**
 * The checks Application Auto Scaling makes of a real-time variant's RegisterScalableTarget and
 * PutScalingPolicy requests, for what the local host can honour: the SageMaker namespace and
 * variant dimension, a ResourceId `endpoint/<name>/variant/<variant>`, MinCapacity ≤ MaxCapacity,
 * one policy on the registered target, and target tracking on the predefined
 * `SageMakerVariantInvocationsPerInstance` (the only policy the local autoscaler runs). Whether the
 * endpoint exists and is real-time is the host's check. Sources:
 * RegisterScalableTarget (ServiceNamespace, ResourceId, ScalableDimension, MinCapacity/MaxCapacity),
 * https://docs.aws.amazon.com/autoscaling/application/APIReference/API_RegisterScalableTarget.html;
 * PutScalingPolicy (PolicyType `TargetTrackingScaling` | `StepScaling` | `PredictiveScaling`; a
 * policy needs a registered scalable target),
 * https://docs.aws.amazon.com/autoscaling/application/APIReference/API_PutScalingPolicy.html.
 */
import { LocalValidationError } from './errors.js';
import { type RealtimeScalingPolicy, realtimePolicyProblem } from './realtime-scaling.js';
import {
  type RealtimeScalingRequests,
  INVOCATIONS_PER_INSTANCE_METRIC,
  SAGEMAKER_NAMESPACE,
  VARIANT_INSTANCE_COUNT_DIMENSION,
} from '../../core/contracts/index.js';

/** A variant's ResourceId, as RegisterScalableTarget's SageMaker form spells it. */
const VARIANT_RESOURCE_ID = /^endpoint\/([^/]+)\/variant\/([^/]+)$/;

export interface CheckedRealtimeScaling {
  readonly endpointName: string;
  readonly variantName: string;
  readonly policy: RealtimeScalingPolicy;
}

/**
 * The endpoint, variant and local policy of the two requests; a `LocalValidationError` (the name
 * of Application Auto Scaling's `ValidationException`) naming every field that is wrong otherwise.
 */
export function checkRealtimeScalingRequests(requests: RealtimeScalingRequests): CheckedRealtimeScaling {
  // Plain strings: the requests may come from JSON a user edited, whatever their static types say.
  const register = requests.registerScalableTarget;
  const put = requests.putScalingPolicy;
  const configuration = put.TargetTrackingScalingPolicyConfiguration as
    RealtimeScalingRequests['putScalingPolicy']['TargetTrackingScalingPolicyConfiguration'] | undefined;
  const problems: string[] = [];
  const expect = (field: string, given: unknown, expected: string, ok: boolean): void => {
    if (!ok) problems.push(`${field}: got ${JSON.stringify(given)}, expected ${expected}`);
  };
  const namespaces: [string, string][] = [
    ['registerScalableTarget.ServiceNamespace', register.ServiceNamespace],
    ['putScalingPolicy.ServiceNamespace', put.ServiceNamespace],
  ];
  for (const [field, given] of namespaces) {
    expect(field, given, `"${SAGEMAKER_NAMESPACE}"`, given === SAGEMAKER_NAMESPACE);
  }
  const dimensions: [string, string][] = [
    ['registerScalableTarget.ScalableDimension', register.ScalableDimension],
    ['putScalingPolicy.ScalableDimension', put.ScalableDimension],
  ];
  for (const [field, given] of dimensions) {
    expect(field, given, `"${VARIANT_INSTANCE_COUNT_DIMENSION}"`, given === VARIANT_INSTANCE_COUNT_DIMENSION);
  }
  const resource = VARIANT_RESOURCE_ID.exec(register.ResourceId);
  expect(
    'registerScalableTarget.ResourceId',
    register.ResourceId,
    'endpoint/<endpoint name>/variant/<variant name>',
    resource !== null,
  );
  expect(
    'putScalingPolicy.ResourceId',
    put.ResourceId,
    `the registered target's ${JSON.stringify(register.ResourceId)} (a policy needs a registered scalable target)`,
    put.ResourceId === register.ResourceId,
  );
  const policyType: string = put.PolicyType;
  expect(
    'putScalingPolicy.PolicyType',
    policyType,
    '"TargetTrackingScaling" (the local host runs target tracking only)',
    policyType === 'TargetTrackingScaling',
  );
  const metric = configuration?.PredefinedMetricSpecification.PredefinedMetricType;
  expect(
    'putScalingPolicy.TargetTrackingScalingPolicyConfiguration.PredefinedMetricSpecification.PredefinedMetricType',
    metric,
    `"${INVOCATIONS_PER_INSTANCE_METRIC}" (the metric the local front counts)`,
    metric === INVOCATIONS_PER_INSTANCE_METRIC,
  );
  const policy: RealtimeScalingPolicy = {
    minInstanceCount: register.MinCapacity,
    maxInstanceCount: register.MaxCapacity,
    targetInvocationsPerInstance: configuration?.TargetValue ?? Number.NaN,
    scaleInCooldownSeconds: configuration?.ScaleInCooldown ?? 0,
    scaleOutCooldownSeconds: configuration?.ScaleOutCooldown ?? 0,
  };
  const policyProblem = realtimePolicyProblem(policy);
  if (policyProblem !== undefined) problems.push(requestFieldOf(policyProblem));
  const [, endpointName, variantName] = resource ?? [];
  if (problems.length > 0 || endpointName === undefined || variantName === undefined) {
    throw new LocalValidationError(
      `Local autoscaling of ${register.ResourceId}: ${problems.join('; ')}. Fix the requests (the report's scalingPolicy emits valid ones).`,
    );
  }
  return { endpointName, variantName, policy };
}

/** The local policy's field names in a problem, as the requests name them. */
function requestFieldOf(problem: string): string {
  const fields: [string, string][] = [
    ['minInstanceCount', 'registerScalableTarget.MinCapacity'],
    ['maxInstanceCount', 'registerScalableTarget.MaxCapacity'],
    ['targetInvocationsPerInstance', 'putScalingPolicy.TargetTrackingScalingPolicyConfiguration.TargetValue'],
    ['scaleInCooldownSeconds', 'putScalingPolicy.TargetTrackingScalingPolicyConfiguration.ScaleInCooldown'],
    ['scaleOutCooldownSeconds', 'putScalingPolicy.TargetTrackingScalingPolicyConfiguration.ScaleOutCooldown'],
  ];
  return fields.reduce((text, [local, request]) => text.replaceAll(local, request), problem);
}
