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
