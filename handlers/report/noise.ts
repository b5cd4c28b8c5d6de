import type { WithinNoise } from './report.js';

/** A figure as measured: a range over repeats, or one value (min = max) when measured once. */
export interface FigureRange {
  readonly min: number;
  readonly max: number;
}

export interface NoiseFigures {
  readonly id: string;
  /** Absent when the candidate has no price (nothing to compare). */
  readonly costPer1MUsd?: FigureRange;
  readonly tps: FigureRange;
  /** Whether any of these figures comes from more than one measurement. */
  readonly repeated: boolean;
}

function overlaps(a: FigureRange, b: FigureRange): boolean {
  return a.min <= b.max && b.min <= a.max;
}

function rangeText(range: FigureRange, format: (value: number) => string): string {
  return range.min === range.max ? format(range.min) : `${format(range.min)}–${format(range.max)}`;
}

/**
 * Whether the winner's lead over the runner-up is within noise: the ranges of the figure the
 * objective ranks on (cost per 1M, or TPS for highest-tps) overlap, so repeats could swap them.
 * Only figures measured more than once have a range to speak of: with single measurements (or
 * the lowest-latency objective, ranked on the first step alone) there is no call.
 */
export function withinNoise(
  objective: string,
  best: NoiseFigures,
  runnerUp: NoiseFigures | undefined,
): WithinNoise | undefined {
  if (runnerUp === undefined || !(best.repeated || runnerUp.repeated)) return undefined;
  if (objective === 'highest-tps') {
    if (!overlaps(best.tps, runnerUp.tps)) return undefined;
    const tps = (value: number): string => value.toFixed(1);
    return {
      runnerUp: runnerUp.id,
      detail: `TPS ${rangeText(best.tps, tps)} vs ${rangeText(runnerUp.tps, tps)} for ${runnerUp.id}`,
    };
  }
  if (objective === 'lowest-latency') return undefined;
  const a = best.costPer1MUsd;
  const b = runnerUp.costPer1MUsd;
  if (a === undefined || b === undefined || !overlaps(a, b)) return undefined;
  const usd = (value: number): string => `$${value.toFixed(4)}`;
  return {
    runnerUp: runnerUp.id,
    detail: `cost per 1M ${rangeText(a, usd)} vs ${rangeText(b, usd)} for ${runnerUp.id}`,
  };
}
