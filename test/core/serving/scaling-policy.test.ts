import {
  PutScalingPolicyCommand,
  type PutScalingPolicyCommandInput,
  RegisterScalableTargetCommand,
  type RegisterScalableTargetCommandInput,
} from '@aws-sdk/client-application-auto-scaling';
import { describe, expect, it } from '@jest/globals';
import { App, Duration, Stack, aws_applicationautoscaling as appscaling } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { scalingPolicyFor, type ScalingPolicyInput } from '../../../core/serving/scaling-policy.js';

const INPUT: ScalingPolicyInput = {
  endpointName: 'mso-run-ab12cd34-ep-c1',
  variantName: 'AllTraffic',
  perInstanceTps: 120,
  headroom: 0.7,
  minInstances: 2,
  peakTps: 900,
  scaleInCooldownSeconds: 300,
  scaleOutCooldownSeconds: 60,
};

describe('scalingPolicyFor', () => {
  it('registers the variant from the availability minimum to the peak’s count', () => {
    // Act
    const policy = scalingPolicyFor(INPUT);

    // Assert: ⌈900 ÷ (120 × 0.7)⌉ = 11
    const request: RegisterScalableTargetCommandInput = policy.registerScalableTarget;
    expect(new RegisterScalableTargetCommand(request).input).toEqual({
      ServiceNamespace: 'sagemaker',
      ResourceId: 'endpoint/mso-run-ab12cd34-ep-c1/variant/AllTraffic',
      ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
      MinCapacity: 2,
      MaxCapacity: 11,
    });
  });

  it('tracks invocations per instance per minute at the per-instance TPS × 60 × headroom', () => {
    // Act
    const policy = scalingPolicyFor(INPUT);

    // Assert: 120 × 60 × 0.7 = 5040
    const request: PutScalingPolicyCommandInput = policy.putScalingPolicy;
    expect(new PutScalingPolicyCommand(request).input).toEqual({
      PolicyName: 'mso-run-ab12cd34-ep-c1-invocations-per-instance',
      ServiceNamespace: 'sagemaker',
      ResourceId: 'endpoint/mso-run-ab12cd34-ep-c1/variant/AllTraffic',
      ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: {
        TargetValue: 5040,
        PredefinedMetricSpecification: { PredefinedMetricType: 'SageMakerVariantInvocationsPerInstance' },
        ScaleInCooldown: 300,
        ScaleOutCooldown: 60,
      },
    });
    expect(policy.note).toBe(
      'min 2 (availability), max 11 for a peak of 900 TPS; target 5040 invocations per instance per minute = 120 TPS × 60 × 0.7',
    );
  });

  it('caps the maximum at the account’s instance quota and says so', () => {
    // Act
    const policy = scalingPolicyFor({ ...INPUT, instanceQuota: 6 });

    // Assert
    expect(policy.maxCapacity).toBe(6);
    expect(policy.note).toBe(
      "min 2 (availability), max 6 for a peak of 900 TPS (the peak needs 11: capped at the account's quota of 6); " +
        'target 5040 invocations per instance per minute = 120 TPS × 60 × 0.7',
    );
  });

  it('gives a CDK snippet that synthesizes the same scalable target and policy as the requests', () => {
    // Prepare: the snippet's body is plain JavaScript over `appscaling`, `Duration` and `this`.
    const policy = scalingPolicyFor(INPUT);
    const body = policy.cdkSnippet
      .split('\n')
      .filter((line) => !line.startsWith('import '))
      .join('\n');
    // No built-in CloudFormation validation: it costs ~3 CPU-seconds to start; the app's suites run it.
    const stack = new Stack(new App({ builtinCloudFormationValidation: false }), 'Snippet');

    // Act
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- runs the report's own snippet, nothing user-written
    new Function('appscaling', 'Duration', body).call(stack, appscaling, Duration);

    // Assert
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      ServiceNamespace: 'sagemaker',
      ResourceId: policy.registerScalableTarget.ResourceId,
      ScalableDimension: policy.registerScalableTarget.ScalableDimension,
      MinCapacity: policy.registerScalableTarget.MinCapacity,
      MaxCapacity: policy.registerScalableTarget.MaxCapacity,
    });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyName: policy.putScalingPolicy.PolicyName,
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration:
        policy.putScalingPolicy.TargetTrackingScalingPolicyConfiguration,
    });
  });
});
