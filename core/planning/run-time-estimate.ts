import type { InputIssue } from '../contracts/index.js';
import {
  COMPILATION_CONCURRENCY,
  LOAD_WORKER_MEASURING_SECONDS,
  LOAD_WORKER_TIMEOUT_SECONDS,
  OPTIMIZATION_RUN_TIMEOUT_HOURS,
  OPTIMIZATION_RUN_TIMEOUT_SECONDS,
} from '../contracts/index.js';
import { type LoadTestShape, loadTestSegmentsOf, type OptimizationTimings } from './load-test-shape.js';

/**
 * Wall time a load test segment adds beyond its schedule: the workers' head start, their
 * requests' drain and result, "Aggregate load test". At most the minute a worker's Lambda keeps
 * beyond its measuring time (run-timeouts.ts).
 */
export const SEGMENT_OVERHEAD_SECONDS = LOAD_WORKER_TIMEOUT_SECONDS - LOAD_WORKER_MEASURING_SECONDS;

/** Deleting an endpoint: about a minute, two to be safe (validate-and-plan.ts ESTIMATE_ASSUMPTIONS). */
const CANDIDATE_TEARDOWN_SECONDS = 120;

/** What the run's worst-case duration depends on. */
export interface RunTimeShape {
  readonly candidates: number;
  readonly maxConcurrentCandidates: number;
  readonly compilationTargets: number;
  readonly loadTest: LoadTestShape;
  /** Load test re-runs per candidate (the plan's `loadTestReruns`). */
  readonly loadTestReruns: number;
  /** Proofs after "Recommend" in the worst case (each one more endpoint and one step). @default 0 */
  readonly proofs?: number;
  /** "Ramp test" when it runs: its warm-up and ramp (seconds), the worker invocations they take, its attempts. @default none */
  readonly ramp?: { readonly testSeconds: number; readonly segments: number; readonly attempts?: number };
}

/**
 * The worst-case wall time of one candidate's load test: its schedule, segment gaps, a re-run's
 * first segment, every round with its own gap (interleaved repeats too: they run in the same
 * waves of candidates, later).
 */
function loadTestWallSeconds(loadTest: LoadTestShape, reruns: number): number {
  const segments = loadTestSegmentsOf(loadTest);
  const rounds = (loadTest.rounds ?? 0) + (loadTest.interleavedRounds ?? 0);
  return (
    loadTest.testSeconds +
    rounds * (loadTest.roundSeconds ?? 0) +
    (segments + reruns + rounds) * SEGMENT_OVERHEAD_SECONDS +
    reruns * Math.min(loadTest.testSeconds, loadTest.segmentSeconds)
  );
}

/**
 * The run's worst-case duration: every compilation job its whole deadline (COMPILATION_CONCURRENCY
 * at a time), then the candidates in waves of `maxConcurrentCandidates`, each taking its
 * endpoint's whole deadline to come into service, its whole load test and its deletion.
 */
export function worstRunSeconds(shape: RunTimeShape, timings: OptimizationTimings): number {
  const compilation =
    shape.compilationTargets === 0
      ? 0
      : Math.ceil(shape.compilationTargets / COMPILATION_CONCURRENCY) * timings.compilationDeadlineSeconds;
  const waves = Math.ceil(shape.candidates / shape.maxConcurrentCandidates);
  const perCandidate =
    timings.endpointDeadlineSeconds +
    loadTestWallSeconds(shape.loadTest, shape.loadTestReruns) +
    CANDIDATE_TEARDOWN_SECONDS;
  return (
    compilation +
    waves * perCandidate +
    (shape.proofs ?? 0) * proofSeconds(shape.loadTest, timings) +
    (shape.ramp === undefined ? 0 : rampSeconds(shape.ramp, timings))
  );
}

/**
 * "Ramp test" at its longest: its endpoint's deadline, the warm-up and ramp with each segment's gap,
 * and the deletion, which waits out a scale-out still running at the ramp's end (the endpoint is
 * Updating until it is in service: another endpoint deadline at most) before it can start.
 */
function rampSeconds(ramp: NonNullable<RunTimeShape['ramp']>, timings: OptimizationTimings): number {
  return (
    (ramp.attempts ?? 1) *
    (2 * timings.endpointDeadlineSeconds +
      ramp.testSeconds +
      ramp.segments * SEGMENT_OVERHEAD_SECONDS +
      CANDIDATE_TEARDOWN_SECONDS)
  );
}

/** "Prove the target" at its longest: its endpoint's deadline, one step and its gap, the deletion. */
function proofSeconds(loadTest: LoadTestShape, timings: OptimizationTimings): number {
  return (
    timings.endpointDeadlineSeconds +
    (loadTest.roundSeconds ?? 0) +
    SEGMENT_OVERHEAD_SECONDS +
    CANDIDATE_TEARDOWN_SECONDS
  );
}

/** The longest load test (whole seconds) whose run still fits the timeout; the run's duration grows with it. */
function longestLoadTestWithin(shape: RunTimeShape, timings: OptimizationTimings): number {
  const fitsWith = (testSeconds: number): boolean =>
    worstRunSeconds({ ...shape, loadTest: { ...shape.loadTest, testSeconds } }, timings) <=
    OPTIMIZATION_RUN_TIMEOUT_SECONDS;
  let low = 0;
  let high = Math.ceil(shape.loadTest.testSeconds);
  if (!fitsWith(low)) return 0;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fitsWith(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}

/**
 * The issue that refuses a plan whose worst case outlasts the workflow's execution timeout, or
 * undefined: a run stopped by its timeout measures nothing more and reports nothing (Step
 * Functions fails it with States.Timeout; clean-up then runs from the failure workflow). Load
 * tests are what a plan can make long, so the issue names the load plan and the longest test
 * that fits.
 */
export function runTimeIssue(shape: RunTimeShape, timings: OptimizationTimings): InputIssue | undefined {
  const worst = worstRunSeconds(shape, timings);
  if (worst <= OPTIMIZATION_RUN_TIMEOUT_SECONDS) return undefined;
  const { testSeconds } = shape.loadTest;
  const fits = longestLoadTestWithin(shape, timings);
  const hours = (seconds: number): string => `${Math.round((seconds / 3600) * 10) / 10} h`;
  return {
    field: 'loadPlan.stepDurationSeconds',
    given: `load tests of ${testSeconds} s × ${shape.candidates} candidates, ${shape.maxConcurrentCandidates} at a time: the run may last ${hours(worst)} (endpoints and compilation jobs taking their whole deadlines)`,
    expected: `load tests of at most ${fits} s with these candidates (shorter or fewer steps, a lower loadPlan.maxTotalSeconds, a higher maxConcurrentCandidates or fewer candidates), so that the run ends within its ${OPTIMIZATION_RUN_TIMEOUT_HOURS}-hour execution timeout (Step Functions stops a run past it, with States.Timeout)`,
  };
}
