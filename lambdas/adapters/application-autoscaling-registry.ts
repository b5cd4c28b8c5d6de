import {
  type ApplicationAutoScalingClient,
  DeregisterScalableTargetCommand,
  PutScalingPolicyCommand,
  type PutScalingPolicyCommandInput,
  RegisterScalableTargetCommand,
} from '@aws-sdk/client-application-auto-scaling';
import {
  type CloudWatchClient,
  DeleteAlarmsCommand,
  PutMetricAlarmCommand,
  type PutMetricAlarmCommandInput,
} from '@aws-sdk/client-cloudwatch';
import { TransientServiceError } from '../../core/contracts/index.js';
import type { AsyncScalingPolicy, RealtimeScalingApplier, ScalingRegistry } from '../../core/ports/index.js';
import { errorMessage, errorName, isTransient } from './aws-errors.js';
import type { RealtimeScalingRequests } from '../../core/contracts/index.js';

/**
 * `ScalingRegistry` over Application Auto Scaling (and CloudWatch, for the alarm behind the
 * scale-out-from-zero policy). A SageMaker variant's scalable target is named
 * `endpoint/<endpoint>/variant/<variant>` in the `sagemaker` namespace, on the dimension
 * `sagemaker:variant:DesiredInstanceCount` (SageMaker developer guide, "Delete a scaling policy").
 */
export const SAGEMAKER_VARIANT_DIMENSION = 'sagemaker:variant:DesiredInstanceCount';

export function variantResourceId(endpointName: string, variantName: string): string {
  return `endpoint/${endpointName}/variant/${variantName}`;
}

/** The target-tracking policy on `ApproximateBacklogSizePerInstance`. */
export function backlogPolicyName(endpointName: string): string {
  return `${endpointName}-backlog-per-instance`;
}

/** The step-scaling policy that adds an instance when requests wait and none is running. */
export function scaleOutFromZeroPolicyName(endpointName: string): string {
  return `${endpointName}-scale-out-from-zero`;
}

/**
 * The CloudWatch alarm that triggers the scale-out-from-zero policy. Derived from the endpoint
 * name only, so clean-up finds it without a lookup and IAM can scope PutMetricAlarm/DeleteAlarms to
 * `arn:aws:cloudwatch:<region>:<account>:alarm:mso-*` (project endpoint names start with `mso-`).
 */
export function backlogWithoutCapacityAlarmName(endpointName: string): string {
  return `${endpointName}-has-backlog-without-capacity`;
}

/**
 * The figures of "Autoscale an asynchronous endpoint" (SageMaker developer guide, section
 * "Optional: Define a scaling policy that scales up from zero for new requests"): the metric's
 * one-minute Average at or above 1 for 2 of 2 periods, missing data left missing (the metric is
 * only published while the endpoint has a backlog), and a step of +1 instance from the threshold up.
 */
const ASYNC_METRICS_NAMESPACE = 'AWS/SageMaker';
const SCALE_OUT_FROM_ZERO = {
  metricName: 'HasBacklogWithoutCapacity',
  periodSeconds: 60,
  evaluationPeriods: 2,
  datapointsToAlarm: 2,
  threshold: 1,
  addedInstances: 1,
} as const;

export interface ApplicationAutoScalingRegistryOptions {
  readonly autoScaling: ApplicationAutoScalingClient;
  /** For the alarm of the scale-out-from-zero policy (PutMetricAlarm, DeleteAlarms). */
  readonly cloudWatch: CloudWatchClient;
}

export class ApplicationAutoScalingRegistry implements ScalingRegistry, RealtimeScalingApplier {
  private readonly autoScaling: ApplicationAutoScalingClient;
  private readonly cloudWatch: CloudWatchClient;

  constructor(options: ApplicationAutoScalingRegistryOptions) {
    this.autoScaling = options.autoScaling;
    this.cloudWatch = options.cloudWatch;
  }

  /**
   * Registers the variant between its min and max, then puts both policies and the alarm. Every
   * call overwrites what exists under the same names (RegisterScalableTarget updates a registered
   * target's capacities, PutScalingPolicy and PutMetricAlarm replace a policy or alarm of the same
   * name), so a retried step converges on the same configuration.
   */
  async configureAsyncScaling(
    endpointName: string,
    variantName: string,
    policy: AsyncScalingPolicy,
  ): Promise<void> {
    assertValidPolicy(endpointName, policy);
    const resourceId = variantResourceId(endpointName, variantName);
    const target = {
      ServiceNamespace: 'sagemaker',
      ResourceId: resourceId,
      ScalableDimension: SAGEMAKER_VARIANT_DIMENSION,
    } as const;

    await this.call('RegisterScalableTarget', resourceId, () =>
      this.autoScaling.send(
        new RegisterScalableTargetCommand({
          ...target,
          MinCapacity: policy.minInstanceCount,
          MaxCapacity: policy.maxInstanceCount,
        }),
      ),
    );
    await this.call('PutScalingPolicy', resourceId, () =>
      this.autoScaling.send(new PutScalingPolicyCommand(backlogTrackingPolicy(endpointName, target, policy))),
    );
    const stepPolicy = await this.call('PutScalingPolicy', resourceId, () =>
      this.autoScaling.send(
        new PutScalingPolicyCommand(scaleOutFromZeroPolicy(endpointName, target, policy)),
      ),
    );
    if (stepPolicy.PolicyARN === undefined) {
      throw new Error(
        `PutScalingPolicy ${scaleOutFromZeroPolicyName(endpointName)} for ${resourceId}: got no PolicyARN, ` +
          "expected the policy's ARN (the alarm's action)",
      );
    }
    const policyArn = stepPolicy.PolicyARN;
    await this.call('PutMetricAlarm', resourceId, () =>
      this.cloudWatch.send(new PutMetricAlarmCommand(backlogWithoutCapacityAlarm(endpointName, policyArn))),
    );
  }

  /**
   * Deletes the scale-out-from-zero alarm first (so it never fires at a policy being deleted), then
   * deregisters the target, which deletes its scaling policies (Application Auto Scaling API
   * reference, DeregisterScalableTarget). The alarm is named per endpoint: deregistering any variant
   * of an endpoint deletes it, which suits the project's single-variant endpoints.
   */
  async deregisterEndpointVariant(endpointName: string, variantName: string): Promise<boolean> {
    const resourceId = variantResourceId(endpointName, variantName);
    await this.call('DeleteAlarms', resourceId, async () => {
      try {
        await this.cloudWatch.send(
          new DeleteAlarmsCommand({ AlarmNames: [backlogWithoutCapacityAlarmName(endpointName)] }),
        );
      } catch (error) {
        // CloudWatch's DeleteAlarms error for a name it does not know: the endpoint was never async.
        if (errorName(error) !== 'ResourceNotFound' && errorName(error) !== 'ResourceNotFoundException') {
          throw error;
        }
      }
    });
    try {
      await this.call('DeregisterScalableTarget', resourceId, () =>
        this.autoScaling.send(
          new DeregisterScalableTargetCommand({
            ServiceNamespace: 'sagemaker',
            ResourceId: resourceId,
            ScalableDimension: SAGEMAKER_VARIANT_DIMENSION,
          }),
        ),
      );
      return true;
    } catch (error) {
      // The variant was never registered (most candidates are not autoscaled), or is already gone.
      if (errorName(error) === 'ObjectNotFoundException') return false;
      throw error;
    }
  }

  /**
   * Target tracking on `SageMakerVariantInvocationsPerInstance` for a real-time variant (the ramp
   * test's endpoint): the two requests the report recommends (serving/scaling-policy.ts), sent as
   * they are, so what is tested is what the user is told to apply. RegisterScalableTarget first:
   * PutScalingPolicy needs a registered target (Application Auto Scaling API reference,
   * PutScalingPolicy, "ObjectNotFoundException"). Both overwrite what exists under the same
   * names, so a retried step converges; `deregisterEndpointVariant` removes both.
   */
  async applyRealtimeScaling(requests: RealtimeScalingRequests): Promise<void> {
    const { registerScalableTarget, putScalingPolicy } = requests;
    if (registerScalableTarget.ResourceId !== putScalingPolicy.ResourceId) {
      throw new Error(
        `applyRealtimeScaling: the policy's ResourceId ${putScalingPolicy.ResourceId} is not the registered target's ` +
          `${registerScalableTarget.ResourceId}, expected one variant`,
      );
    }
    const resourceId = registerScalableTarget.ResourceId;
    await this.call('RegisterScalableTarget', resourceId, () =>
      this.autoScaling.send(new RegisterScalableTargetCommand({ ...registerScalableTarget })),
    );
    await this.call('PutScalingPolicy', resourceId, () =>
      this.autoScaling.send(new PutScalingPolicyCommand({ ...putScalingPolicy })),
    );
  }

  /**
   * One call; throttling, server faults and `ConcurrentUpdateException` (the scalable target has a
   * pending update: Application Auto Scaling API reference) become `TransientServiceError`.
   */
  private async call<Result>(
    operation: string,
    resourceId: string,
    send: () => Promise<Result>,
  ): Promise<Result> {
    try {
      return await send();
    } catch (error) {
      if (!isTransient(error) && errorName(error) !== 'ConcurrentUpdateException') throw error;
      throw new TransientServiceError(
        `${operation} for ${resourceId} failed after the SDK's own retries: ` +
          `${errorName(error) ?? 'Error'}: ${errorMessage(error)}. The workflow (or the next janitor sweep) retries it.`,
        { operation, resourceId, errorName: errorName(error) },
        { cause: error },
      );
    }
  }
}

type ScalableTarget = Pick<
  PutScalingPolicyCommandInput,
  'ServiceNamespace' | 'ResourceId' | 'ScalableDimension'
>;

/**
 * Target tracking on the queue per instance, as "Autoscale an asynchronous endpoint" (SageMaker
 * developer guide, "Define a scaling policy") recommends: `ApproximateBacklogSizePerInstance` in
 * `AWS/SageMaker`, dimensioned by `EndpointName` only, statistic Average.
 */
export function backlogTrackingPolicy(
  endpointName: string,
  target: ScalableTarget,
  policy: AsyncScalingPolicy,
): PutScalingPolicyCommandInput {
  return {
    PolicyName: backlogPolicyName(endpointName),
    ...target,
    PolicyType: 'TargetTrackingScaling',
    TargetTrackingScalingPolicyConfiguration: {
      TargetValue: policy.targetBacklogPerInstance,
      CustomizedMetricSpecification: {
        MetricName: 'ApproximateBacklogSizePerInstance',
        Namespace: ASYNC_METRICS_NAMESPACE,
        Dimensions: [{ Name: 'EndpointName', Value: endpointName }],
        Statistic: 'Average',
      },
      ScaleInCooldown: policy.scaleInCooldownSeconds,
      ScaleOutCooldown: policy.scaleOutCooldownSeconds,
    },
  };
}

/**
 * The step policy the alarm triggers: +1 instance whenever the alarm's metric is at or above its
 * threshold (a step from 0 above the threshold, unbounded). Target tracking cannot do this: with no
 * instance there is no backlog per instance to track.
 */
export function scaleOutFromZeroPolicy(
  endpointName: string,
  target: ScalableTarget,
  policy: AsyncScalingPolicy,
): PutScalingPolicyCommandInput {
  return {
    PolicyName: scaleOutFromZeroPolicyName(endpointName),
    ...target,
    PolicyType: 'StepScaling',
    StepScalingPolicyConfiguration: {
      AdjustmentType: 'ChangeInCapacity',
      MetricAggregationType: 'Average',
      Cooldown: policy.scaleOutCooldownSeconds,
      StepAdjustments: [
        { MetricIntervalLowerBound: 0, ScalingAdjustment: SCALE_OUT_FROM_ZERO.addedInstances },
      ],
    },
  };
}

export function backlogWithoutCapacityAlarm(
  endpointName: string,
  stepPolicyArn: string,
): PutMetricAlarmCommandInput {
  return {
    AlarmName: backlogWithoutCapacityAlarmName(endpointName),
    AlarmDescription:
      `Requests wait in the queue of async endpoint ${endpointName} while it has no instance: ` +
      'triggers its scale-out-from-zero policy.',
    Namespace: ASYNC_METRICS_NAMESPACE,
    MetricName: SCALE_OUT_FROM_ZERO.metricName,
    Dimensions: [{ Name: 'EndpointName', Value: endpointName }],
    Statistic: 'Average',
    Period: SCALE_OUT_FROM_ZERO.periodSeconds,
    EvaluationPeriods: SCALE_OUT_FROM_ZERO.evaluationPeriods,
    DatapointsToAlarm: SCALE_OUT_FROM_ZERO.datapointsToAlarm,
    Threshold: SCALE_OUT_FROM_ZERO.threshold,
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    TreatMissingData: 'missing',
    AlarmActions: [stepPolicyArn],
  };
}

function assertValidPolicy(endpointName: string, policy: AsyncScalingPolicy): void {
  const problems: string[] = [];
  const wholeAtLeast = (field: keyof AsyncScalingPolicy, min: number): void => {
    const value = policy[field];
    if (!Number.isInteger(value) || value < min)
      problems.push(`${field}: got ${value}, expected a whole number ≥ ${min}`);
  };
  wholeAtLeast('minInstanceCount', 0);
  wholeAtLeast('maxInstanceCount', 1);
  wholeAtLeast('scaleInCooldownSeconds', 0);
  wholeAtLeast('scaleOutCooldownSeconds', 0);
  if (policy.maxInstanceCount < policy.minInstanceCount) {
    problems.push(
      `maxInstanceCount: got ${policy.maxInstanceCount}, expected at least minInstanceCount (${policy.minInstanceCount})`,
    );
  }
  if (!Number.isFinite(policy.targetBacklogPerInstance) || policy.targetBacklogPerInstance <= 0) {
    problems.push(`targetBacklogPerInstance: got ${policy.targetBacklogPerInstance}, expected a number > 0`);
  }
  if (problems.length > 0) {
    throw new TypeError(`Async scaling policy for endpoint ${endpointName}: ${problems.join('; ')}`);
  }
}
