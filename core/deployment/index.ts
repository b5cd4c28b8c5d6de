/**
 * What other rooms import from core/deployment/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export { candidateDeployment, modelEnvironment } from './candidate-deployment.js';
export type { CompilationDeps } from './compilation-job.js';
export { COMPILATION_DEADLINE_MARGIN_SECONDS, requireOptimizer } from './compilation-job.js';
export {
  createComponentEndpointConfigRequest,
  createInferenceComponentRequest,
} from './component-requests.js';
export type { EndpointTimings } from './endpoint-deployment.js';
export { BUSY_ENDPOINT_STATUSES, ENDPOINT_DEADLINE_SECONDS } from './endpoint-deployment.js';
export { ESTIMATE_ASSUMPTIONS } from './estimate-assumptions.js';
export type {
  ComponentEndpointConfigSpec,
  InferenceComponentDescription,
  InferenceComponentHost,
  InferenceComponentSpec,
  InferenceComponentSummary,
} from './inference-component-host.js';
export { buildModelArchive, unpackModelArchive } from './model-archive.js';
export type { CleanUpDeps } from './run-clean-up.js';
export { cleanUpRun } from './run-clean-up.js';
export type {
  CreateEndpointConfigRequest,
  CreateEndpointRequest,
  CreateModelRequest,
} from './sagemaker-requests.js';
export {
  createEndpointConfigRequest,
  createEndpointRequest,
  createModelRequest,
  sageMakerTags,
} from './sagemaker-requests.js';
