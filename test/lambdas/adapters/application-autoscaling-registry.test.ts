import {
  ApplicationAutoScalingClient,
  ApplicationAutoScalingServiceException,
  ConcurrentUpdateException,
  DeregisterScalableTargetCommand,
  ObjectNotFoundException,
  PutScalingPolicyCommand,
  RegisterScalableTargetCommand,
  ValidationException,
} from '@aws-sdk/client-application-auto-scaling';
import {
  CloudWatchClient,
  CloudWatchServiceException,
  DeleteAlarmsCommand,
  PutMetricAlarmCommand,
  ResourceNotFound,
} from '@aws-sdk/client-cloudwatch';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { TransientServiceError } from '../../../core/contracts/errors.js';
import { scalingPolicyFor } from '../../../core/serving/scaling-policy.js';
import type { AsyncScalingPolicy } from '../../../core/ports/index.js';
import {
  ApplicationAutoScalingRegistry,
  backlogWithoutCapacityAlarmName,
} from '../../../lambdas/adapters/application-autoscaling-registry.js';
import {
  formatViolation,
  validateCommand,
  type ValidatedCommand,
} from '../../conformance/request-validator.js';

const ENDPOINT = 'mso-nightly-1a2b3c4d-ep-async';
const RESOURCE_ID = `endpoint/${ENDPOINT}/variant/AllTraffic`;
const STEP_POLICY_ARN =
  'arn:aws:autoscaling:us-east-1:123456789012:scalingPolicy:5f0e3b8c-1a2b-4c3d-9e8f-0a1b2c3d4e5f:' +
  `resource/sagemaker/${RESOURCE_ID}:policyName/${ENDPOINT}-scale-out-from-zero`;
const TARGET = {
  ServiceNamespace: 'sagemaker',
  ResourceId: RESOURCE_ID,
  ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
};
const POLICY: AsyncScalingPolicy = {
  minInstanceCount: 0,
  maxInstanceCount: 3,
  targetBacklogPerInstance: 5,
  scaleInCooldownSeconds: 600,
  scaleOutCooldownSeconds: 120,
};

const autoscaling = mockClient(ApplicationAutoScalingClient);
const cloudwatch = mockClient(CloudWatchClient);
const registry = new ApplicationAutoScalingRegistry({
  autoScaling: new ApplicationAutoScalingClient({ region: 'us-east-1' }),
  cloudWatch: new CloudWatchClient({ region: 'us-east-1' }),
});

function serviceError(name: string, message: string): ApplicationAutoScalingServiceException {
  return new ApplicationAutoScalingServiceException({
    name,
    message,
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  });
}

function givenScalingAccepted(): void {
  autoscaling.on(RegisterScalableTargetCommand).resolves({});
  autoscaling
    .on(PutScalingPolicyCommand, { PolicyType: 'TargetTrackingScaling' })
    .resolves({ PolicyARN: 'arn:target-tracking', Alarms: [] });
  autoscaling
    .on(PutScalingPolicyCommand, { PolicyType: 'StepScaling' })
    .resolves({ PolicyARN: STEP_POLICY_ARN });
  cloudwatch.on(PutMetricAlarmCommand).resolves({});
}

describe('ApplicationAutoScalingRegistry', () => {
  beforeEach(() => {
    autoscaling.reset();
    cloudwatch.reset();
  });

  describe('configuring async scaling', () => {
    it('registers the variant as a scalable target between the min (0) and max instance counts', async () => {
      // Arrange
      givenScalingAccepted();

      // Act
      await registry.configureAsyncScaling(ENDPOINT, 'AllTraffic', POLICY);

      // Assert
      expect(
        autoscaling.commandCalls(RegisterScalableTargetCommand).map((call) => call.args[0].input),
      ).toEqual([{ ...TARGET, MinCapacity: 0, MaxCapacity: 3 }]);
    });

    it('puts a target-tracking policy on ApproximateBacklogSizePerInstance with the target and cooldowns', async () => {
      givenScalingAccepted();

      await registry.configureAsyncScaling(ENDPOINT, 'AllTraffic', POLICY);

      expect(autoscaling.commandCalls(PutScalingPolicyCommand)[0]?.args[0].input).toEqual({
        PolicyName: `${ENDPOINT}-backlog-per-instance`,
        ...TARGET,
        PolicyType: 'TargetTrackingScaling',
        TargetTrackingScalingPolicyConfiguration: {
          TargetValue: 5,
          CustomizedMetricSpecification: {
            MetricName: 'ApproximateBacklogSizePerInstance',
            Namespace: 'AWS/SageMaker',
            Dimensions: [{ Name: 'EndpointName', Value: ENDPOINT }],
            Statistic: 'Average',
          },
          ScaleInCooldown: 600,
          ScaleOutCooldown: 120,
        },
      });
    });

    it('puts a step-scaling policy that adds one instance, for scaling out from zero', async () => {
      givenScalingAccepted();

      await registry.configureAsyncScaling(ENDPOINT, 'AllTraffic', POLICY);

      expect(autoscaling.commandCalls(PutScalingPolicyCommand)[1]?.args[0].input).toEqual({
        PolicyName: `${ENDPOINT}-scale-out-from-zero`,
        ...TARGET,
        PolicyType: 'StepScaling',
        StepScalingPolicyConfiguration: {
          AdjustmentType: 'ChangeInCapacity',
          MetricAggregationType: 'Average',
          Cooldown: 120,
          StepAdjustments: [{ MetricIntervalLowerBound: 0, ScalingAdjustment: 1 }],
        },
      });
    });

    it("puts the HasBacklogWithoutCapacity alarm whose action is the step policy's ARN", async () => {
      // Arrange
      givenScalingAccepted();

      // Act
      await registry.configureAsyncScaling(ENDPOINT, 'AllTraffic', POLICY);

      // Assert
      expect(cloudwatch.commandCalls(PutMetricAlarmCommand).map((call) => call.args[0].input)).toEqual([
        {
          AlarmName: `${ENDPOINT}-has-backlog-without-capacity`,
          AlarmDescription:
            `Requests wait in the queue of async endpoint ${ENDPOINT} while it has no instance: ` +
            'triggers its scale-out-from-zero policy.',
          Namespace: 'AWS/SageMaker',
          MetricName: 'HasBacklogWithoutCapacity',
          Dimensions: [{ Name: 'EndpointName', Value: ENDPOINT }],
          Statistic: 'Average',
          Period: 60,
          EvaluationPeriods: 2,
          DatapointsToAlarm: 2,
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          TreatMissingData: 'missing',
          AlarmActions: [STEP_POLICY_ARN],
        },
      ]);
    });

    it('names the alarm after the endpoint alone, under the mso- prefix IAM scopes to', () => {
      expect(backlogWithoutCapacityAlarmName(ENDPOINT)).toBe(
        'mso-nightly-1a2b3c4d-ep-async-has-backlog-without-capacity',
      );
    });

    it('sends the same requests when run again (Put* overwrite, so a retried step converges)', async () => {
      givenScalingAccepted();

      await registry.configureAsyncScaling(ENDPOINT, 'AllTraffic', POLICY);
      await registry.configureAsyncScaling(ENDPOINT, 'AllTraffic', POLICY);

      const policies = autoscaling.commandCalls(PutScalingPolicyCommand).map((call) => call.args[0].input);
      expect(policies[2]).toEqual(policies[0]);
      expect(policies[3]).toEqual(policies[1]);
      const alarms = cloudwatch.commandCalls(PutMetricAlarmCommand).map((call) => call.args[0].input);
      expect(alarms[1]).toEqual(alarms[0]);
    });

    it('fails when Application Auto Scaling keeps throttling, with TransientServiceError and no alarm', async () => {
      autoscaling
        .on(RegisterScalableTargetCommand)
        .rejects(serviceError('ThrottlingException', 'Rate exceeded'));

      const error = await registry
        .configureAsyncScaling(ENDPOINT, 'AllTraffic', POLICY)
        .catch((e: unknown) => e);

      expect(error).toBeInstanceOf(TransientServiceError);
      expect((error as Error).message).toContain(`RegisterScalableTarget for ${RESOURCE_ID}`);
      expect(cloudwatch.commandCalls(PutMetricAlarmCommand)).toHaveLength(0);
    });

    it('fails when a concurrent update is pending on the target, with TransientServiceError', async () => {
      givenScalingAccepted();
      autoscaling
        .on(PutScalingPolicyCommand, { PolicyType: 'StepScaling' })
        .rejects(
          new ConcurrentUpdateException({ message: 'Concurrent update', $metadata: { httpStatusCode: 500 } }),
        );

      await expect(registry.configureAsyncScaling(ENDPOINT, 'AllTraffic', POLICY)).rejects.toBeInstanceOf(
        TransientServiceError,
      );
    });

    it('fails when CloudWatch keeps throttling PutMetricAlarm, with TransientServiceError', async () => {
      givenScalingAccepted();
      cloudwatch.on(PutMetricAlarmCommand).rejects(
        new CloudWatchServiceException({
          name: 'Throttling',
          message: 'Rate exceeded',
          $fault: 'client',
          $metadata: { httpStatusCode: 400 },
        }),
      );

      await expect(registry.configureAsyncScaling(ENDPOINT, 'AllTraffic', POLICY)).rejects.toBeInstanceOf(
        TransientServiceError,
      );
    });

    it('fails when the endpoint cannot be registered, rethrowing the SDK error unchanged', async () => {
      const invalid = new ValidationException({
        message: 'The endpoint is not in service',
        $metadata: { httpStatusCode: 400 },
      });
      autoscaling.on(RegisterScalableTargetCommand).rejects(invalid);

      await expect(registry.configureAsyncScaling(ENDPOINT, 'AllTraffic', POLICY)).rejects.toBe(invalid);
    });

    it('fails when the step policy comes back without an ARN, before putting an alarm without action', async () => {
      givenScalingAccepted();
      autoscaling.on(PutScalingPolicyCommand, { PolicyType: 'StepScaling' }).resolves({});

      await expect(registry.configureAsyncScaling(ENDPOINT, 'AllTraffic', POLICY)).rejects.toThrow(
        /got no PolicyARN/,
      );
      expect(cloudwatch.commandCalls(PutMetricAlarmCommand)).toHaveLength(0);
    });

    it('fails when the policy is inconsistent, naming each field, before calling AWS', async () => {
      const error = await registry
        .configureAsyncScaling(ENDPOINT, 'AllTraffic', {
          ...POLICY,
          minInstanceCount: 4,
          targetBacklogPerInstance: 0,
        })
        .catch((e: unknown) => e);

      expect((error as Error).message).toBe(
        `Async scaling policy for endpoint ${ENDPOINT}: maxInstanceCount: got 3, expected at least minInstanceCount (4); ` +
          'targetBacklogPerInstance: got 0, expected a number > 0',
      );
      expect(autoscaling.calls()).toHaveLength(0);
    });
  });

  describe('deregistering', () => {
    it("deletes the endpoint's alarm and deregisters the variant's scalable target, and says so", async () => {
      // Arrange
      cloudwatch.on(DeleteAlarmsCommand).resolves({});
      autoscaling.on(DeregisterScalableTargetCommand).resolves({});

      // Act
      const deregistered = await registry.deregisterEndpointVariant('mso-old-1a2b3c4d-ep-c1', 'AllTraffic');

      // Assert
      expect(deregistered).toBe(true);
      expect(cloudwatch.commandCalls(DeleteAlarmsCommand).map((call) => call.args[0].input)).toEqual([
        { AlarmNames: ['mso-old-1a2b3c4d-ep-c1-has-backlog-without-capacity'] },
      ]);
      expect(
        autoscaling.commandCalls(DeregisterScalableTargetCommand).map((call) => call.args[0].input),
      ).toEqual([
        {
          ServiceNamespace: 'sagemaker',
          ResourceId: 'endpoint/mso-old-1a2b3c4d-ep-c1/variant/AllTraffic',
          ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
        },
      ]);
    });

    it('returns false when the variant was never registered', async () => {
      cloudwatch.on(DeleteAlarmsCommand).resolves({});
      autoscaling.on(DeregisterScalableTargetCommand).rejects(
        new ObjectNotFoundException({
          message: 'No scalable target found for service namespace: sagemaker',
          $metadata: { httpStatusCode: 400 },
        }),
      );

      const deregistered = await registry.deregisterEndpointVariant('mso-old-1a2b3c4d-ep-c1', 'AllTraffic');

      expect(deregistered).toBe(false);
    });

    it('goes on when the endpoint has no alarm (a real-time endpoint)', async () => {
      cloudwatch
        .on(DeleteAlarmsCommand)
        .rejects(new ResourceNotFound({ message: 'Alarm not found', $metadata: { httpStatusCode: 404 } }));
      autoscaling.on(DeregisterScalableTargetCommand).resolves({});

      await expect(registry.deregisterEndpointVariant('mso-old-1a2b3c4d-ep-c1', 'AllTraffic')).resolves.toBe(
        true,
      );
      expect(autoscaling.commandCalls(DeregisterScalableTargetCommand)).toHaveLength(1);
    });

    it('fails when throttled beyond the SDK retries, with TransientServiceError', async () => {
      cloudwatch.on(DeleteAlarmsCommand).resolves({});
      autoscaling
        .on(DeregisterScalableTargetCommand)
        .rejects(serviceError('ThrottlingException', 'Rate exceeded'));

      const deregistering = registry.deregisterEndpointVariant('mso-old-1a2b3c4d-ep-c1', 'AllTraffic');

      await expect(deregistering).rejects.toBeInstanceOf(TransientServiceError);
    });

    it('fails when the caller may not delete the alarm, before deregistering', async () => {
      const denied = new CloudWatchServiceException({
        name: 'AccessDenied',
        message: 'not authorized to perform cloudwatch:DeleteAlarms',
        $fault: 'client',
        $metadata: { httpStatusCode: 403 },
      });
      cloudwatch.on(DeleteAlarmsCommand).rejects(denied);

      await expect(registry.deregisterEndpointVariant('mso-old-1a2b3c4d-ep-c1', 'AllTraffic')).rejects.toBe(
        denied,
      );
      expect(autoscaling.commandCalls(DeregisterScalableTargetCommand)).toHaveLength(0);
    });

    it('fails when the caller may not deregister, rethrowing the SDK error unchanged', async () => {
      cloudwatch.on(DeleteAlarmsCommand).resolves({});
      const denied = serviceError(
        'AccessDeniedException',
        'not authorized to perform DeregisterScalableTarget',
      );
      autoscaling.on(DeregisterScalableTargetCommand).rejects(denied);

      const deregistering = registry.deregisterEndpointVariant('mso-old-1a2b3c4d-ep-c1', 'AllTraffic');

      await expect(deregistering).rejects.toBe(denied);
    });
  });

  describe('applying a real-time variant’s target tracking', () => {
    const REALTIME = 'mso-nightly-1a2b3c4d-ep-c5-neo';
    const policy = scalingPolicyFor({
      endpointName: REALTIME,
      variantName: 'AllTraffic',
      perInstanceTps: 120,
      headroom: 0.7,
      minInstances: 2,
      peakTps: 600,
      scaleInCooldownSeconds: 300,
      scaleOutCooldownSeconds: 60,
    });

    it('registers the variant, then puts the policy, exactly as the report recommends them', async () => {
      // Arrange
      autoscaling.on(RegisterScalableTargetCommand).resolves({});
      autoscaling.on(PutScalingPolicyCommand).resolves({ PolicyARN: 'arn:target-tracking', Alarms: [] });

      // Act
      await registry.applyRealtimeScaling(policy);

      // Assert
      expect(autoscaling.calls().map((call) => call.args[0].constructor.name)).toEqual([
        'RegisterScalableTargetCommand',
        'PutScalingPolicyCommand',
      ]);
      expect(autoscaling.commandCalls(RegisterScalableTargetCommand)[0]?.args[0].input).toEqual({
        ServiceNamespace: 'sagemaker',
        ResourceId: `endpoint/${REALTIME}/variant/AllTraffic`,
        ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
        MinCapacity: 2,
        MaxCapacity: 8,
      });
      expect(autoscaling.commandCalls(PutScalingPolicyCommand)[0]?.args[0].input).toEqual({
        PolicyName: `${REALTIME}-invocations-per-instance`,
        ServiceNamespace: 'sagemaker',
        ResourceId: `endpoint/${REALTIME}/variant/AllTraffic`,
        ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
        PolicyType: 'TargetTrackingScaling',
        TargetTrackingScalingPolicyConfiguration: {
          TargetValue: 5040,
          PredefinedMetricSpecification: { PredefinedMetricType: 'SageMakerVariantInvocationsPerInstance' },
          ScaleInCooldown: 300,
          ScaleOutCooldown: 60,
        },
      });
    });

    it('sends requests Application Auto Scaling declares valid', async () => {
      // Arrange
      autoscaling.on(RegisterScalableTargetCommand).resolves({});
      autoscaling.on(PutScalingPolicyCommand).resolves({ PolicyARN: 'arn:target-tracking', Alarms: [] });

      // Act
      await registry.applyRealtimeScaling(policy);

      // Assert
      const violations = autoscaling
        .calls()
        .flatMap((call) => validateCommand(call.args[0] as unknown as ValidatedCommand).map(formatViolation));
      expect(violations).toEqual([]);
    });

    it('fails when a concurrent update is pending on the target, with TransientServiceError and no policy', async () => {
      // Arrange
      autoscaling
        .on(RegisterScalableTargetCommand)
        .rejects(new ConcurrentUpdateException({ message: 'pending update', $metadata: {} }));

      // Act
      const applying = registry.applyRealtimeScaling(policy);

      // Assert
      await expect(applying).rejects.toBeInstanceOf(TransientServiceError);
      expect(autoscaling.commandCalls(PutScalingPolicyCommand)).toEqual([]);
    });

    it('fails when the policy names another variant than the target, before calling AWS', async () => {
      // Act
      const applying = registry.applyRealtimeScaling({
        ...policy,
        putScalingPolicy: { ...policy.putScalingPolicy, ResourceId: 'endpoint/other/variant/AllTraffic' },
      });

      // Assert
      await expect(applying).rejects.toThrow(
        `applyRealtimeScaling: the policy's ResourceId endpoint/other/variant/AllTraffic is not the registered target's endpoint/${REALTIME}/variant/AllTraffic, expected one variant`,
      );
      expect(autoscaling.calls()).toEqual([]);
    });
  });
});
