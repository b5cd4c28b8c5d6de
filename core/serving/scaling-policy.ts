import {
  INVOCATIONS_PER_INSTANCE_METRIC,
  type PutScalingPolicyRequest,
  type RegisterScalableTargetRequest,
  SAGEMAKER_NAMESPACE,
  VARIANT_INSTANCE_COUNT_DIMENSION,
} from '../contracts/index.js';
import { instancesFor } from './target-sizing.js';

/**
 * The autoscaling policy recommended with a target load: target tracking on the predefined metric
 * `SageMakerVariantInvocationsPerInstance`, emitted as the two Application Auto Scaling requests
 * that apply it and as the CDK code that does the same. Plain data: the report carries it, and a
 * test checks it against the SDK's input types and the CDK's synthesized template.
 */

export function variantResourceId(endpointName: string, variantName: string): string {
  return `endpoint/${endpointName}/variant/${variantName}`;
}

/** The policy's name: PutScalingPolicy takes 1–256 printable characters; endpoint names are ≤ 63. */
export function invocationsPolicyName(endpointName: string): string {
  return `${endpointName}-invocations-per-instance`;
}

export interface ScalingPolicyInput {
  readonly endpointName: string;
  readonly variantName: string;
  readonly perInstanceTps: number;
  readonly headroom: number;
  /** The availability minimum, or the target's count when that is lower: the endpoint's floor. */
  readonly minInstances: number;
  /** The rate to scale out to; the target's when none was stated. */
  readonly peakTps: number;
  readonly scaleInCooldownSeconds: number;
  readonly scaleOutCooldownSeconds: number;
  /** The account's instance quota for the type, where known: the maximum never passes it. */
  readonly instanceQuota?: number;
}

export interface ScalingPolicy {
  /** Invocations per instance per minute the policy holds the endpoint at. */
  readonly targetInvocationsPerInstance: number;
  readonly minCapacity: number;
  readonly maxCapacity: number;
  /** Why the capacities are what they are, in one sentence. */
  readonly note: string;
  readonly registerScalableTarget: RegisterScalableTargetRequest;
  readonly putScalingPolicy: PutScalingPolicyRequest;
  /** TypeScript for a CDK construct's constructor (`this` is the scope). */
  readonly cdkSnippet: string;
}

/**
 * The policy for a measured per-instance rate. Its target value is the same headroom the count was
 * sized with, so at the target load the policy settles on the recommended count rather than
 * scaling it in or out.
 */
export function scalingPolicyFor(input: ScalingPolicyInput): ScalingPolicy {
  const targetValue = Math.floor(input.perInstanceTps * 60 * input.headroom * 10) / 10;
  const forPeak = Math.max(
    input.minInstances,
    instancesFor(input.peakTps, input.perInstanceTps, input.headroom),
  );
  const quota = input.instanceQuota;
  const maxCapacity = quota !== undefined && quota < forPeak ? Math.max(input.minInstances, quota) : forPeak;
  const minCapacity = Math.min(input.minInstances, maxCapacity);
  const note =
    `min ${minCapacity} (availability), max ${maxCapacity} for a peak of ${input.peakTps} TPS` +
    (maxCapacity < forPeak ? ` (the peak needs ${forPeak}: capped at the account's quota of ${quota})` : '') +
    `; target ${targetValue} invocations per instance per minute = ${input.perInstanceTps} TPS × 60 × ${input.headroom}`;
  const resourceId = variantResourceId(input.endpointName, input.variantName);
  const policyName = invocationsPolicyName(input.endpointName);
  return {
    targetInvocationsPerInstance: targetValue,
    minCapacity,
    maxCapacity,
    note,
    registerScalableTarget: {
      ServiceNamespace: SAGEMAKER_NAMESPACE,
      ResourceId: resourceId,
      ScalableDimension: VARIANT_INSTANCE_COUNT_DIMENSION,
      MinCapacity: minCapacity,
      MaxCapacity: maxCapacity,
    },
    putScalingPolicy: {
      PolicyName: policyName,
      ServiceNamespace: SAGEMAKER_NAMESPACE,
      ResourceId: resourceId,
      ScalableDimension: VARIANT_INSTANCE_COUNT_DIMENSION,
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: {
        TargetValue: targetValue,
        PredefinedMetricSpecification: { PredefinedMetricType: INVOCATIONS_PER_INSTANCE_METRIC },
        ScaleInCooldown: input.scaleInCooldownSeconds,
        ScaleOutCooldown: input.scaleOutCooldownSeconds,
      },
    },
    cdkSnippet: cdkSnippet({
      resourceId,
      policyName,
      minCapacity,
      maxCapacity,
      targetValue,
      scaleInCooldownSeconds: input.scaleInCooldownSeconds,
      scaleOutCooldownSeconds: input.scaleOutCooldownSeconds,
    }),
  };
}

/**
 * aws-cdk-lib's `aws_applicationautoscaling.ScalableTarget` and its `scaleToTrackMetric`, with the
 * same figures as the two requests. The body (below the import) is plain JavaScript as well, so
 * the test runs it in a stack and compares the template with the requests.
 */
function cdkSnippet(p: {
  resourceId: string;
  policyName: string;
  minCapacity: number;
  maxCapacity: number;
  targetValue: number;
  scaleInCooldownSeconds: number;
  scaleOutCooldownSeconds: number;
}): string {
  return [
    "import { Duration, aws_applicationautoscaling as appscaling } from 'aws-cdk-lib';",
    '',
    '// In a construct, after the endpoint exists (add target.node.addDependency(endpoint) if it is in the same stack).',
    "const target = new appscaling.ScalableTarget(this, 'ServingScalableTarget', {",
    '  serviceNamespace: appscaling.ServiceNamespace.SAGEMAKER,',
    `  resourceId: '${p.resourceId}',`,
    `  scalableDimension: '${VARIANT_INSTANCE_COUNT_DIMENSION}',`,
    `  minCapacity: ${p.minCapacity},`,
    `  maxCapacity: ${p.maxCapacity},`,
    '});',
    "target.scaleToTrackMetric('InvocationsPerInstance', {",
    `  policyName: '${p.policyName}',`,
    '  predefinedMetric: appscaling.PredefinedMetric.SAGEMAKER_VARIANT_INVOCATIONS_PER_INSTANCE,',
    `  targetValue: ${p.targetValue},`,
    `  scaleInCooldown: Duration.seconds(${p.scaleInCooldownSeconds}),`,
    `  scaleOutCooldown: Duration.seconds(${p.scaleOutCooldownSeconds}),`,
    '});',
    '',
  ].join('\n');
}
