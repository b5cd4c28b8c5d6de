import type { InputIssue, LoadPlan } from '../contracts/index.js';
import { type ExecutionBudgets, type PollSchedule, STEP_FUNCTIONS_QUOTAS } from '../contracts/index.js';
import {
  awsSegmentSeconds,
  interleavedRepeatRounds,
  loadTestSeconds,
  stepPeriodMs,
  worstCaseOwnRounds,
} from '../load-test/index.js';
import { type HistoryCounts, historyIssue, loadTestRerunsWithin, worstCaseShape } from './history-limit.js';
import {
  type AsyncHistoryShape,
  asyncHistoryEvents,
  HISTORY_BUDGET,
  optimizationHistoryEvents,
} from './history-model.js';
import type { LoadTestShape, OptimizationTimings } from './load-test-shape.js';
import { type RunTimeShape, runTimeIssue, worstRunSeconds } from './run-time-estimate.js';
import { type PlannedRunFootprint, largestOptimizationState, stateSizeIssue } from './state-size.js';

/** The parts of an optimization plan ("Validate and plan") that decide its limits. */
export interface PlannedOptimization {
  readonly candidates: readonly { readonly environment: Readonly<Record<string, string>> }[];
  readonly compilations: readonly unknown[];
  readonly compilationMaxRuntimeSeconds: number;
  readonly loadPlan: LoadPlan;
  /** @default awsSegmentSeconds(loadPlan) */
  readonly loadSegmentSeconds?: number;
  readonly maxConcurrentCandidates: number;
  /** "Prove the target" (only with a target): counted when it is on and can run. */
  readonly prove?: {
    readonly enabled: boolean;
    readonly workers: number;
    readonly corrections?: number;
    readonly skipReason?: string;
  };
  /** "Ramp test" (only with a target, when asked for): counted when enabled. */
  readonly rampTest?: {
    readonly enabled: boolean;
    readonly seconds: number;
    readonly workers: number;
    readonly retests?: number;
  };
  readonly tags: Readonly<Record<string, string>>;
  /** The clean-up policy: `keep-recommended` adds "Delete candidates not kept". @default delete-all */
  readonly cleanupPolicy?: string;
  readonly model?: { readonly environment: Readonly<Record<string, string>> };
  readonly payloads?: readonly unknown[];
  /** The output-quality guard: "Record candidate answers" per candidate, "Judge output quality" once. */
  readonly quality?: { readonly worstExamples: number };
}

export interface OptimizationLimitSettings {
  readonly expandedByRanges: boolean;
  readonly endpointDeadlineSeconds: number;
  /** Beyond the job's own runtime, before the check stops it (core/shared/compilation-job.ts). */
  readonly compilationDeadlineMarginSeconds: number;
  readonly polling: { readonly endpoint: PollSchedule; readonly compilation: PollSchedule };
}

function optimizationTimings(
  plan: PlannedOptimization,
  settings: OptimizationLimitSettings,
): OptimizationTimings {
  return {
    endpointDeadlineSeconds: settings.endpointDeadlineSeconds,
    compilationDeadlineSeconds: plan.compilationMaxRuntimeSeconds + settings.compilationDeadlineMarginSeconds,
    compilationMaxRuntimeSeconds: plan.compilationMaxRuntimeSeconds,
    endpointPolling: settings.polling.endpoint,
    compilationPolling: settings.polling.compilation,
  };
}

function historyCounts(plan: PlannedOptimization): HistoryCounts {
  return {
    candidates: plan.candidates.length,
    workersPerCandidate: plan.loadPlan.workers,
    compilationTargets: plan.compilations.length,
    loadTest: loadTestShape(plan),
    ...(plan.cleanupPolicy === 'keep-recommended' ? { keepsRecommended: true } : {}),
    ...(plan.quality === undefined ? {} : { qualityGuarded: true }),
    ...(provesTarget(plan)
      ? { proofWorkers: plan.prove?.workers ?? 0, proofAttempts: 1 + (plan.prove?.corrections ?? 0) }
      : {}),
    ...(plan.rampTest?.enabled === true
      ? {
          ramp: {
            workers: plan.rampTest.workers,
            segments: rampShape(plan, plan.rampTest).segments,
            attempts: rampShape(plan, plan.rampTest).attempts,
          },
        }
      : {}),
  };
}

/** The ramp's warm-up and window, and the worker invocations they take (as a load test's segments). */
function rampShape(
  plan: PlannedOptimization,
  rampTest: NonNullable<PlannedOptimization['rampTest']>,
): { readonly testSeconds: number; readonly segments: number; readonly attempts: number } {
  const testSeconds = plan.loadPlan.warmupSeconds + rampTest.seconds;
  const segmentSeconds = plan.loadSegmentSeconds ?? awsSegmentSeconds(plan.loadPlan);
  return {
    testSeconds,
    segments: Math.max(1, Math.ceil(testSeconds / segmentSeconds)),
    attempts: 1 + (rampTest.retests ?? 0),
  };
}

/** Whether the plan runs "Prove the target" (asked for, and able to run). */
function provesTarget(plan: Pick<PlannedOptimization, 'prove'>): boolean {
  return plan.prove?.enabled === true && plan.prove.skipReason === undefined;
}

function loadTestShape(plan: PlannedOptimization): LoadTestShape {
  return {
    testSeconds: loadTestSeconds(plan.loadPlan),
    segmentSeconds: plan.loadSegmentSeconds ?? awsSegmentSeconds(plan.loadPlan),
    rounds: worstCaseOwnRounds(plan.loadPlan),
    interleavedRounds: interleavedRepeatRounds(plan.loadPlan),
    roundSeconds: stepPeriodMs(plan.loadPlan) / 1000,
  };
}

/** The plan's `loadTestReruns`: 1 when a re-run of every candidate's load test fits the history. */
export function plannedLoadTestReruns(
  plan: PlannedOptimization,
  settings: OptimizationLimitSettings,
): number {
  return loadTestRerunsWithin(historyCounts(plan), optimizationTimings(plan, settings));
}

function footprintOf(plan: PlannedOptimization, settings: OptimizationLimitSettings): PlannedRunFootprint {
  return {
    plan,
    candidates: plan.candidates,
    compilationTargets: plan.compilations.length,
    workersPerCandidate: plan.loadPlan.workers,
    tags: plan.tags,
    modelEnvironment: plan.model?.environment ?? {},
    ...(plan.payloads === undefined ? {} : { payloads: plan.payloads }),
    expandedByRanges: settings.expandedByRanges,
    ...(plan.quality === undefined ? {} : { qualityGuarded: true }),
    ...(provesTarget(plan) ? { proofWorkers: plan.prove?.workers ?? 0 } : {}),
    ...(plan.rampTest?.enabled === true ? { rampWorkers: plan.rampTest.workers } : {}),
  };
}

/**
 * Whether a plan's worst case, rounds included, fits the history budget and the run's timeout:
 * what decides how many of the default rounds a plan gets (`defaultRoundsWithin`, "Validate and
 * plan"). Rounds do not change the largest state's size, which is left out.
 */
export function roundsFitLimits(
  plan: Pick<
    PlannedOptimization,
    'loadPlan' | 'loadSegmentSeconds' | 'compilationMaxRuntimeSeconds' | 'maxConcurrentCandidates'
  > & { readonly candidateCount: number; readonly compilationCount: number },
  settings: OptimizationLimitSettings,
): boolean {
  const planned: PlannedOptimization = {
    ...plan,
    candidates: Array.from({ length: plan.candidateCount }, () => ({ environment: {} })),
    compilations: Array.from({ length: plan.compilationCount }),
    tags: {},
  };
  const timings = optimizationTimings(planned, settings);
  const time = runTimeIssue(
    {
      candidates: plan.candidateCount,
      maxConcurrentCandidates: plan.maxConcurrentCandidates,
      compilationTargets: plan.compilationCount,
      loadTest: loadTestShape(planned),
      loadTestReruns: 0,
    },
    timings,
  );
  return historyIssue(historyCounts(planned), timings) === undefined && time === undefined;
}

/** Every limit the plan would break: its largest state, its worst-case history, then its duration. */
export function optimizationLimitIssues(
  plan: PlannedOptimization,
  settings: OptimizationLimitSettings,
): InputIssue[] {
  const size = stateSizeIssue(footprintOf(plan, settings));
  const timings = optimizationTimings(plan, settings);
  const history = historyIssue(historyCounts(plan), timings);
  const time = runTimeIssue(runTimeShapeOf(plan, settings), timings);
  return [size, history, time].filter((issue): issue is InputIssue => issue !== undefined);
}

function runTimeShapeOf(plan: PlannedOptimization, settings: OptimizationLimitSettings): RunTimeShape {
  return {
    candidates: plan.candidates.length,
    maxConcurrentCandidates: plan.maxConcurrentCandidates,
    compilationTargets: plan.compilations.length,
    loadTest: loadTestShape(plan),
    loadTestReruns: plannedLoadTestReruns(plan, settings),
    proofs: provesTarget(plan) ? 1 + (plan.prove?.corrections ?? 0) : 0,
    ...(plan.rampTest?.enabled === true ? { ramp: rampShape(plan, plan.rampTest) } : {}),
  };
}

/** The plan's worst-case duration, the one its time limit is checked with: what `plan` prints. */
export function optimizationWorstRunSeconds(
  plan: PlannedOptimization,
  settings: OptimizationLimitSettings,
): number {
  return worstRunSeconds(runTimeShapeOf(plan, settings), optimizationTimings(plan, settings));
}

/** The budgets an optimization plan uses, its load test re-runs (`plannedLoadTestReruns`) included. */
export function optimizationBudgets(
  plan: PlannedOptimization,
  settings: OptimizationLimitSettings,
  loadTestReruns: number,
): ExecutionBudgets {
  const history = optimizationHistoryEvents(
    worstCaseShape(historyCounts(plan), optimizationTimings(plan, settings), 1 + loadTestReruns),
  );
  const largest = largestOptimizationState(footprintOf(plan, settings));
  return {
    historyEvents: {
      worstCase: history.total,
      budget: HISTORY_BUDGET,
      quota: STEP_FUNCTIONS_QUOTAS.maxHistoryEvents,
    },
    largestState: { ...largest, quotaBytes: STEP_FUNCTIONS_QUOTAS.maxPayloadBytes },
  };
}

/** The budget an async plan uses: its worst-case history (`asyncHistoryEvents`). */
export function asyncBudgets(shape: AsyncHistoryShape): ExecutionBudgets {
  return {
    historyEvents: {
      worstCase: asyncHistoryEvents(shape),
      budget: HISTORY_BUDGET,
      quota: STEP_FUNCTIONS_QUOTAS.maxHistoryEvents,
    },
  };
}
