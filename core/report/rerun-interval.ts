import jstat from 'jstat';
import type { FigureRange } from '../contracts/index.js';
import type { PooledNoise } from './report.js';

/**
 * Where a re-run's figure is expected: the min–max of three repeats covers another
 * run's median only about two times in three even when nothing changed, so the report also gives
 * an interval built for that question.
 *
 * - **Relative noise.** Throughput and latency vary in proportion to their size, so the noise is
 *   taken on the log scale: the sample standard deviation of ln(figure) over a candidate's
 *   measurements of its sustainable load.
 * - **Pooled over the run's candidates.** Three measurements give a standard deviation with 2
 *   degrees of freedom, too few to trust (Student's t at 95 % is 4.30). The candidates of one run
 *   share the machine, the load generator, the window length and the hour, so their relative noise
 *   is pooled (degrees of freedom add up: 6 for three candidates of three measurements, t = 2.45).
 * - **The figure is a median.** The reported figure is the median of n measurements; its variance
 *   is taken as π/2 · σ²/n for n ≥ 3 (the large-sample variance of a median, above the exact
 *   1.35 · σ²/n of a median of three: conservative) and σ²/n for n ≤ 2, where the median is the mean.
 * - **A re-run is measured the same way**, so the interval holds the noise of both: the half-width
 *   is t(0.975, df) · s · √(f(n₁)/n₁ + f(n₂)/n₂) on the log scale.
 */

/** Two-sided confidence of every interval and noise call. */
export const RERUN_CONFIDENCE = 0.95;

/** One candidate's measurements of one figure, on the log scale. */
export interface LogDeviation {
  readonly n: number;
  /** Σ (ln xᵢ − mean ln x)². */
  readonly sumSquares: number;
}

/** The deviation of a figure's measurements, or undefined with fewer than two positive ones. */
export function logDeviation(values: readonly number[]): LogDeviation | undefined {
  if (values.length < 2 || values.some((value) => !(value > 0))) return undefined;
  const logs = values.map((value) => Math.log(value));
  const mean = logs.reduce((sum, value) => sum + value, 0) / logs.length;
  return { n: logs.length, sumSquares: logs.reduce((sum, value) => sum + (value - mean) ** 2, 0) };
}

/** Pools candidates' deviations (or earlier pools, as deviations), or undefined when nothing was repeated. */
export function poolNoise(deviations: readonly LogDeviation[]): PooledNoise | undefined {
  const degreesOfFreedom = deviations.reduce((sum, deviation) => sum + deviation.n - 1, 0);
  if (degreesOfFreedom <= 0) return undefined;
  const sumSquares = deviations.reduce((sum, deviation) => sum + deviation.sumSquares, 0);
  return { logSd: Math.sqrt(sumSquares / degreesOfFreedom), degreesOfFreedom };
}

/** Two runs' pooled noise as one: their squares and degrees of freedom add up. */
export function combineNoise(
  a: PooledNoise | undefined,
  b: PooledNoise | undefined,
): PooledNoise | undefined {
  const asDeviation = (noise: PooledNoise): LogDeviation => ({
    n: noise.degreesOfFreedom + 1,
    sumSquares: noise.logSd ** 2 * noise.degreesOfFreedom,
  });
  return poolNoise([a, b].flatMap((noise) => (noise === undefined ? [] : [asDeviation(noise)])));
}

/** Variance of a median of n measurements, in units of one measurement's variance. */
function medianVariance(n: number): number {
  return (n >= 3 ? Math.PI / 2 : 1) / n;
}

/** Half-width, on the log scale, of the noise between a median of `nA` and a median of `nB`. */
export function noiseHalfWidth(noise: PooledNoise, nA: number, nB: number): number {
  const t = jstat.studentt.inv((1 + RERUN_CONFIDENCE) / 2, noise.degreesOfFreedom);
  return t * noise.logSd * Math.sqrt(medianVariance(nA) + medianVariance(nB));
}

/** Where a re-run's median of as many measurements is expected, around the median measured. */
export function rerunInterval(median: number, n: number, noise: PooledNoise): FigureRange {
  const halfWidth = noiseHalfWidth(noise, n, n);
  return { min: median * Math.exp(-halfWidth), max: median * Math.exp(halfWidth) };
}

/** One side of a noise call: the figure and how many measurements its median is of. */
export interface NoisyFigure {
  readonly value: number;
  readonly n: number;
}

/**
 * Whether two figures differ by more than the noise: their log ratio exceeds the half-width for
 * their counts. Figures of 0 or less (no throughput) differ whenever they are not equal.
 */
export function beyondNoise(a: NoisyFigure, b: NoisyFigure, noise: PooledNoise): boolean {
  if (!(a.value > 0 && b.value > 0)) return a.value !== b.value;
  return Math.abs(Math.log(a.value / b.value)) > noiseHalfWidth(noise, a.n, b.n);
}

/** "±4.3 %": the noise between two medians of `n` measurements, as a percentage. */
export function noisePercent(noise: PooledNoise, nA: number, nB: number): number {
  return Math.round((Math.exp(noiseHalfWidth(noise, nA, nB)) - 1) * 1000) / 10;
}
