import type { LatencyPercentilesMs } from './latency-percentiles.js';

/** The run's recommendation (report.json's `recommendation`, the run summary's): null when none. */

/** The winner and the runner-up cannot be told apart: their figures differ by less than the run's noise. */
export interface WithinNoise {
  readonly runnerUp: string;
  /** The figures and the noise, e.g. "cost per 1M $0.0597 vs $0.0612 for b: 2.5 % apart, within the run's noise (±4.3 % at 95 %)". */
  readonly detail: string;
}

export interface Recommendation {
  readonly candidateId: string;
  readonly instanceType?: string;
  readonly instanceCount: number;
  readonly compiled: boolean;
  readonly environment: Readonly<Record<string, string>>;
  readonly sustainableTps: number;
  /** As the candidate's `saturated`: false when its capacity was not found. */
  readonly saturated: boolean;
  readonly costPer1MUsd?: number;
  /** As the candidate's: the cost per 1M is an upper bound. */
  readonly costPer1MIsUpperBound?: true;
  readonly latencyMs?: LatencyPercentilesMs;
  readonly instancesForTargetTps?: number;
  /** Present when the ranking of the winner over the runner-up is within noise. */
  readonly withinNoise?: WithinNoise;
  readonly why: string;
}
