/**
 * The optimization workflow's contract: its steps and the states other layers name. The one list
 * from which the workflow construct's props, the step Lambdas in `infra/`, the local runner's
 * handler map and each Lambda's `STEP_NAME` derive, so a missing or misspelt step fails the
 * type-check, never a run.
 *
 * One name per step across layers: state "Deploy candidate" ↔ `lambdas/deploy-candidate.ts` ↔
 * `handlers/deploy-candidate.ts` ↔ `test/handlers/deploy-candidate.test.ts`.
 */

/** Each step Lambda of the workflow, by its key in the workflow construct's props. */
export const OPTIMIZATION_STEPS = {
  validateAndPlan: 'validate-and-plan',
  packageModel: 'package-model',
  startCompilation: 'start-compilation',
  checkCompilation: 'check-compilation',
  deployCandidate: 'deploy-candidate',
  checkEndpoint: 'check-endpoint',
  runLoadWorker: 'run-load-worker',
  aggregateLoadTest: 'aggregate-load-test',
  deleteCandidate: 'delete-candidate',
  recommend: 'recommend',
  cleanUp: 'clean-up',
} as const;
export type OptimizationStepKey = keyof typeof OPTIMIZATION_STEPS;
export type OptimizationStepName = (typeof OPTIMIZATION_STEPS)[OptimizationStepKey];

/** The states named outside the workflow construct: by progress reporters, the run API and the CLIs. */
export const OptimizationStates = {
  validateAndPlan: 'Validate and plan',
  runRefused: 'Run refused',
  optimize: 'Optimize',
  packageModel: 'Package model',
  compileEachTarget: 'Compile model for each target',
  startCompilation: 'Start compilation job',
  checkCompilation: 'Check compilation job',
  benchmarkEachCandidate: 'Benchmark each candidate',
  deployCandidate: 'Deploy candidate',
  checkEndpoint: 'Check endpoint',
  runLoadWorkers: 'Run load workers',
  runLoadWorker: 'Run load worker',
  aggregateLoadTest: 'Aggregate load test',
  deleteCandidateEndpoint: 'Delete candidate endpoint',
  deleteFailedCandidateEndpoint: 'Delete failed candidate endpoint',
  recommend: 'Recommend',
  cleanUpRunResources: 'Clean up run resources',
  cleanUpAfterFailure: 'Clean up after failure',
  runFailed: 'Run failed',
  runSucceeded: 'Run succeeded',
} as const;
export type OptimizationState = (typeof OptimizationStates)[keyof typeof OptimizationStates];
