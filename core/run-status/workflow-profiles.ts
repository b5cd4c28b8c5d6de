import {
  AsyncInferenceStates,
  OptimizationStates,
  RunWorkflows,
  type RunWorkflow,
} from '../contracts/index.js';
import type { ProgressProfile } from './progress.js';

/**
 * Which states tell each workflow's progress. The names come from each workflow's contract
 * (core/contracts/optimization-state.ts, async-state.ts), which the workflow constructs name
 * their states from; test/core/run-status/workflow-profiles.test.ts builds both workflows and
 * fails when one of these names is no longer a state of its workflow, or has moved into a Map.
 */

/** The optimization workflow's main Map: one iteration per candidate (deploy, test, delete). */
export const BENCHMARK_MAP_STATE = OptimizationStates.benchmarkEachCandidate;

export const OPTIMIZATION_PROGRESS: ProgressProfile = {
  itemsLabel: 'candidates',
  itemsMapState: BENCHMARK_MAP_STATE,
  // The phases a person follows, in run order; the states inside the Maps are steps of a phase.
  phaseStates: [
    OptimizationStates.validateAndPlan,
    OptimizationStates.runRefused,
    OptimizationStates.packageModel,
    OptimizationStates.compileEachTarget,
    BENCHMARK_MAP_STATE,
    // With interleaved repeats: one entry per round over the kept endpoints.
    OptimizationStates.repeatEachCandidate,
    OptimizationStates.recommend,
    // With a target: the proof's endpoint, deployed once (twice with a corrected count).
    OptimizationStates.deployProofEndpoint,
    OptimizationStates.cleanUpRunResources,
    OptimizationStates.cleanUpAfterFailure,
    OptimizationStates.runFailed,
    OptimizationStates.runSucceeded,
  ],
};

/** The async-inference workflow's Maps: batches of inputs, and each batch's inputs. */
export const BATCH_MAP_STATE = AsyncInferenceStates.processEachBatch;
export const INPUT_MAP_STATE = AsyncInferenceStates.invokeEachInput;

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
    AsyncInferenceStates.validateAsyncRun,
    AsyncInferenceStates.runRefused,
    AsyncInferenceStates.deployAsyncEndpoint,
    AsyncInferenceStates.waitForAsyncEndpoint,
    AsyncInferenceStates.checkAsyncEndpoint,
    BATCH_MAP_STATE,
    AsyncInferenceStates.summarizeAsyncRun,
    AsyncInferenceStates.cleanUpAsyncRun,
    AsyncInferenceStates.cleanUpAfterFailure,
    AsyncInferenceStates.runFailed,
    AsyncInferenceStates.runSucceeded,
  ],
};

export const WORKFLOW_PROGRESS: Readonly<Record<RunWorkflow, ProgressProfile>> = {
  [RunWorkflows.optimization]: OPTIMIZATION_PROGRESS,
  [RunWorkflows.asyncInference]: ASYNC_INFERENCE_PROGRESS,
};
