import { median } from './report.js';
import type { WindowFigures } from './window.js';

/** One figure of paired runs: the median of the per-pair values, with their spread. */
export interface PairedFigure {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export function pairedFigure(values: readonly number[]): PairedFigure {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

/** One round of the ceiling: each tool's requests/s and CPU µs per request. */
export interface CeilingPair {
  readonly engineTps: number;
  readonly autocannonTps: number;
  readonly engineCpuUsPerRequest: number;
  readonly autocannonCpuUsPerRequest: number;
}

/** A round's pair from each tool's window; a tool missing from the round gives NaN figures. */
export function ceilingPair(
  engine: Pick<WindowFigures, 'requestsPerSecond' | 'cpuUsPerRequest'>,
  autocannon: Pick<WindowFigures, 'requestsPerSecond' | 'cpuUsPerRequest'> | undefined,
): CeilingPair {
  return {
    engineTps: engine.requestsPerSecond,
    autocannonTps: autocannon?.requestsPerSecond ?? Number.NaN,
    engineCpuUsPerRequest: engine.cpuUsPerRequest,
    autocannonCpuUsPerRequest: autocannon?.cpuUsPerRequest ?? Number.NaN,
  };
}

export interface CeilingFigures {
  /** Engine ÷ autocannon requests/s, per pair. */
  readonly tpsRatio: PairedFigure;
  /** Engine ÷ autocannon CPU per request, per pair (below 1: the engine is cheaper). */
  readonly cpuRatio: PairedFigure;
  readonly engineCpuUsPerRequest: PairedFigure;
  readonly autocannonCpuUsPerRequest: PairedFigure;
  /** Throughput at least `goalRatio` × autocannon's and CPU per request at most autocannon's. */
  readonly pass: boolean;
}

/**
 * The ceiling's verdict from its pairs: each ratio is taken within a pair (the two runs shared the
 * machine's state), then the median over pairs, so neither a slow drift nor one burst decides.
 */
export function ceilingFigures(pairs: readonly CeilingPair[], goalRatio: number): CeilingFigures {
  const tpsRatio = pairedFigure(pairs.map((pair) => pair.engineTps / pair.autocannonTps));
  const cpuRatio = pairedFigure(
    pairs.map((pair) => pair.engineCpuUsPerRequest / pair.autocannonCpuUsPerRequest),
  );
  return {
    tpsRatio,
    cpuRatio,
    engineCpuUsPerRequest: pairedFigure(pairs.map((pair) => pair.engineCpuUsPerRequest)),
    autocannonCpuUsPerRequest: pairedFigure(pairs.map((pair) => pair.autocannonCpuUsPerRequest)),
    // Written so that NaN (a run with no request) fails rather than passes.
    pass: tpsRatio.median >= goalRatio && cpuRatio.median <= 1,
  };
}
