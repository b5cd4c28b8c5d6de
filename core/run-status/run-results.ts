import { z } from 'zod';
import type { AsyncRunSummary, NoRecommendationCause, RunSummary } from '../contracts/index.js';
import {
  ErrorNames,
  proofStatusOf,
  ExecutionStatuses,
  type ReportLocations,
  type RunWorkflow,
  RunWorkflows,
} from '../contracts/index.js';
import type { ExecutionDescription } from './ports.js';

/**
 * A run's results as its execution tells them: the report files and the outcome. Read by the run
 * status (describe-run) and the report links (run-report), so both name the same files.
 */

/**
 * Where a run's results are and its outcome: from the output of a run that succeeded, or from the
 * cause of an optimization run that ended in "No recommendation" (its report is written) or of an
 * async run that ended in "No input completed" (its summary is written).
 */
export function resultsOf(
  workflow: RunWorkflow,
  execution: ExecutionDescription,
): { report?: ReportLocations; outcome?: string; comparison?: string; proof?: string } | undefined {
  if (execution.status === ExecutionStatuses.succeeded) {
    const document = parseJson(execution.output);
    const outcome = outcomeSchema.safeParse(document);
    const report = reportOf(workflow, document);
    const comparison = comparisonSchema.safeParse(document);
    const proof = proofStatusOf(document);
    return {
      ...(report === undefined ? {} : { report }),
      ...(outcome.success ? { outcome: outcome.data.outcome } : {}),
      ...(proof === undefined ? {} : { proof }),
      ...(comparison.success && comparison.data.comparison !== null
        ? { comparison: comparison.data.comparison.verdict }
        : {}),
    };
  }
  if (
    workflow === RunWorkflows.optimization &&
    execution.status === ExecutionStatuses.failed &&
    execution.error === ErrorNames.noRecommendation
  ) {
    const parsed = noRecommendationCauseSchema.safeParse(parseJson(execution.cause));
    if (!parsed.success) return undefined;
    const { comparison, ...results } = parsed.data;
    return comparison === undefined || comparison === null
      ? results
      : { ...results, comparison: comparison.verdict };
  }
  if (
    workflow === RunWorkflows.asyncInference &&
    execution.status === ExecutionStatuses.failed &&
    execution.error === ErrorNames.noInputCompleted
  ) {
    const parsed = noInputCompletedCauseSchema.safeParse(parseJson(execution.cause));
    if (!parsed.success) return undefined;
    const report = reportOf(workflow, parsed.data.summary);
    return { outcome: parsed.data.outcome, ...(report === undefined ? {} : { report }) };
  }
  return undefined;
}

function parseJson(text: string | undefined): unknown {
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Either workflow's summary names its outcome. */
const outcomeSchema = z.object({ outcome: z.string().min(1) });

const reportFilesSchema = z.object({
  json: z.string().min(1),
  markdown: z.string().min(1),
  html: z.string().min(1),
});

/** A Model Registry run's verdict against the last approved version (null for other runs). */
const runComparisonSchema = z.object({ verdict: z.string().min(1) }).nullable();

/** The success output's comparison, when it has one. */
const comparisonSchema = z.object({ comparison: runComparisonSchema });

/** The cause of "No recommendation" (JSON): its report, outcome and registry comparison. */
const noRecommendationCauseSchema = z.object({
  outcome: z.string().min(1),
  report: reportFilesSchema,
  comparison: runComparisonSchema.optional(),
}) satisfies z.ZodType<Pick<NoRecommendationCause, 'report'> & { outcome: string }>;

/** The cause of "No input completed" (JSON, NoInputCompletedCause): its outcome and the summary with its files. */
const noInputCompletedCauseSchema = z.object({ outcome: z.string().min(1), summary: z.unknown() });

/** The optimization workflow's success output: the Recommend summary, with its report files. */
const optimizationOutputSchema = z.object({
  report: reportFilesSchema,
}) satisfies z.ZodType<Pick<RunSummary, 'report'>>;

/** The async-inference workflow's success output: the run summary, with its files. */
const asyncOutputSchema = z.object({
  summaryUri: z.string().min(1),
  summaryMarkdownUri: z.string().min(1),
  reportHtmlUri: z.string().min(1).optional(),
}) satisfies z.ZodType<Pick<AsyncRunSummary, 'summaryUri' | 'summaryMarkdownUri' | 'reportHtmlUri'>>;

/** Where a succeeded run's results are, read from its output; nothing when it says nothing. */
function reportOf(workflow: RunWorkflow, document: unknown): ReportLocations | undefined {
  if (workflow === RunWorkflows.optimization) {
    const parsed = optimizationOutputSchema.safeParse(document);
    return parsed.success ? parsed.data.report : undefined;
  }
  const parsed = asyncOutputSchema.safeParse(document);
  return parsed.success
    ? {
        json: parsed.data.summaryUri,
        markdown: parsed.data.summaryMarkdownUri,
        ...(parsed.data.reportHtmlUri === undefined ? {} : { html: parsed.data.reportHtmlUri }),
      }
    : undefined;
}
