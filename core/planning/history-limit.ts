import type { InputIssue } from '../contracts/index.js';
import { TRANSIENT_RETRY } from '../contracts/index.js';
import {
  type AsyncHistoryShape,
  asyncHistoryEvents,
  HISTORY_BUDGET,
  HISTORY_EVENTS,
  historyLimitText,
  interleavedRoundEvents,
  LOAD_TEST_RUNS,
  loadTestSegmentEvents,
  type OptimizationHistoryShape,
  optimizationHistoryEvents,
  POLL_ROUND,
  pollRoundsWithin,
  worstCleanUpRounds,
} from './history-model.js';
import { type LoadTestShape, loadTestSegmentsOf, type OptimizationTimings } from './load-test-shape.js';

const E = HISTORY_EVENTS;

/** The Neo job's default `maxRuntimeSeconds` (the run input's default): past it, the runtime is the field to shrink. */
const DEFAULT_COMPILATION_RUNTIME_SECONDS = 900;

/** What the worst-case history of a plan is counted from. */
export type HistoryCounts = Pick<
  OptimizationHistoryShape,
  'candidates' | 'workersPerCandidate' | 'compilationTargets' | 'qualityGuarded'
> & {
  /** @default one segment */
  readonly loadTest?: LoadTestShape;
  /** Workers of "Prove the target" when it runs. @default no proof */
  readonly proofWorkers?: number;
  /** Proofs in the worst case: 2 with a correction. @default 1 */
  readonly proofAttempts?: number;
  /** "Ramp test" when it runs: its workers, the worker invocations its ramp takes, its attempts. @default no ramp */
  readonly ramp?: { readonly workers: number; readonly segments: number; readonly attempts: number };
  /** The `keep-recommended` clean-up policy: "Delete candidates not kept" runs after "Recommend". @default false */
  readonly keepsRecommended?: boolean;
};

/** The issue that refuses an async run whose worst case passes the history budget, or undefined. */
export function asyncHistoryIssue(shape: AsyncHistoryShape): InputIssue | undefined {
  const events = asyncHistoryEvents(shape);
  if (events <= HISTORY_BUDGET) return undefined;
  let fits = shape.inputs;
  while (fits > 0 && asyncHistoryEvents({ ...shape, inputs: fits }) > HISTORY_BUDGET) fits -= 1;
  return {
    field: 'inputs',
    given: `${shape.inputs} inputs, up to ${events} history events (each input's "Invoke async inference" retried up to ${shape.retriesPerInput ?? TRANSIENT_RETRY.maxAttempts} times when InvokeEndpointAsync is throttled)`,
    expected: `at most ${fits} inputs per run: ${historyLimitText()} (split the inputs over several runs)`,
  };
}

/**
 * The issue that refuses a plan whose worst-case history passes the budget, or undefined. Worst
 * case: every endpoint takes its whole deadline to come into service and every compilation job
 * its whole runtime, polled on the back-off schedule, and every load test runs all its steps (all
 * its segments). Retried attempts (the quota Retry's included) come out of HISTORY_RETRY_RESERVE,
 * as every Retry's do; a load test re-run is not counted here: the plan has one only when it fits
 * (`loadTestRerunsWithin`). The issue names the largest share of the count and how far it must
 * come down.
 */
export function historyIssue(counts: HistoryCounts, timings: OptimizationTimings): InputIssue | undefined {
  const shape = worstCaseShape(counts, timings, 1);
  const segments = shape.loadTestSegments ?? 1;
  const count = optimizationHistoryEvents(shape);
  if (count.total <= HISTORY_BUDGET) return undefined;
  const given = `up to ${count.total} history events`;
  const room = (without: number): number => HISTORY_BUDGET - without;
  const candidatesPart = shape.candidates * count.perCandidate;
  const targetsPart = shape.compilationTargets * count.perTarget;
  if (candidatesPart >= targetsPart) {
    const rounds = shape.loadRounds ?? 0;
    const perWorker = shape.candidates * (segments + rounds) * (E.mapIteration + E.lambdaTask);
    const workersPart = shape.workersPerCandidate * perWorker;
    // Each segment after the first: its workers, "Aggregate load test", its Choice and Pass.
    const perSegment = shape.candidates * (loadTestSegmentEvents(shape.workersPerCandidate) + E.simpleState);
    const segmentsPart = (segments - 1) * perSegment;
    if (counts.loadTest !== undefined && segmentsPart * 2 >= candidatesPart) {
      const { segmentSeconds, testSeconds } = counts.loadTest;
      const maxSegments = 1 + Math.max(0, Math.floor(room(count.total - segmentsPart) / perSegment));
      return {
        field: 'loadPlan.stepDurationSeconds',
        given: `load tests of ${testSeconds} s, each run as ${segments} worker invocations of ${segmentSeconds} s, × ${shape.candidates} candidates with ${shape.workersPerCandidate} workers: ${given}`,
        expected: `load tests of at most ${maxSegments * segmentSeconds} s (${maxSegments} segments) with these candidates and workers (shorter or fewer steps, a lower loadPlan.maxTotalSeconds, fewer workers or candidates): ${historyLimitText()}`,
      };
    }
    // Rounds (knee probes, repeats) cost what a further segment does; only asked-for ones get
    // here ("Validate and plan" drops the default rounds that do not fit).
    const roundsPart =
      rounds * perSegment +
      (shape.interleavedRounds ?? 0) * shape.candidates * interleavedRoundEvents(shape.workersPerCandidate);
    if (roundsPart * 2 >= candidatesPart) {
      const maxRounds = Math.max(0, Math.floor(room(count.total - roundsPart) / perSegment));
      return {
        field: 'loadPlan.repeats',
        given: `${rounds + (shape.interleavedRounds ?? 0)} rounds after each load test (loadPlan.kneeProbes + loadPlan.repeats − 1) × ${shape.candidates} candidates with ${shape.workersPerCandidate} workers: ${given}`,
        expected: `at most ${maxRounds} round${maxRounds === 1 ? '' : 's'} (fewer kneeProbes or repeats, fewer workers or candidates): ${historyLimitText()}`,
      };
    }
    if (workersPart * 2 >= candidatesPart) {
      const maxWorkers = Math.max(0, Math.floor(room(count.total - workersPart) / perWorker));
      return {
        field: 'loadPlan.workers',
        given: `${shape.workersPerCandidate} workers × ${shape.candidates} candidates: ${given}`,
        expected: `at most ${maxWorkers} workers with ${shape.candidates} candidates (or fewer candidates): ${historyLimitText()}`,
      };
    }
    const maxCandidates = Math.max(0, Math.floor(room(count.total - candidatesPart) / count.perCandidate));
    return {
      field: 'candidates',
      given: `${shape.candidates} candidates (after expanding environmentRanges), each polled for up to ${timings.endpointDeadlineSeconds / 60} minutes: ${given}`,
      expected: `at most ${maxCandidates} candidates with these settings: ${historyLimitText()}`,
    };
  }
  if (timings.compilationMaxRuntimeSeconds > DEFAULT_COMPILATION_RUNTIME_SECONDS) {
    return {
      field: 'compilation.maxRuntimeSeconds',
      given: `${timings.compilationMaxRuntimeSeconds} s for each of ${shape.compilationTargets} targets: ${given}`,
      expected: `a shorter runtime (each target is polled until it ends, about ${POLL_ROUND} events every ${timings.compilationPolling.maxPollSeconds} s), or fewer targets: ${historyLimitText()}`,
    };
  }
  const maxTargets = Math.max(0, Math.floor(room(count.total - targetsPart) / count.perTarget));
  return {
    field: 'compilation.targets',
    given: `${shape.compilationTargets} targets: ${given}`,
    expected: `at most ${maxTargets} targets with these candidates: ${historyLimitText()}`,
  };
}

/**
 * Every endpoint polled to its deadline, every compilation job to its runtime, the final clean-up
 * waiting out busy endpoints for its whole deadline, each load test run `loadTestRuns` times.
 */
export function worstCaseShape(
  counts: HistoryCounts,
  timings: OptimizationTimings,
  loadTestRuns: number,
): OptimizationHistoryShape {
  const endpointRounds = pollRoundsWithin(timings.endpointDeadlineSeconds, timings.endpointPolling);
  return {
    candidates: counts.candidates,
    workersPerCandidate: counts.workersPerCandidate,
    compilationTargets: counts.compilationTargets,
    deletesCandidatesNotKept: counts.keepsRecommended === true,
    ...(counts.qualityGuarded === true ? { qualityGuarded: true } : {}),
    ...(counts.proofWorkers === undefined
      ? {}
      : {
          proof: {
            workers: counts.proofWorkers,
            endpointRounds,
            ...(counts.proofAttempts === undefined ? {} : { attempts: counts.proofAttempts }),
          },
        }),
    ...(counts.ramp === undefined
      ? {}
      : {
          ramp: {
            workers: counts.ramp.workers,
            endpointRounds,
            segments: counts.ramp.segments,
            attempts: counts.ramp.attempts,
          },
        }),
    endpointRounds,
    compilationRounds: pollRoundsWithin(timings.compilationDeadlineSeconds, timings.compilationPolling),
    cleanUpRounds: worstCleanUpRounds(),
    loadTestRuns,
    loadTestSegments: loadTestSegmentsOf(counts.loadTest),
    loadRounds: counts.loadTest?.rounds ?? 0,
    interleavedRounds: counts.loadTest?.interleavedRounds ?? 0,
  };
}

/**
 * Re-runs of a candidate's load test (after a late worker) the plan can afford: LOAD_TEST_RUNS - 1
 * when the worst case with every candidate re-run still fits the history budget, else 0 (a late
 * worker is then reported as a measurement problem at once). So re-runs never make a plan that
 * fits without them be refused.
 */
export function loadTestRerunsWithin(counts: HistoryCounts, timings: OptimizationTimings): number {
  // The same worst case the refusal counts (the final clean-up's rounds included), with re-runs.
  const count = optimizationHistoryEvents(worstCaseShape(counts, timings, LOAD_TEST_RUNS));
  return count.total <= HISTORY_BUDGET ? LOAD_TEST_RUNS - 1 : 0;
}
