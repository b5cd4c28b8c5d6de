/**
 * The verdict of one run against another (report/compare-runs.ts), and what a Model Registry
 * run's summary says of it against its group's last approved version (report/registry-baseline.ts).
 */
export type RunVerdict = 'improved' | 'regressed' | 'unchanged' | 'not comparable';

/** What the report, the run summary and the SNS attribute `comparison` say. */
export type BaselineVerdict = RunVerdict | 'no baseline';

/** `comparison` attribute values: one word each, as SNS filter policies match them. */
export const COMPARISON_ATTRIBUTES = {
  improved: 'improved',
  regressed: 'regressed',
  unchanged: 'unchanged',
  'not comparable': 'not-comparable',
  'no baseline': 'no-baseline',
} as const satisfies Record<BaselineVerdict, string>;

export type ComparisonAttribute = (typeof COMPARISON_ATTRIBUTES)[BaselineVerdict];

/**
 * The run summary's `comparison`: what the SNS summary carries. A type, not an interface: it
 * travels as JSON (the local CLI's results are `JsonValue`s).
 */
export type SummaryComparison = {
  readonly verdict: ComparisonAttribute;
  readonly text: string;
  readonly baselineRunId?: string;
};

/** A figure's spread: the lowest and highest of its measurements. */
export interface FigureRange {
  readonly min: number;
  readonly max: number;
}

export type FigureName = 'tps' | 'p95Ms' | 'costPer1MUsd';

export type FigureVerdict = 'improved' | 'regressed' | 'within noise' | 'not comparable';

/**
 * How a figure's verdict was reached:
 * - `noise`: the runs' pooled noise (`report.noise` of either run or both) bounds the change at 95 %;
 * - `ranges`: at least one side was measured more than once; the ranges (or range and value) overlap or not;
 * - `tolerance`: no spread measured on either side; the change is within the tolerance or not;
 * - `sla`: the candidate met the SLA in one run only (its sustainable TPS is null in the other);
 * - `missing`: the figure is missing on one side or both (no price, no load met the SLA);
 * - `load`: the p95 was taken at a different sustainable load in each run (a step apart in
 *   throughput can be twice the latency): not comparable, whatever the change.
 */
export type FigureBasis = 'noise' | 'ranges' | 'tolerance' | 'sla' | 'missing' | 'load';

/** One figure of one run: the value reported, and its range when measured more than once. */
export interface MeasuredFigure {
  readonly value: number;
  readonly range?: FigureRange;
  /** Measurements the value is the median of; 1 when measured once. */
  readonly n?: number;
}

export interface FigureComparison {
  readonly base: MeasuredFigure | null;
  readonly new: MeasuredFigure | null;
  /** new − base, when both have the figure. */
  readonly change: number | null;
  /** (new − base) ÷ base × 100, to 0.1; null without both figures or when base is 0. */
  readonly changePercent: number | null;
  readonly verdict: FigureVerdict;
  readonly basis: FigureBasis;
  /** With the `noise` basis: the largest change (±, %) the runs' noise explains at 95 %. */
  readonly noisePercent?: number;
  /** With the `load` basis: the sustainable load each run measured the figure at. */
  readonly loads?: { readonly base: number; readonly new: number };
}

export type CandidateChange = 'improved' | 'regressed' | 'unchanged';

export interface CandidateComparison {
  readonly id: string;
  /** The candidate's verdict in each run (`recommended`, `runner-up`, `missed-sla`, …). */
  readonly baseVerdict: string;
  readonly newVerdict: string;
  readonly figures: Readonly<Record<FigureName, FigureComparison>>;
  /** `regressed` when any figure regressed, else `improved` when any improved, else `unchanged`. */
  readonly change: CandidateChange;
  /** What changed beyond noise, or that nothing did, in one sentence. */
  readonly reason: string;
  /** The same id with another deployment (instance type or count, compiled, environment). */
  readonly configurationNote?: string;
}

export interface RunSide {
  readonly runId: string;
  readonly name?: string;
  readonly generatedAt: string;
  readonly outcome: string;
  /** The recommended candidate's id, or null when the run recommended nothing. */
  readonly recommended: string | null;
}

export interface RunComparison {
  readonly base: RunSide;
  readonly new: RunSide;
  /** The tolerance applied to figures that have no spread on either side. */
  readonly tolerancePercent: number;
  readonly verdict: RunVerdict;
  /** Why, in one sentence. */
  readonly verdictReason: string;
  readonly recommendation: {
    readonly base: string | null;
    readonly new: string | null;
    readonly changed: boolean;
  };
  /** The candidates of both runs, in the base run's order. */
  readonly candidates: readonly CandidateComparison[];
  readonly onlyInBase: readonly string[];
  readonly onlyInNew: readonly string[];
  /** What differs between the runs' settings and so weakens the comparison (SLA, load plan, …). */
  readonly notes: readonly string[];
}

/** One run of the group, as the index records it. */
export interface BaselineRun {
  readonly runId: string;
  readonly modelPackageVersion: number;
  readonly modelPackageArn: string;
  readonly reportUri: string;
}

/** report.json's `baselineComparison`. */
export interface BaselineComparison {
  readonly verdict: BaselineVerdict;
  /** One sentence: what was compared with what, and why this verdict. */
  readonly text: string;
  /** The run compared with, when there was one. */
  readonly baseline?: BaselineRun;
  /** Candidate by candidate, when both reports could be read (compare-runs.ts). */
  readonly comparison?: RunComparison;
  /** Local runs: the baseline's report.json as a file, as the report shows it (local-files.ts). */
  readonly baselineReportFile?: string;
}
