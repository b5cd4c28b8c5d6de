import type { AsyncRunPlan, PrepareAsyncEndpointEvent, AsyncEndpointState } from '../../contracts/index.js';
import type { AsyncInferenceSpec } from '../../ports/index.js';
import type { PrepareAsyncEndpointDeps } from '../../async/index.js';

/**
 * "Deploy async endpoint", the start of the Wait → Check loop that brings the run's endpoint to
 * where the invocations can start (check-async-endpoint.ts polls it): CreateModel,
 * CreateEndpointConfig (with `AsyncInferenceConfig`: S3 output and failure paths, this stack's SNS
 * topics, `MaxConcurrentInvocationsPerInstance`) and CreateEndpoint.
 */

/** State "Deploy async endpoint": creates the three resources, named after the run and tagged. */
export async function deployAsyncEndpoint(
  event: PrepareAsyncEndpointEvent,
  deps: PrepareAsyncEndpointDeps,
): Promise<AsyncEndpointState> {
  const { plan } = event;
  const { endpoint } = plan;
  const spec = endpoint.deploy;
  if (spec === undefined || endpoint.modelName === undefined || endpoint.endpointConfigName === undefined) {
    throw new TypeError(`deployAsyncEndpoint: endpoint ${endpoint.endpointName} is not one the run deploys`);
  }
  await deps.host.createModel({
    modelName: endpoint.modelName,
    image: spec.image,
    // A Hub model without code has no model data (`ModelDataUrl` is optional in ContainerDefinition).
    ...(spec.modelDataUrl === undefined ? {} : { modelDataUrl: spec.modelDataUrl }),
    environment: spec.environment,
    tags: plan.tags,
  });
  await deps.host.createEndpointConfig({
    endpointConfigName: endpoint.endpointConfigName,
    variant: {
      variantName: endpoint.variantName,
      modelName: endpoint.modelName,
      instanceType: spec.instanceType,
      // SageMaker creates async endpoints with at least one instance; autoscaling takes it to zero.
      initialInstanceCount: 1,
    },
    asyncInference: asyncInferenceSpec(plan, deps.output),
    tags: plan.tags,
  });
  await deps.host.createEndpoint({
    endpointName: endpoint.endpointName,
    endpointConfigName: endpoint.endpointConfigName,
    tags: plan.tags,
  });
  deps.logger.info('Async endpoint creating', {
    runId: plan.runId,
    endpointName: endpoint.endpointName,
    instanceType: spec.instanceType,
    image: spec.image,
  });
  return event.endpointState;
}

/** Results under the run's prefix, so the run's artifacts stay together (and its grants scoped). */
export function asyncInferenceSpec(
  plan: AsyncRunPlan,
  output: PrepareAsyncEndpointDeps['output'],
): AsyncInferenceSpec {
  const maxConcurrent = plan.endpoint.deploy?.maxConcurrentInvocationsPerInstance;
  return {
    s3OutputPath: `${plan.runPrefixUri}async/output/`,
    s3FailurePath: `${plan.runPrefixUri}async/failures/`,
    ...(output.kmsKeyId === undefined ? {} : { kmsKeyId: output.kmsKeyId }),
    successTopicArn: output.successTopicArn,
    errorTopicArn: output.errorTopicArn,
    ...(maxConcurrent === undefined ? {} : { maxConcurrentInvocationsPerInstance: maxConcurrent }),
  };
}
