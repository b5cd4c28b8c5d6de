import { costAtTargetKey } from '../serving/index.js';
import type { CandidateReport, ObjectiveFigureLabel } from './report.js';

/**
 * The figure a run's objective ranks candidates on, read back from a candidate's report entry:
 * what the sweep grid colours and what picks the candidates the charts draw when there are too
 * many to draw. build-report.ts ranks on the same figures before the report exists.
 */
export interface ObjectiveFigure {
  /** The figure, in the unit of `objectiveFigureLabel`; absent when the candidate has none. */
  readonly value?: number;
  /** How a cell shows it: `$0.1234`, `≤ $0.1234`, `640.0 TPS`, `no price`. */
  readonly text: string;
}

const LABELS: Readonly<Record<string, ObjectiveFigureLabel>> = {
  'lowest-cost-per-1m': { label: 'USD per 1M inferences', better: 'lower' },
  'lowest-cost-per-1m-output-tokens': { label: 'USD per 1M output tokens', better: 'lower' },
  'highest-tps': { label: 'sustainable TPS within the SLA', better: 'higher' },
  'lowest-latency': { label: 'p95 ms at the lowest load', better: 'lower' },
  'lowest-cost-at-target': { label: 'USD per hour at the target TPS', better: 'lower' },
};

export function objectiveFigureLabel(objective: string): ObjectiveFigureLabel {
  return LABELS[objective] ?? { label: 'USD per 1M inferences', better: 'lower' };
}

/** Only a candidate that met the SLA at some step is ranked, so only it has a figure. */
function metSla(candidate: CandidateReport): boolean {
  return candidate.verdict === 'recommended' || candidate.verdict === 'runner-up';
}

export function objectiveFigure(objective: string, candidate: CandidateReport): ObjectiveFigure {
  if (!metSla(candidate)) return { text: 'not ranked' };
  switch (objective) {
    case 'highest-tps': {
      const tps = candidate.sustainableTps;
      if (tps === null) return { text: 'no TPS' };
      return { value: tps, text: `${candidate.saturated === false ? '≥ ' : ''}${tps.toFixed(1)} TPS` };
    }
    case 'lowest-latency': {
      const p95 = candidate.steps[0]?.latencyMs?.p95;
      return p95 === undefined ? { text: 'no latency' } : { value: p95, text: `p95 ${p95.toFixed(1)} ms` };
    }
    case 'lowest-cost-at-target': {
      const key = costAtTargetKey(candidate.atTarget);
      if (Number.isFinite(key)) return { value: key, text: `$${key.toFixed(4)}/h` };
      return { text: candidate.atTarget?.canServe === false ? 'cannot carry the target' : 'no price' };
    }
    case 'lowest-cost-per-1m-output-tokens': {
      const cost = candidate.costPer1MOutputTokensUsd;
      if (cost === undefined) return { text: 'no price' };
      return {
        value: cost,
        text: `${candidate.costPer1MIsUpperBound === true ? '≤ ' : ''}$${cost.toFixed(4)}`,
      };
    }
    default: {
      const cost = candidate.costPer1MUsd;
      if (cost === undefined) return { text: 'no price' };
      return {
        value: cost,
        text: `${candidate.costPer1MIsUpperBound === true ? '≤ ' : ''}$${cost.toFixed(4)}`,
      };
    }
  }
}

/** Best first under the objective; ties, and candidates without a figure, go to higher TPS. */
export function byObjective(objective: string): (a: CandidateReport, b: CandidateReport) => number {
  const { better } = objectiveFigureLabel(objective);
  const key = (candidate: CandidateReport): number => {
    const { value } = objectiveFigure(objective, candidate);
    if (value === undefined) return Number.POSITIVE_INFINITY;
    return better === 'lower' ? value : -value;
  };
  const tps = (candidate: CandidateReport): number => bestStepTps(candidate);
  return (a, b) => {
    const [ka, kb] = [key(a), key(b)];
    if (ka !== kb) return ka < kb ? -1 : 1;
    return tps(b) - tps(a);
  };
}

/** The sustainable TPS, or for a candidate that never met the SLA its best step's throughput. */
function bestStepTps(candidate: CandidateReport): number {
  return candidate.sustainableTps ?? Math.max(0, ...candidate.steps.map((step) => step.tps));
}
