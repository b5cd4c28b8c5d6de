import type { ProgressProfile } from './progress.js';
import { RunWorkflows, type RunWorkflow } from './run-api-contract.js';

/**
 * Which states tell each workflow's progress. The names are states of
 * workflows/optimization-workflow.ts and workflows/async-inference-workflow.ts;
 * test/handlers/run-status/workflow-profiles.test.ts builds both workflows and fails when one of
 * these names is no longer a state of its workflow, or has moved into a Map.
 */

/** The optimization workflow's main Map: one iteration per candidate (deploy, test, delete). */
export const BENCHMARK_MAP_STATE = 'Benchmark each candidate';

export const OPTIMIZATION_PROGRESS: ProgressProfile = {
  itemsLabel: 'candidates',
  itemsMapState: BENCHMARK_MAP_STATE,
  // The phases a person follows, in run order; the states inside the Maps are steps of a phase.
  phaseStates: [
    'Validate and plan',
    'Run refused',
    'Package model',
    'Compile model for each target',
    BENCHMARK_MAP_STATE,
    'Recommend',
    'Clean up run resources',
    'Clean up after failure',
    'Run failed',
    'Run succeeded',
  ],
};

/** The async-inference workflow's Maps: batches of inputs, and each batch's inputs. */
export const BATCH_MAP_STATE = 'Process each batch';
export const INPUT_MAP_STATE = 'Invoke each input';

/**
 * Inputs are counted across batches; their total is known once every batch has loaded its inputs
 * (the batches' total is known from the start). The whole history is read: the inputs Map is
 * entered once per batch (at most ~11,000 events for the 1,000-input maximum).
 */
export const ASYNC_INFERENCE_PROGRESS: ProgressProfile = {
  itemsLabel: 'inputs',
  itemsMapState: INPUT_MAP_STATE,
  groups: { label: 'batches', mapState: BATCH_MAP_STATE },
  phaseStates: [
    'Validate async run',
    'Run refused',
    'Deploy async endpoint',
    'Wait for async endpoint',
    'Check async endpoint',
    BATCH_MAP_STATE,
    'Summarize async run',
    'Clean up async run',
    'Clean up after failure',
    'Run failed',
    'Run succeeded',
  ],
};

export const WORKFLOW_PROGRESS: Readonly<Record<RunWorkflow, ProgressProfile>> = {
  [RunWorkflows.optimization]: OPTIMIZATION_PROGRESS,
  [RunWorkflows.asyncInference]: ASYNC_INFERENCE_PROGRESS,
};
