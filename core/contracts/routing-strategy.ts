/**
 * How a real-time endpoint spreads requests over its instances (SageMaker API reference,
 * ProductionVariantRoutingConfig: https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ProductionVariantRoutingConfig.html).
 * Absent, SageMaker routes randomly ("By default, SageMaker endpoints have a random routing
 * strategy": https://aws.amazon.com/blogs/machine-learning/minimize-real-time-inference-latency-by-using-amazon-sagemaker-routing-strategies/).
 */
export const RoutingStrategies = {
  random: 'RANDOM',
  leastOutstandingRequests: 'LEAST_OUTSTANDING_REQUESTS',
} as const;
export type RoutingStrategy = (typeof RoutingStrategies)[keyof typeof RoutingStrategies];
