/**
 * What other rooms import from workflows/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
export type { AsyncInferenceSteps } from './async-inference-workflow.js';
export {
  AsyncInferenceWorkflow,
  DEFAULT_ASYNC_HEARTBEAT_TIMEOUT,
  DEFAULT_ASYNC_WAIT_TIMEOUT,
} from './async-inference-workflow.js';
export {
  FAILED_RUN_CLEAN_UP_STEP_TIMEOUT,
  FailedRunCleanUpWorkflow,
} from './failed-run-clean-up-workflow.js';
export type { OptimizationSteps } from './optimization-workflow.js';
export { LOAD_WORKER_TIMEOUT, OptimizationWorkflow } from './optimization-workflow.js';
