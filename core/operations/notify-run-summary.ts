import { z } from 'zod';
import {
  CleanUpStatuses,
  cleanUpInCause,
  completedInCause,
  ranToEndWithoutResult,
  CANDIDATE_VERDICTS,
  PROOF_STATUSES,
  type ProofStatus,
  RAMP_STATUSES,
  type RampStatus,
  recordOf,
  parseExecutionStatusChange,
  RUN_END_STATUSES,
  type RunEndStatus,
  COMPARISON_ATTRIBUTES,
  type ComparisonAttribute,
} from '../contracts/index.js';
import type { ExecutionDescriber, ExecutionDescription, Logger } from '../ports/index.js';

/**
 * Run-summary notifications: an EventBridge rule sends the "Step Functions Execution Status Change"
 * event of every execution of the project's state machines that ends (SUCCEEDED, FAILED,
 * TIMED_OUT, ABORTED) here; the execution is described (for its output, or its error and cause)
 * and a short, readable summary is published to the run-summary topic.
 *
 * The event's schema is the failure clean-up's (`parseExecutionStatusChange`). Its `output` is
 * left unread: Step Functions leaves it out of events above 248 KB (`outputDetails.included`
 * false), DescribeExecution always has it. The execution's input is never read nor published: it
 * may hold what its author would not mail around.
 */

export const RUN_WORKFLOWS = ['optimization', 'async-inference'] as const;
export type RunWorkflow = (typeof RUN_WORKFLOWS)[number];

/** SNS `Subject`: no line breaks nor control characters, fewer than 100 characters (SNS Publish API reference). */
export const MAX_SUBJECT_LENGTH = 99;
/** A Lambda error's cause can be long (a stack trace): the summary keeps its start. */
const MAX_CAUSE_LENGTH = 1500;
const MAX_FALLBACK_LINES = 15;
/** Locations of a failed run's completed work listed in the message; the cause keeps them all. */
const MAX_LOCATIONS = 20;
const MAX_FALLBACK_VALUE_LENGTH = 200;

/**
 * The message: a subject line for email, a plain-text body, and attributes subscribers filter on.
 * `outcome` is the run's own (optimization: `recommended`, `partial`, `no-candidate-met-sla`,
 * `all-candidates-failed`; async: `completed`, `partial`, `all-inputs-failed`), or, for a run that
 * ended without one, its status in the same style (`failed`, `timed-out`, `aborted`), so that a
 * filter such as `{"outcome": [{"anything-but": ["recommended", "completed"]}]}` sees every run
 * that needs a look.
 */
export interface RunSummaryNotice {
  readonly subject: string;
  readonly body: string;
  readonly attributes: {
    readonly status: string;
    readonly workflow: RunWorkflow | 'unknown';
    readonly outcome: string;
    /**
     * A run of a Model Registry package against its group's last approved version (`regressed`,
     * `improved`, `unchanged`, `not-comparable`, `no-baseline`; registry-baseline.ts). Absent for
     * other runs, so `{"comparison": ["regressed"]}` sees the regressions only.
     */
    readonly comparison?: ComparisonAttribute;
    /**
     * A run with a target whose proof ran ("Prove the target": `held`, `not-held`, `failed`,
     * `skipped`; serving/prove-target.ts). Absent otherwise, so `{"proof": ["not-held"]}` sees the
     * targets a deployed count did not serve.
     */
    readonly proof?: ProofStatus;
    /**
     * A run whose ramp test ran ("Ramp test": `held`, `not-held`, `failed`, `skipped`;
     * serving/ramp-test.ts). Absent otherwise, so `{"ramp": ["not-held"]}` sees the policies a ramp
     * broke.
     */
    readonly ramp?: RampStatus;
  };
}

/** Publishes notices (SNS Publish). */
export interface NoticePublisher {
  publish(notice: RunSummaryNotice): Promise<{ readonly messageId: string }>;
}

export interface NotifyRunSummaryDeps {
  readonly describer: ExecutionDescriber;
  readonly publisher: NoticePublisher;
  readonly logger: Logger;
  /** State machine ARN → the workflow it runs. */
  readonly workflows: ReadonlyMap<string, RunWorkflow>;
  /** For the console link. */
  readonly region: string;
}

export type RunSummaryNotification =
  | { readonly outcome: 'ignored'; readonly runId: string; readonly status: string }
  | {
      readonly outcome: 'published';
      readonly runId: string;
      readonly status: RunEndStatus;
      readonly messageId: string;
    };

function isRunEndStatus(status: string): status is RunEndStatus {
  return (RUN_END_STATUSES as readonly string[]).includes(status);
}

/** Publishes the summary of an execution that ended; any other status is logged and ignored. */
export async function notifyRunSummary(
  event: unknown,
  deps: NotifyRunSummaryDeps,
): Promise<RunSummaryNotification> {
  const { detail } = parseExecutionStatusChange(event);
  const runId = detail.name;
  if (!isRunEndStatus(detail.status)) {
    deps.logger.info('Execution has not ended: no summary', { runId, status: detail.status });
    return { outcome: 'ignored', runId, status: detail.status };
  }
  const description = await deps.describer.describe(detail.executionArn);
  const notice = buildRunSummaryNotice({
    runId,
    status: detail.status,
    executionArn: detail.executionArn,
    workflow: deps.workflows.get(detail.stateMachineArn),
    description,
    region: deps.region,
  });
  const { messageId } = await deps.publisher.publish(notice);
  deps.logger.info('Run summary published', { runId, status: detail.status, messageId });
  return { outcome: 'published', runId, status: detail.status, messageId };
}

export interface RunSummaryFacts {
  readonly runId: string;
  /** The status of the event: a redriven execution may already be running again when described. */
  readonly status: RunEndStatus;
  readonly executionArn: string;
  readonly workflow: RunWorkflow | undefined;
  readonly description: ExecutionDescription;
  readonly region: string;
}

const WORKFLOW_LABELS: Record<RunWorkflow | 'unknown', string> = {
  optimization: 'Optimization run',
  'async-inference': 'Async inference run',
  unknown: 'Run',
};

const STATUS_WORDS: Record<RunEndStatus, string> = {
  SUCCEEDED: 'succeeded',
  FAILED: 'failed',
  TIMED_OUT: 'timed out',
  ABORTED: 'aborted',
};

/** The notice for an execution that ended: pure, so every wording is tested without AWS. */
export function buildRunSummaryNotice(facts: RunSummaryFacts): RunSummaryNotice {
  const workflow = facts.workflow ?? 'unknown';
  const label = WORKFLOW_LABELS[workflow];
  const { description } = facts;
  const headline = `${label} ${facts.runId} ${STATUS_WORDS[facts.status]}`;
  const elapsed =
    description.stopEpochMs === undefined
      ? ''
      : ` after ${formatDuration(description.stopEpochMs - description.startEpochMs)}`;

  const outcome = facts.status === 'SUCCEEDED' ? describeSuccess(description.output) : describeEnd(facts);
  const body = [
    `${headline}${elapsed}.`,
    '',
    ...outcome.lines,
    '',
    `Execution: ${consoleLink(facts.region, facts.executionArn)}`,
    `Started: ${new Date(description.startEpochMs).toISOString()}`,
    ...(description.stopEpochMs === undefined
      ? []
      : [`Stopped: ${new Date(description.stopEpochMs).toISOString()}`]),
  ].join('\n');
  return {
    subject: toSubject(outcome.headline === undefined ? headline : `${headline}: ${outcome.headline}`),
    body,
    attributes: {
      status: facts.status,
      workflow,
      outcome: outcome.outcome ?? facts.status.toLowerCase().replace(/_/g, '-'),
      ...(outcome.comparison === undefined ? {} : { comparison: outcome.comparison }),
      ...(outcome.proof === undefined ? {} : { proof: outcome.proof }),
      ...(outcome.ramp === undefined ? {} : { ramp: outcome.ramp }),
    },
  };
}

/** The Step Functions console page of an execution (the console's v2 execution details route). */
export function consoleLink(region: string, executionArn: string): string {
  return `https://${region}.console.aws.amazon.com/states/home?region=${region}#/v2/executions/details/${executionArn}`;
}

/** `1 h 12 min`, `5 min 3 s`, `42 s`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  if (hours > 0) return `${hours} h ${minutes} min`;
  if (minutes > 0) return rest > 0 ? `${minutes} min ${rest} s` : `${minutes} min`;
  return `${rest} s`;
}

/** ASCII without control characters, fewer than 100 characters, cut with "...". */
function toSubject(text: string): string {
  const ascii = text.replace(/[^\x20-\x7e]/g, '?');
  return ascii.length <= MAX_SUBJECT_LENGTH ? ascii : `${ascii.slice(0, MAX_SUBJECT_LENGTH - 3)}...`;
}

interface Outcome {
  /** A few words for the subject, after the headline. */
  readonly headline?: string;
  readonly lines: readonly string[];
  /** The run's outcome, when its output or cause names one. */
  readonly outcome?: string;
  /** The verdict against the last approved version, when the output has one. */
  readonly comparison?: ComparisonAttribute;
  /** The proof's verdict at the target, when the output has one. */
  readonly proof?: ProofStatus;
  /** The ramp test's verdict, when the output has one. */
  readonly ramp?: RampStatus;
}

const causeSchema = z.looseObject({
  outcome: z.string().optional(),
  failureReasons: z.array(z.object({ reason: z.string(), inputs: z.number() })).optional(),
  comparison: z
    .looseObject({ verdict: z.enum(Object.values(COMPARISON_ATTRIBUTES)), text: z.string() })
    .nullish(),
});

/**
 * The outcome, the registry comparison and the failures' reasons a "No recommendation" or "No
 * input completed" cause names (NoRecommendationCause, NoInputCompletedCause).
 */
function ranToEndCause(cause: string | undefined): z.output<typeof causeSchema> {
  if (cause === undefined) return {};
  try {
    const parsed = causeSchema.safeParse(JSON.parse(cause));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** How an execution that did not succeed ended: its error and cause, or what the status means. */
function describeEnd(facts: RunSummaryFacts): Outcome {
  const { error, cause } = facts.description;
  const lines: string[] = [];
  if (error !== undefined) lines.push(`Error: ${error}`);
  if (cause !== undefined) lines.push(`Cause: ${readableCause(cause)}`);
  // A run without a recommendation (or without a completed input) ran to its end, clean-up
  // included: nothing is left to a second pass.
  const ranToEnd = ranToEndWithoutResult(error);
  const named = ranToEnd ? ranToEndCause(cause) : {};
  // "No input completed": why the inputs failed, the most frequent reasons first.
  const reasons = named.failureReasons ?? [];
  if (reasons.length > 0) {
    lines.push(
      'Why the inputs failed:',
      ...reasons.map(({ reason, inputs }) => `  - ${inputs} input${inputs === 1 ? '' : 's'}: ${reason}`),
    );
  }
  if (facts.status === 'TIMED_OUT') {
    lines.push("The execution ran past the state machine's timeout and was stopped.");
  }
  if (facts.status === 'ABORTED') {
    lines.push('The execution was stopped (StopExecution, from the console, the API or the CLI).');
  }
  // What the run completed before it failed, and where (completed-work.ts): the work is not lost.
  const completed = completedInCause(cause);
  if (completed !== undefined) {
    lines.push(
      `Completed: ${completed.message}`,
      ...completed.locations.slice(0, MAX_LOCATIONS).map((location) => `  - ${location}`),
    );
    if (completed.locations.length > MAX_LOCATIONS) {
      lines.push(`  (${completed.locations.length - MAX_LOCATIONS} more in the execution's cause)`);
    }
  }
  // The workflow's own clean-up after a failure adds its account to the cause (withCleanUpAccount).
  const cleanUp = cleanUpInCause(cause);
  if (cleanUp !== undefined) lines.push(`Clean-up: ${cleanUp}`);
  if (facts.workflow !== undefined && !ranToEnd) {
    lines.push(
      'The failed-run clean-up deletes the resources the run created, retrying what is left; the janitor sweeps anything it misses.',
    );
  }
  const left = cleanUp !== undefined && cleanUp.includes('LEFT ');
  const { outcome } = named;
  const comparison = named.comparison ?? undefined;
  if (comparison !== undefined) lines.unshift(comparison.text, '');
  const headline = [comparison?.verdict, outcome ?? error, left ? 'resources left' : undefined].filter(
    (part) => part !== undefined,
  );
  return {
    ...(headline.length === 0 ? {} : { headline: headline.join(', ') }),
    lines,
    ...(outcome === undefined ? {} : { outcome }),
    ...(comparison === undefined ? {} : { comparison: comparison.verdict }),
  };
}

/** A Lambda error's cause is JSON with `errorMessage` and a stack trace: keep the message. */
function readableCause(cause: string): string {
  let text = cause;
  try {
    const parsed: unknown = JSON.parse(cause);
    const message = recordOf(parsed)?.errorMessage;
    if (typeof message === 'string') text = message;
  } catch {
    // Not JSON: the cause as it is.
  }
  return text.length > MAX_CAUSE_LENGTH ? `${text.slice(0, MAX_CAUSE_LENGTH - 1)}…` : text;
}

/** The clean-up's account in a run's output (core/contracts/clean-up-account.ts), as far as the summary reads it. */
function cleanUpSchema() {
  return z
    .looseObject({
      status: z.string(),
      message: z.string(),
      left: z
        .array(z.looseObject({ kind: z.string(), name: z.string(), reason: z.string(), command: z.string() }))
        .optional(),
    })
    .optional();
}

type CleanUpOutput = NonNullable<z.output<ReturnType<typeof cleanUpSchema>>>;

/**
 * What the run's clean-up did: one line when all went, else what is left, why and the command for
 * each, and a few words for the subject, so that nobody believes a run left nothing when it did.
 */
function describeCleanUp(cleanUp: CleanUpOutput | undefined): { headline?: string; lines: string[] } {
  if (cleanUp === undefined) return { lines: [] };
  const left = cleanUp.left ?? [];
  if (cleanUp.status === CleanUpStatuses.complete && left.length === 0) {
    return { lines: [`Clean-up: ${cleanUp.message}`] };
  }
  if (cleanUp.status === CleanUpStatuses.failed) {
    return { headline: 'clean-up failed', lines: [`CLEAN-UP FAILED: ${cleanUp.message}`] };
  }
  return {
    headline: `${left.length} resource(s) left`,
    lines: [
      `CLEAN-UP LEFT ${left.length} RESOURCE(S): they may bill until deleted. Delete them with:`,
      ...left.flatMap((resource) => [
        `  - ${resource.kind} ${resource.name}: ${resource.reason}`,
        `    ${resource.command}`,
      ]),
    ],
  };
}

/**
 * The optimization workflow's output: the summary "Recommend" returns
 * (core/steps/optimization/recommend.ts).
 */
const optimizationSummarySchema = z.looseObject({
  runId: z.string(),
  outcome: z.string().optional(),
  outcomeText: z.string().optional(),
  recommendation: z
    .looseObject({
      candidateId: z.string(),
      instanceType: z.string().optional(),
      instanceCount: z.number(),
      compiled: z.boolean(),
      sustainableTps: z.number(),
      costPer1MUsd: z.number().optional(),
      costPer1MIsUpperBound: z.literal(true).optional(),
      latencyMs: z.looseObject({ p50: z.number(), p90: z.number(), p99: z.number() }).optional(),
      why: z.string(),
    })
    .nullable(),
  noRecommendationReason: z.string().optional(),
  candidates: z.array(z.looseObject({ id: z.string(), verdict: z.string() })),
  quality: z.string().optional(),
  report: z.looseObject({ html: z.string(), json: z.string(), markdown: z.string() }),
  keep: z.looseObject({ endpointName: z.string() }).optional(),
  cleanUp: cleanUpSchema(),
  comparison: z
    .looseObject({
      verdict: z.enum(Object.values(COMPARISON_ATTRIBUTES)),
      text: z.string(),
    })
    .nullish(),
  proof: z.looseObject({ status: z.enum(PROOF_STATUSES), note: z.string() }).optional(),
  ramp: z.looseObject({ status: z.enum(RAMP_STATUSES), note: z.string() }).optional(),
});

type OptimizationSummary = z.output<typeof optimizationSummarySchema>;

function describeSuccess(output: string | undefined): Outcome {
  if (output === undefined) return { lines: ['The execution returned no output.'] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    return { lines: [`Output: not JSON (${output.length} characters); see the execution.`] };
  }
  const optimization = optimizationSummarySchema.safeParse(parsed);
  if (optimization.success) return describeOptimization(optimization.data);
  const asyncRun = asyncSummarySchema.safeParse(parsed);
  if (asyncRun.success) return describeAsyncRun(asyncRun.data);
  return describeOtherOutput(parsed);
}

function usd(value: number): string {
  return `$${value < 0.01 ? value.toPrecision(2) : value.toFixed(2)}`;
}

function describeOptimization(summary: OptimizationSummary): Outcome {
  const lines: string[] = [];
  const { recommendation } = summary;
  let headline: string;
  // "Recommended …" would repeat the next line: the sentence is for the other outcomes.
  if (summary.outcomeText !== undefined && summary.outcome !== 'recommended') lines.push(summary.outcomeText);
  if (recommendation === null) {
    headline = 'no recommendation';
    lines.push(`No recommendation: ${summary.noRecommendationReason ?? 'no candidate met the SLA'}.`);
  } else {
    const where = recommendation.instanceType ?? 'serverless';
    // An unsaturated winner's cost per 1M is only an upper bound (report/build-report.ts); the
    // subject stays ASCII, so it says so in words.
    const bound = recommendation.costPer1MIsUpperBound === true;
    const price = recommendation.costPer1MUsd === undefined ? undefined : usd(recommendation.costPer1MUsd);
    const cost = price === undefined ? undefined : `${bound ? '≤ ' : ''}${price}`;
    headline = price === undefined ? where : `${where}, ${bound ? 'at most ' : ''}${price} per 1M`;
    lines.push(
      `Recommended: ${recommendation.candidateId} (${where} x${recommendation.instanceCount}` +
        `${recommendation.compiled ? ', compiled' : ''})`,
    );
    if (cost !== undefined) lines.push(`  Cost per 1M inferences: ${cost}`);
    lines.push(`  Sustainable throughput: ${recommendation.sustainableTps} inferences/s`);
    const latency = recommendation.latencyMs;
    if (latency !== undefined) {
      lines.push(`  Latency p50 / p90 / p99: ${latency.p50} / ${latency.p90} / ${latency.p99} ms`);
    }
    lines.push(`  Why: ${recommendation.why}`);
  }
  const verdicts = new Map<string, number>();
  for (const candidate of summary.candidates) {
    verdicts.set(candidate.verdict, (verdicts.get(candidate.verdict) ?? 0) + 1);
  }
  const counts = [...verdicts]
    .sort(([a], [b]) => verdictRank(a) - verdictRank(b))
    .map(([verdict, count]) => `${count} ${verdict}`)
    .join(', ');
  lines.push(`Candidates: ${summary.candidates.length}${counts === '' ? '' : ` (${counts})`}`);
  if (summary.quality !== undefined) lines.push(`Quality guard: ${summary.quality}`);
  if (summary.keep !== undefined) {
    lines.push(`Kept endpoint: ${summary.keep.endpointName} (it bills until you delete it)`);
  }
  if (summary.proof !== undefined) lines.push(`Proof at the target: ${summary.proof.note}`);
  if (summary.ramp !== undefined) lines.push(`Ramp test: ${summary.ramp.note}`);
  const cleanUp = describeCleanUp(summary.cleanUp);
  lines.push(...cleanUp.lines);
  lines.push(`Report: ${summary.report.html}`, `        ${summary.report.json} (machine-readable)`);
  if (summary.outcome !== undefined && summary.outcome !== 'recommended')
    headline = `${summary.outcome}, ${headline}`;
  // A count that did not serve the target is news the subject carries; a proof that held is not.
  if (summary.proof !== undefined && summary.proof.status !== 'held' && summary.proof.status !== 'skipped')
    headline = `${headline}, proof ${summary.proof.status}`;
  // So is a policy a ramp broke (or a ramp that could not run).
  if (summary.ramp !== undefined && summary.ramp.status !== 'held' && summary.ramp.status !== 'skipped')
    headline = `${headline}, ramp ${summary.ramp.status}`;
  const comparison = summary.comparison ?? undefined;
  // First in the subject and the body: for a registry run, the verdict is the news.
  if (comparison !== undefined) {
    headline = `${comparison.verdict}, ${headline}`;
    lines.unshift(comparison.text, '');
  }
  return {
    headline: cleanUp.headline === undefined ? headline : `${headline}; ${cleanUp.headline}`,
    lines,
    ...(summary.outcome === undefined ? {} : { outcome: summary.outcome }),
    ...(comparison === undefined ? {} : { comparison: comparison.verdict }),
    ...(summary.proof === undefined ? {} : { proof: summary.proof.status }),
    ...(summary.ramp === undefined ? {} : { ramp: summary.ramp.status }),
  };
}

/** The report's verdicts, best first (the contract's order); an unknown one goes last. */
const VERDICT_ORDER: readonly string[] = CANDIDATE_VERDICTS;

function verdictRank(verdict: string): number {
  const rank = VERDICT_ORDER.indexOf(verdict);
  return rank === -1 ? VERDICT_ORDER.length : rank;
}

const distributionSchema = z.looseObject({ p50: z.number(), p90: z.number(), p99: z.number() });

/**
 * The async-inference workflow's output: the summary of its last step
 * (core/steps/async/summarize-async-run.ts).
 */
const asyncSummarySchema = z.looseObject({
  runId: z.string(),
  outcome: z.string().optional(),
  endpointName: z.string(),
  inputs: z.number(),
  completed: z.number(),
  failed: z.number(),
  timedOut: z.number(),
  makespanMs: z.number().nullable().optional(),
  drainRatePerMinute: z.number().nullable().optional(),
  totalMs: distributionSchema.nullable().optional(),
  generative: z
    .looseObject({
      outputTokens: z.number(),
      counted: z.number(),
      uncounted: z.number(),
      outputTokensPerSecond: z.number().nullable(),
    })
    .optional(),
  summaryUri: z.string(),
  summaryMarkdownUri: z.string().optional(),
  cleanUp: cleanUpSchema(),
});

type AsyncSummary = z.output<typeof asyncSummarySchema>;

function describeAsyncRun(summary: AsyncSummary): Outcome {
  const lines = [
    `Inputs: ${summary.inputs} (${summary.completed} completed, ${summary.failed} failed, ${summary.timedOut} timed out)`,
    `Endpoint: ${summary.endpointName}`,
  ];
  if (summary.makespanMs !== undefined && summary.makespanMs !== null) {
    const rate =
      summary.drainRatePerMinute === undefined || summary.drainRatePerMinute === null
        ? ''
        : `, ${summary.drainRatePerMinute} results/min`;
    lines.push(`Makespan: ${formatDuration(summary.makespanMs)}${rate}`);
  }
  if (summary.totalMs !== undefined && summary.totalMs !== null) {
    const { p50, p90, p99 } = summary.totalMs;
    lines.push(
      `Time per input p50 / p90 / p99: ${formatDuration(p50)} / ${formatDuration(p90)} / ${formatDuration(p99)}`,
    );
  }
  const { generative } = summary;
  if (generative !== undefined) {
    const rate =
      generative.outputTokensPerSecond === null
        ? ''
        : `, ${generative.outputTokensPerSecond.toFixed(1)} tokens/s`;
    const uncounted = generative.uncounted === 0 ? '' : `; ${generative.uncounted} not counted`;
    lines.push(
      `Generated tokens: ${generative.outputTokens} over ${generative.counted} result(s)${rate}${uncounted}`,
    );
  }
  const cleanUp = describeCleanUp(summary.cleanUp);
  lines.push(...cleanUp.lines);
  lines.push(`Summary: ${summary.summaryUri}`);
  if (summary.summaryMarkdownUri !== undefined) lines.push(`         ${summary.summaryMarkdownUri}`);
  const problems = summary.failed + summary.timedOut;
  const headline = `${summary.completed} of ${summary.inputs} completed${problems > 0 ? `, ${problems} not` : ''}`;
  return {
    headline: cleanUp.headline === undefined ? headline : `${headline}; ${cleanUp.headline}`,
    lines,
    ...(summary.outcome === undefined ? {} : { outcome: summary.outcome }),
  };
}

function scalarText(value: unknown): string | undefined {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') return undefined;
  return value.length > MAX_FALLBACK_VALUE_LENGTH
    ? `${value.slice(0, MAX_FALLBACK_VALUE_LENGTH - 1)}…`
    : value;
}

/**
 * Any other output (a shape this version does not know): its numbers, flags and strings, one
 * level deep, without arrays, at most 15 lines.
 */
function describeOtherOutput(output: unknown): Outcome {
  const record = recordOf(output);
  if (record === undefined) {
    return { lines: ['Output: not a JSON object; see the execution.'] };
  }
  const lines: string[] = [];
  let omitted = 0;
  const add = (key: string, value: unknown): void => {
    const text = scalarText(value);
    if (text === undefined) return;
    if (lines.length < MAX_FALLBACK_LINES) lines.push(`${key}: ${text}`);
    else omitted += 1;
  };
  for (const [key, value] of Object.entries(record)) {
    const nested = recordOf(value);
    if (nested === undefined) add(key, value);
    else for (const [subKey, subValue] of Object.entries(nested)) add(`${key}.${subKey}`, subValue);
  }
  if (lines.length === 0) lines.push('Output: no plain values to show; see the execution.');
  if (omitted > 0) lines.push(`(${omitted} more values: see the execution)`);
  return { headline: countsHeadline(record), lines };
}

/** `12 succeeded, 1 failed` when the output has such counts (top level or under `counts`). */
function countsHeadline(record: Record<string, unknown>): string | undefined {
  const counts = recordOf(record.counts) ?? record;
  const parts = ['succeeded', 'failed']
    .filter((key) => typeof counts[key] === 'number')
    .map((key) => `${String(counts[key])} ${key}`);
  return parts.length === 0 ? undefined : parts.join(', ');
}
