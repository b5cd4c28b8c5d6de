import type { PollSchedule } from '../contracts/index.js';

/** What decides an optimization run's history, besides the plan's counts. */
export interface OptimizationTimings {
  readonly endpointDeadlineSeconds: number;
  readonly compilationDeadlineSeconds: number;
  readonly compilationMaxRuntimeSeconds: number;
  readonly endpointPolling: PollSchedule;
  readonly compilationPolling: PollSchedule;
}

/** A load test as the limits see it: its worst-case length and the segments it runs as. */
export interface LoadTestShape {
  /** Every step's warm-up and window, capped by maxTotalSeconds (load-test/plan.ts `loadTestSeconds`). */
  readonly testSeconds: number;
  /** The schedule length of one worker invocation (the plan's `loadSegmentSeconds`). */
  readonly segmentSeconds: number;
  /** Rounds after the schedule within the candidate's own test in the worst case (`worstCaseOwnRounds`). @default 0 */
  readonly rounds?: number;
  /** Interleaved repeat rounds after every candidate's own test (`interleavedRepeatRounds`). @default 0 */
  readonly interleavedRounds?: number;
  /** The schedule time of one round: a step's warm-up and window. @default 0 */
  readonly roundSeconds?: number;
}

/** Worker invocations one load test takes in the worst case (every step runs). */
export function loadTestSegmentsOf(loadTest: LoadTestShape | undefined): number {
  if (loadTest === undefined) return 1;
  return Math.max(1, Math.ceil(loadTest.testSeconds / loadTest.segmentSeconds));
}
