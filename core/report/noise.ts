import { adviceFor, NOISE_ADVICE } from './advice.js';
import type { Report, PooledNoise } from './report.js';
import { beyondNoise, noisePercent, RERUN_CONFIDENCE } from './rerun-interval.js';
import type { WithinNoise } from '../contracts/index.js';

/** A figure as measured: a range over repeats, or one value (min = max) when measured once. */
export interface NoiseFigures {
  readonly id: string;
  /** Absent when the candidate has no price (nothing to compare). */
  readonly costPer1MUsd?: number;
  readonly tps: number;
  /** Measurements the figures are the median of (1 without repeats). */
  readonly n: number;
}

/**
 * Whether the winner's lead over the runner-up is within noise: the figure the objective ranks on
 * (cost per 1M, or TPS for highest-tps) differs by less than the run's measured noise allows
 * (rerun-interval.ts: the repeats' relative spread pooled over the run's candidates, at 95 %), so
 * a re-run could swap them. Without repeats the run has no measure of its noise and there is no
 * call; nor for the lowest-latency objective, which ranks on the first step alone. Cost per 1M is
 * a price divided by the TPS, so its relative noise is the TPS's.
 */
export function withinNoise(
  objective: string,
  best: NoiseFigures,
  runnerUp: NoiseFigures | undefined,
  noise: PooledNoise | undefined,
): WithinNoise | undefined {
  if (runnerUp === undefined || noise === undefined || objective === 'lowest-latency') return undefined;
  const byTps = objective === 'highest-tps';
  const a = byTps ? best.tps : best.costPer1MUsd;
  const b = byTps ? runnerUp.tps : runnerUp.costPer1MUsd;
  if (a === undefined || b === undefined) return undefined;
  if (beyondNoise({ value: a, n: best.n }, { value: b, n: runnerUp.n }, noise)) return undefined;
  const format = byTps
    ? (value: number): string => value.toFixed(1)
    : (value: number): string => `$${value.toFixed(4)}`;
  const apart = a > 0 ? Math.round((Math.abs(b - a) / a) * 1000) / 10 : 0;
  return {
    runnerUp: runnerUp.id,
    detail:
      `${byTps ? 'TPS' : 'cost per 1M'} ${format(a)} vs ${format(b)} for ${runnerUp.id}: ${apart} % apart, ` +
      `within the run's noise (±${noisePercent(noise, best.n, runnerUp.n)} % at ${RERUN_CONFIDENCE * 100} %)`,
  };
}

/**
 * The run's noise in one sentence when it is high: a busy machine or an unsteady endpoint makes
 * every comparison of the run weak, and a reader of the figures alone would not know.
 */
export function highNoiseWarning(report: Pick<Report, 'noise' | 'candidates'>): string | undefined {
  const { noise } = report;
  const n = report.candidates.find((candidate) => candidate.spread !== undefined)?.spread?.n;
  if (noise === undefined || n === undefined) return undefined;
  const [warning] = adviceFor(NOISE_ADVICE, {
    percent: noisePercent(noise.tps, n, n),
    confidencePercent: noise.confidence * 100,
    degreesOfFreedom: noise.tps.degreesOfFreedom,
  });
  return warning;
}
