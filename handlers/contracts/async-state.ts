/**
 * The async-inference workflow's contract: its steps and the states other layers name, the one
 * list the workflow construct's props, the step Lambdas in `infra/`, the local runner's handler map
 * and each Lambda's `STEP_NAME` derive from (see optimization-state.ts).
 */

/** Each step Lambda of the workflow, by its key in the workflow construct's props. */
export const ASYNC_INFERENCE_STEPS = {
  validateAsyncRun: 'validate-async-run',
  deployAsyncEndpoint: 'deploy-async-endpoint',
  checkAsyncEndpoint: 'check-async-endpoint',
  loadBatch: 'load-batch',
  invokeAsyncInference: 'invoke-async-inference',
  recordBatchResults: 'record-batch-results',
  summarizeAsyncRun: 'summarize-async-run',
  cleanUpAsyncRun: 'clean-up-async-run',
} as const;
export type AsyncInferenceStepKey = keyof typeof ASYNC_INFERENCE_STEPS;
export type AsyncInferenceStepName = (typeof ASYNC_INFERENCE_STEPS)[AsyncInferenceStepKey];

/** The states named outside the workflow construct: by progress reporters, the run API and the CLIs. */
export const AsyncInferenceStates = {
  validateAsyncRun: 'Validate async run',
  runRefused: 'Run refused',
  runAsyncInference: 'Run async inference',
  deployAsyncEndpoint: 'Deploy async endpoint',
  waitForAsyncEndpoint: 'Wait for async endpoint',
  checkAsyncEndpoint: 'Check async endpoint',
  processEachBatch: 'Process each batch',
  loadBatchInputs: 'Load batch inputs',
  invokeEachInput: 'Invoke each input',
  invokeAsyncInference: 'Invoke async inference',
  recordBatchResults: 'Record batch results',
  summarizeAsyncRun: 'Summarize async run',
  cleanUpAsyncRun: 'Clean up async run',
  cleanUpAfterFailure: 'Clean up after failure',
  runFailed: 'Run failed',
  runSucceeded: 'Run succeeded',
} as const;
export type AsyncInferenceState = (typeof AsyncInferenceStates)[keyof typeof AsyncInferenceStates];
