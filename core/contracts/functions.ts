import { ASYNC_INFERENCE_STEPS, type AsyncInferenceStepName } from './async-state.js';
import { OPTIMIZATION_STEPS, type OptimizationStepName } from './optimization-state.js';

/**
 * Every Lambda of the project, by the name it carries in `STEP_NAME`, which is also its entry
 * file (`lambdas/<name>.ts`) and its construct id in PascalCase. The steps of the two workflows
 * are listed in their contract modules; these are the others: the run API, the triggers, the
 * safety net and the async workflow's notification side. `infra/` creates each Lambda from a name
 * here, and test/lambdas/registered-entries.test.ts fails when `lambdas/` and this list differ.
 */

/** The Lambdas that are not a Task state of the optimization or async-inference workflow. */
export const SUPPORT_FUNCTIONS = {
  /** `GET /runs/{id}` and `GET /async-runs/{id}` of the run API. */
  describeRun: 'describe-run',
  /** `POST /runs` and `POST /async-runs`: checks the run input, then starts the execution. */
  startRun: 'start-run',
  /** `POST /runs/plan`: the first state's plan of a run, over read-only adapters; nothing created. */
  planRun: 'plan-run',
  /** `GET /runs` and `GET /async-runs`: the workflow's runs, filtered. */
  listRuns: 'list-runs',
  /** `POST /runs/{id}/stop` and `POST /async-runs/{id}/stop`. */
  stopRun: 'stop-run',
  /** `GET /runs/{id}/events` and `GET /async-runs/{id}/events`: the run's progress events. */
  runEvents: 'run-events',
  /** `GET /runs/{id}/report` and `GET /async-runs/{id}/report`: presigned links to the report files. */
  runReport: 'run-report',
  /** Sweeps by age what runs left behind (the safety net's schedule). */
  janitor: 'janitor',
  /** Publishes each run's summary when its execution ends (EventBridge). */
  notifyRunSummary: 'notify-run-summary',
  /** Starts a run for each approved Model Registry version (EventBridge). */
  startApprovedModelRun: 'start-approved-model-run',
  /** The step of the failed-run clean-up workflow (the safety net). */
  cleanUpFailedRun: 'clean-up-failed-run',
  /** Resumes the async workflow's waiting task from SageMaker's SNS notification. */
  handleAsyncNotification: 'handle-async-notification',
  /** Heartbeats the async workflow's waiting tasks (a schedule). */
  sendAsyncHeartbeats: 'send-async-heartbeats',
} as const;
export type SupportFunctionKey = keyof typeof SUPPORT_FUNCTIONS;
export type SupportFunctionName = (typeof SUPPORT_FUNCTIONS)[SupportFunctionKey];

/** The name of any Lambda of the project. */
export type ProjectFunctionName = OptimizationStepName | AsyncInferenceStepName | SupportFunctionName;

/** Every Lambda of the project: the two workflows' steps, then the others. */
export const PROJECT_FUNCTION_NAMES: readonly ProjectFunctionName[] = [
  ...Object.values(OPTIMIZATION_STEPS),
  ...Object.values(ASYNC_INFERENCE_STEPS),
  ...Object.values(SUPPORT_FUNCTIONS),
];
