/**
 * A SageMaker variant as Application Auto Scaling names it: namespace `sagemaker`, resource
 * `endpoint/<endpoint>/variant/<variant>`, dimension `sagemaker:variant:DesiredInstanceCount`
 * (RegisterScalableTarget, ResourceId and ScalableDimension,
 * https://docs.aws.amazon.com/autoscaling/application/APIReference/API_RegisterScalableTarget.html;
 * SageMaker AI "Apply a scaling policy",
 * https://docs.aws.amazon.com/sagemaker/latest/dg/endpoint-auto-scaling-add-code-apply.html).
 */
export const SAGEMAKER_NAMESPACE = 'sagemaker';
export const VARIANT_INSTANCE_COUNT_DIMENSION = 'sagemaker:variant:DesiredInstanceCount';

/**
 * The predefined metric counts invocations per instance per minute, so its target is a per-minute
 * rate: the measured per-second rate × 60 × the safety factor (SageMaker AI "Load testing your
 * auto scaling configuration",
 * https://docs.aws.amazon.com/sagemaker/latest/dg/endpoint-scaling-loadtest.html).
 */
export const INVOCATIONS_PER_INSTANCE_METRIC = 'SageMakerVariantInvocationsPerInstance';

/** RegisterScalableTargetCommandInput, without the SDK (the core imports none). */
export interface RegisterScalableTargetRequest {
  readonly ServiceNamespace: typeof SAGEMAKER_NAMESPACE;
  readonly ResourceId: string;
  readonly ScalableDimension: typeof VARIANT_INSTANCE_COUNT_DIMENSION;
  readonly MinCapacity: number;
  readonly MaxCapacity: number;
}

/** PutScalingPolicyCommandInput for a target-tracking policy on the predefined metric. */
export interface PutScalingPolicyRequest {
  readonly PolicyName: string;
  readonly ServiceNamespace: typeof SAGEMAKER_NAMESPACE;
  readonly ResourceId: string;
  readonly ScalableDimension: typeof VARIANT_INSTANCE_COUNT_DIMENSION;
  readonly PolicyType: 'TargetTrackingScaling';
  readonly TargetTrackingScalingPolicyConfiguration: {
    readonly TargetValue: number;
    readonly PredefinedMetricSpecification: {
      readonly PredefinedMetricType: typeof INVOCATIONS_PER_INSTANCE_METRIC;
    };
    readonly ScaleInCooldown: number;
    readonly ScaleOutCooldown: number;
  };
}

/**
 * The two requests that apply a real-time variant's target tracking: what the report recommends
 * (serving/scaling-policy.ts `ScalingPolicy`), and what the ramp test attaches to its endpoint.
 */
export interface RealtimeScalingRequests {
  readonly registerScalableTarget: RegisterScalableTargetRequest;
  readonly putScalingPolicy: PutScalingPolicyRequest;
}
