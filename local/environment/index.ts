/**
 * Local mode's composition roots: the same step handlers the Lambdas call, over the local adapters
 * and platform, and a run of each synthesized workflow over them (`runLocalOptimization`,
 * `runLocalAsyncInference`), on the skeleton both share (`workflow-environment.ts`). The CLIs build
 * on this room; it never imports them.
 */
export type {
  LocalAsyncEnvironment,
  LocalAsyncEnvironmentOptions,
  LocalAsyncRunOptions,
  LocalAsyncRunOutcome,
} from './async-environment.js';
export { createLocalAsyncEnvironment, runLocalAsyncInference } from './async-environment.js';
export type {
  LocalEnvironment,
  LocalEnvironmentOptions,
  LocalRunOptions,
  LocalRunOutcome,
} from './optimization-environment.js';
export { createLocalEnvironment, runLocalOptimization } from './optimization-environment.js';
export type { LocalCleanUp } from './step-handlers.js';
export type {
  LocalWorkflowEnvironment,
  LocalWorkflowOutcome,
  LocalWorkflowRunOptions,
} from './workflow-environment.js';
export { LOCAL_ARTIFACTS_BUCKET } from './workflow-environment.js';
