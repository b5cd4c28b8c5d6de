import { describe, expect, it } from '@jest/globals';
import { scalingPolicyFor } from '../../../core/serving/scaling-policy.js';
import { checkRealtimeScalingRequests } from '../../../local/platform/realtime-scaling-requests.js';
import type { RealtimeScalingRequests } from '../../../core/contracts/scaling-requests.js';

/** The report's policy for a 2-instance floor: target 20 × 60 × 0.5 = 600 per instance per minute. */
const REQUESTS: RealtimeScalingRequests = scalingPolicyFor({
  endpointName: 'mso-r1-ep-ramp',
  variantName: 'AllTraffic',
  perInstanceTps: 20,
  headroom: 0.5,
  minInstances: 2,
  peakTps: 60,
  scaleInCooldownSeconds: 300,
  scaleOutCooldownSeconds: 60,
});

/** The requests with some fields replaced, as an edited JSON document would carry them. */
function edited(change: {
  register?: Record<string, unknown>;
  put?: Record<string, unknown>;
  configuration?: Record<string, unknown>;
}): RealtimeScalingRequests {
  const put = REQUESTS.putScalingPolicy;
  return {
    registerScalableTarget: { ...REQUESTS.registerScalableTarget, ...change.register },
    putScalingPolicy: {
      ...put,
      ...change.put,
      TargetTrackingScalingPolicyConfiguration: {
        ...put.TargetTrackingScalingPolicyConfiguration,
        ...change.configuration,
      },
    },
  };
}

describe('checkRealtimeScalingRequests', () => {
  it('gives the endpoint, the variant and the local policy of the report’s requests', () => {
    // Act
    const checked = checkRealtimeScalingRequests(REQUESTS);

    // Assert
    expect(checked).toEqual({
      endpointName: 'mso-r1-ep-ramp',
      variantName: 'AllTraffic',
      policy: {
        minInstanceCount: 2,
        maxInstanceCount: 6,
        targetInvocationsPerInstance: 600,
        scaleInCooldownSeconds: 300,
        scaleOutCooldownSeconds: 60,
      },
    });
  });

  it('refuses another namespace and dimension, naming both fields of both requests', () => {
    // Prepare
    const requests = edited({
      register: { ServiceNamespace: 'ecs', ScalableDimension: 'ecs:service:DesiredCount' },
      put: { ServiceNamespace: 'ecs', ScalableDimension: 'ecs:service:DesiredCount' },
    });

    // Act
    const check = (): unknown => checkRealtimeScalingRequests(requests);

    // Assert
    expect(check).toThrow(
      'Local autoscaling of endpoint/mso-r1-ep-ramp/variant/AllTraffic: ' +
        'registerScalableTarget.ServiceNamespace: got "ecs", expected "sagemaker"; ' +
        'putScalingPolicy.ServiceNamespace: got "ecs", expected "sagemaker"; ' +
        'registerScalableTarget.ScalableDimension: got "ecs:service:DesiredCount", expected "sagemaker:variant:DesiredInstanceCount"; ' +
        'putScalingPolicy.ScalableDimension: got "ecs:service:DesiredCount", expected "sagemaker:variant:DesiredInstanceCount". ' +
        "Fix the requests (the report's scalingPolicy emits valid ones).",
    );
  });

  it('refuses a ResourceId that is not a variant, and a policy on another resource', () => {
    // Prepare
    const requests = edited({ register: { ResourceId: 'endpoint/mso-r1-ep-ramp' } });

    // Act
    const check = (): unknown => checkRealtimeScalingRequests(requests);

    // Assert
    expect(check).toThrow(
      'Local autoscaling of endpoint/mso-r1-ep-ramp: ' +
        'registerScalableTarget.ResourceId: got "endpoint/mso-r1-ep-ramp", expected endpoint/<endpoint name>/variant/<variant name>; ' +
        'putScalingPolicy.ResourceId: got "endpoint/mso-r1-ep-ramp/variant/AllTraffic", expected the registered target\'s "endpoint/mso-r1-ep-ramp" (a policy needs a registered scalable target). ' +
        "Fix the requests (the report's scalingPolicy emits valid ones).",
    );
  });

  it('refuses MinCapacity above MaxCapacity, naming MaxCapacity', () => {
    // Prepare
    const requests = edited({ register: { MinCapacity: 4, MaxCapacity: 3 } });

    // Act
    const check = (): unknown => checkRealtimeScalingRequests(requests);

    // Assert
    expect(check).toThrow(
      'Local autoscaling of endpoint/mso-r1-ep-ramp/variant/AllTraffic: ' +
        'registerScalableTarget.MaxCapacity: got 3, expected an integer of at least registerScalableTarget.MinCapacity (4). ' +
        "Fix the requests (the report's scalingPolicy emits valid ones).",
    );
  });

  it('refuses a step scaling policy on another metric, naming PolicyType and PredefinedMetricType', () => {
    // Prepare
    const requests = edited({
      put: { PolicyType: 'StepScaling' },
      configuration: {
        PredefinedMetricSpecification: {
          PredefinedMetricType: 'SageMakerVariantProvisionedConcurrencyUtilization',
        },
      },
    });

    // Act
    const check = (): unknown => checkRealtimeScalingRequests(requests);

    // Assert
    expect(check).toThrow(
      'Local autoscaling of endpoint/mso-r1-ep-ramp/variant/AllTraffic: ' +
        'putScalingPolicy.PolicyType: got "StepScaling", expected "TargetTrackingScaling" (the local host runs target tracking only); ' +
        'putScalingPolicy.TargetTrackingScalingPolicyConfiguration.PredefinedMetricSpecification.PredefinedMetricType: ' +
        'got "SageMakerVariantProvisionedConcurrencyUtilization", expected "SageMakerVariantInvocationsPerInstance" (the metric the local front counts). ' +
        "Fix the requests (the report's scalingPolicy emits valid ones).",
    );
  });

  it('refuses a target value of 0, naming TargetValue', () => {
    // Prepare
    const requests = edited({ configuration: { TargetValue: 0 } });

    // Act
    const check = (): unknown => checkRealtimeScalingRequests(requests);

    // Assert
    expect(check).toThrow(
      'Local autoscaling of endpoint/mso-r1-ep-ramp/variant/AllTraffic: ' +
        'putScalingPolicy.TargetTrackingScalingPolicyConfiguration.TargetValue: got 0, expected invocations per instance per minute above 0. ' +
        "Fix the requests (the report's scalingPolicy emits valid ones).",
    );
  });
});
