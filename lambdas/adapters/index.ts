/**
 * What other rooms import from lambdas/adapters/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export { ApplicationAutoScalingRegistry } from './application-autoscaling-registry.js';
export { ApplicationAutoScalingInstanceSeries } from './application-autoscaling-series.js';
export { AwsAsyncEndpointObserver } from './async-endpoint-observer.js';
export { CloudWatchEndpointMetrics } from './cloudwatch-endpoint-metrics.js';
export { CloudWatchInvocationsPerInstance } from './cloudwatch-invocations-per-instance.js';
export { DynamoDbTokenStore } from './dynamodb-token-store.js';
export { Ec2InstanceFactsReader } from './ec2-instance-facts.js';
export { IamPolicySimulator } from './iam-policy-simulator.js';
export { PricingHostingPrices, priceListEndpointRegion } from './pricing-hosting-prices.js';
export { S3ObjectStore } from './s3-object-store.js';
export { S3Presigner } from './s3-presigner.js';
export { SageMakerAsyncInvoker } from './sagemaker-async-invoker.js';
export { SageMakerCompiler } from './sagemaker-compiler.js';
export { createSageMakerEndpointAnswerer } from './sagemaker-endpoint-answerer.js';
export { SageMakerEndpointRoleReader } from './sagemaker-endpoint-role.js';
export { SageMakerModelHost } from './sagemaker-model-host.js';
export { SageMakerOptimizer } from './sagemaker-optimizer.js';
export { classifyInvokeError } from './sagemaker-runtime-transport.js';
export { ServiceQuotasInstanceReader } from './service-quotas-reader.js';
export { SfnExecutionDescriber } from './sfn-execution-describer.js';
export { SfnExecutionReader } from './sfn-execution-reader.js';
export { SfnExecutionStarter } from './sfn-execution-starter.js';
export { SfnRunActivity } from './sfn-run-activity.js';
export { SfnRunEvents } from './sfn-run-events.js';
export { SfnRunLister } from './sfn-run-lister.js';
export { SfnRunStarter } from './sfn-run-starter.js';
export { SfnRunStopper } from './sfn-run-stopper.js';
export { SfnTaskResumer } from './sfn-task-resumer.js';
export { SnsPublisher } from './sns-publisher.js';
export { createRuntimeStreamTransportFactory, createRuntimeTransportFactory } from './transport-factory.js';
