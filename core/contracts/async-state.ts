import type { CaughtError } from './caught-error.js';
import type { CleanUpAccount } from './clean-up-account.js';
import type { ExecutionBudgets } from './execution-limits.js';

/**
 * How a generative model's container writes a whole answer (async results are whole bodies, not
 * streams): TGI, LMI (DJL Serving) or an OpenAI-compatible completion (core/async/generated-tokens.ts).
 */
export const GENERATIVE_OUTPUT_FORMATS = ['tgi', 'lmi', 'openai'] as const;
export type GenerativeOutputFormat = (typeof GENERATIVE_OUTPUT_FORMATS)[number];

/**
 * The async-inference workflow's contract: its steps, the states other layers name, and every JSON
 * document that crosses a state boundary (what each step takes and gives, the status enums). The
 * one list the workflow construct's props, the step Lambdas in `infra/`, the local runner's handler
 * map and each Lambda's `STEP_NAME` derive from (see optimization-state.ts). The state stays small
 * whatever the number of inputs: the input list and per-input results live in S3, the states carry
 * batches of indexes and counts.
 */

/** Each step Lambda of the workflow, by its key in the workflow construct's props. */
export const ASYNC_INFERENCE_STEPS = {
  validateAsyncRun: 'validate-async-run',
  deployAsyncEndpoint: 'deploy-async-endpoint',
  checkAsyncEndpoint: 'check-async-endpoint',
  loadBatch: 'load-batch',
  invokeAsyncInference: 'invoke-async-inference',
  recordBatchResults: 'record-batch-results',
  summarizeAsyncRun: 'summarize-async-run',
  cleanUpAsyncRun: 'clean-up-async-run',
} as const;
export type AsyncInferenceStepKey = keyof typeof ASYNC_INFERENCE_STEPS;
export type AsyncInferenceStepName = (typeof ASYNC_INFERENCE_STEPS)[AsyncInferenceStepKey];

/**
 * The event each step's Task builds and its core function takes, by the step's key (see
 * OptimizationStepEvents): the workflow's Parameters are type-checked against it.
 */
export interface AsyncInferenceStepEvents {
  readonly validateAsyncRun: ValidateAsyncRunEvent;
  readonly deployAsyncEndpoint: PrepareAsyncEndpointEvent;
  readonly checkAsyncEndpoint: PrepareAsyncEndpointEvent;
  readonly loadBatch: LoadBatchEvent;
  readonly invokeAsyncInference: InvokeAsyncInferenceEvent;
  readonly recordBatchResults: RecordBatchEvent;
  readonly summarizeAsyncRun: SummarizeAsyncRunEvent;
  readonly cleanUpAsyncRun: CleanUpAsyncRunEvent;
}

/** The same events by step name (`STEP_NAME`), as the local runner's handler map is keyed. */
export type AsyncInferenceStepEventsByName = {
  readonly [
    Key in AsyncInferenceStepKey as (typeof ASYNC_INFERENCE_STEPS)[Key]
  ]: AsyncInferenceStepEvents[Key];
};

/** The states named outside the workflow construct: by progress reporters, the run API and the CLIs. */
export const AsyncInferenceStates = {
  validateAsyncRun: 'Validate async run',
  runRefused: 'Run refused',
  runAsyncInference: 'Run async inference',
  deployAsyncEndpoint: 'Deploy async endpoint',
  waitForAsyncEndpoint: 'Wait for async endpoint',
  checkAsyncEndpoint: 'Check async endpoint',
  processEachBatch: 'Process each batch',
  loadBatchInputs: 'Load batch inputs',
  invokeEachInput: 'Invoke each input',
  invokeAsyncInference: 'Invoke async inference',
  recordBatchResults: 'Record batch results',
  summarizeAsyncRun: 'Summarize async run',
  cleanUpAsyncRun: 'Clean up async run',
  /** After the success path's clean-up: a run none of whose inputs completed ends in "No input completed". */
  inputCompleted: 'Any input completed?',
  explainNoInputCompleted: 'Explain no input completed',
  noInputCompleted: 'No input completed',
  cleanUpAfterFailure: 'Clean up after failure',
  runFailed: 'Run failed',
  runSucceeded: 'Run succeeded',
} as const;
export type AsyncInferenceState = (typeof AsyncInferenceStates)[keyof typeof AsyncInferenceStates];

/* ---------------------------------------------------------------------------------------------
 * The plan and the endpoint loop: "Validate async run", "Deploy async endpoint", "Check async endpoint".
 * ------------------------------------------------------------------------------------------- */

/** Inputs per batch: an inline Map runs at most 40 iterations at once, so a batch can be all in flight. */
export const BATCH_SIZE = 40;

/** `creating`: deployed, waiting for InService; `scaling-in`: waiting for zero instances; `ready`. */
export const AsyncEndpointPhases = {
  creating: 'creating',
  scalingIn: 'scaling-in',
  ready: 'ready',
} as const;
export type AsyncEndpointPhase = (typeof AsyncEndpointPhases)[keyof typeof AsyncEndpointPhases];

export interface AsyncEndpointPlan {
  readonly action: 'reuse' | 'deploy';
  readonly endpointName: string;
  readonly variantName: string;
  /** Set when the run deploys the endpoint. */
  readonly endpointConfigName?: string;
  readonly modelName?: string;
  readonly keepAfterRun: boolean;
  /** What to deploy, when the run deploys the endpoint. */
  readonly deploy?: AsyncDeploySpec;
}

export interface AsyncDeploySpec {
  readonly image: string;
  /** Absent for a Hugging Face Hub model without code: its container downloads the model. */
  readonly modelDataUrl?: string;
  /**
   * The input's `endpoint.codeUri`, which "Validate async run" packages alone under `code/` into
   * `modelDataUrl` (a Hub model's inference code).
   */
  readonly codeUri?: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly instanceType: string;
  readonly maxInstanceCount: number;
  readonly maxConcurrentInvocationsPerInstance?: number;
  readonly targetBacklogPerInstance: number;
}

/** What every "Invoke async inference" task needs besides its item (kept small: 40 copies per batch). */
export interface InvocationSettings {
  readonly endpointName: string;
  readonly contentType: string;
  readonly invocationTimeoutSeconds: number;
  readonly requestTtlSeconds: number;
  readonly waitTimeoutSeconds: number;
}

export interface BatchDescriptor {
  readonly batchIndex: number;
  readonly firstItemIndex: number;
  readonly itemCount: number;
}

export interface AsyncRunPlan {
  readonly runId: string;
  readonly name?: string;
  readonly runPrefixUri: string;
  /** `{ items: [{ itemIndex, inputLocation }] }`, one per request sent. */
  readonly manifestUri: string;
  readonly itemCount: number;
  readonly batches: readonly BatchDescriptor[];
  /**
   * Batches in flight at once and inputs in flight per batch: at most the input's `maxConcurrency`
   * inputs wait at once (`concurrencyOf`). A benchmark sends every input at once.
   */
  readonly batchConcurrency: number;
  readonly itemConcurrency: number;
  readonly invocation: InvocationSettings;
  readonly endpoint: AsyncEndpointPlan;
  readonly benchmark?: { readonly burstSize: number };
  /** A generative model's run: each result's token counts are read in its container's format. */
  readonly generative?: { readonly format: GenerativeOutputFormat };
  readonly tags: Readonly<Record<string, string>>;
  readonly plannedAtEpochMs: number;
  /** The worst-case history the run was checked with (planning/history-model.ts), shown by the local `--plan`. */
  readonly budgets?: ExecutionBudgets;
  /** What validation could not check (e.g. a reused endpoint's role); the summary repeats them. */
  readonly warnings?: readonly string[];
  /** The run's cost and duration on AWS (core/async/async-estimate.ts); absent in older plans. */
  readonly estimate?: AsyncRunEstimate;
}

/** Upper bounds of an async run's cost and duration on AWS, with what they assume. */
export interface AsyncRunEstimate {
  /** The endpoint's instance-hours in USD: 0 for a reused endpoint; absent when its instance has no price. */
  readonly totalUsd?: number;
  readonly usdPerHour?: number;
  readonly priceTable?: {
    readonly url: string;
    readonly region: string;
    readonly kind: string;
    readonly recordedOn: string;
  };
  /** With `assumptions`: endpoint creation, the inputs, deletion. */
  readonly durationSeconds: number;
  /** Every wait at its deadline: the endpoint's creation, a benchmark's scale-in, each input's wait. */
  readonly worstDurationSeconds: number;
  readonly assumptions: readonly string[];
}

/** The endpoint's progress through the "Prepare endpoint" loop. */
export interface AsyncEndpointState {
  readonly phase: AsyncEndpointPhase;
  readonly waitSeconds: number;
  readonly deadlineEpochMs: number;
  /**
   * Instances when the invocations started, as DescribeEndpoint said: a benchmark's burst starts
   * from them, and the report's instance line begins there.
   */
  readonly instancesAtStart?: number;
  /** Why the phase ended without reaching its goal (e.g. still 1 instance at the scale-in deadline). */
  readonly note?: string;
}

/** "Validate async run" takes the execution name and the user's run input (async-run-input.ts). */
export interface ValidateAsyncRunEvent {
  readonly runId: string;
  readonly input: unknown;
}

/** What "Validate async run" gives: the `$.plan` every later state reads, and the endpoint loop's first state. */
export interface ValidatedAsyncRun {
  readonly plan: AsyncRunPlan;
  readonly endpointState: AsyncEndpointState;
}

/** What "Deploy async endpoint" and "Check async endpoint" take; both give `AsyncEndpointState`. */
export interface PrepareAsyncEndpointEvent {
  readonly plan: AsyncRunPlan;
  readonly endpointState: AsyncEndpointState;
}

/* ---------------------------------------------------------------------------------------------
 * One batch: "Load batch inputs", "Invoke async inference" (resumed by the notification), "Record batch results".
 * ------------------------------------------------------------------------------------------- */

export interface BatchItem {
  readonly itemIndex: number;
  readonly inputLocation: string;
}

export interface LoadBatchEvent {
  readonly plan: Pick<AsyncRunPlan, 'manifestUri'>;
  readonly batch: BatchDescriptor;
}

/** What "Invoke async inference" takes: the batch item with the plan's `InvocationSettings` and the task token. */
export interface InvokeAsyncInferenceEvent {
  /** `$$.Task.Token` of this attempt. */
  readonly taskToken: string;
  /** The execution name. */
  readonly runId: string;
  /** `$$.Map.Item.Index`. */
  readonly itemIndex: number;
  readonly inputLocation: string;
  readonly endpointName: string;
  readonly contentType: string;
  readonly invocationTimeoutSeconds: number;
  readonly requestTtlSeconds: number;
  /** The wait task's timeout: the record must outlive it. */
  readonly waitTimeoutSeconds: number;
}

/** The waiting task's output on success (SendTaskSuccess from the notification Lambda): small, with S3 pointers only. */
export interface AsyncInferenceResult {
  readonly inferenceId: string;
  readonly status: 'Completed';
  readonly inputLocation: string;
  readonly outputLocation: string;
  /**
   * SageMaker's `receivedTime` → `eventTime`: time in its queue plus processing (the notification
   * has no processing start). `null` when the message lacks either time.
   */
  readonly timeInSageMakerMs: number | null;
  /** From storing the token (just before `InvokeEndpointAsync`) to the resume. */
  readonly totalMs: number;
  /** When the token was stored, just before `InvokeEndpointAsync` (epoch ms). */
  readonly invokedAtEpochMs: number;
  /** When SageMaker finished (its `eventTime`), or the resume time when it does not say. */
  readonly finishedAtEpochMs: number;
}

/** The `Cause` of `InferenceFailedError`: a JSON document a Catch can parse (`States.StringToJson`). */
export interface AsyncInferenceFailureCause {
  readonly inferenceId: string;
  readonly invocationStatus: string;
  /** At most `STATE_FAILURE_REASON_BYTES` in the state; the whole text is then at `failureReasonUri`. */
  readonly failureReason: string;
  readonly failureReasonUri?: string;
  readonly failureLocation: string | null;
  readonly inputLocation: string;
  readonly timeInSageMakerMs: number | null;
  readonly totalMs: number;
  readonly invokedAtEpochMs: number;
  readonly finishedAtEpochMs: number;
}

export const ItemStatuses = { completed: 'Completed', failed: 'Failed', timedOut: 'TimedOut' } as const;
export type ItemStatus = (typeof ItemStatuses)[keyof typeof ItemStatuses];

/** One input's outcome, as the summary lists it. */
export interface ItemResult {
  readonly itemIndex: number;
  readonly inputLocation: string;
  readonly status: ItemStatus;
  readonly inferenceId?: string;
  readonly outputLocation?: string;
  readonly failureLocation?: string;
  readonly failureReason?: string;
  /** Where the notification kept a failure reason too long for the state (its whole text is in `failureReason`). */
  readonly failureReasonUri?: string;
  /** SageMaker's receivedTime → eventTime (queue plus processing), when it says. */
  readonly timeInSageMakerMs: number | null;
  /** Invocation → resume, as the workflow saw it. */
  readonly totalMs: number | null;
  readonly invokedAtEpochMs?: number;
  readonly finishedAtEpochMs?: number;
  /** Generative runs, a completed input: the container's own count of the tokens it generated. */
  readonly outputTokens?: number;
  /** The prompt's tokens, where the container reports them. */
  readonly inputTokens?: number;
  /** Generative runs: why a completed input's tokens were not counted. */
  readonly tokensNote?: string;
}

/** What one iteration of "Invoke each input" ends with: the task's result, or the Catch's error. */
export type IterationOutput =
  | { readonly item: BatchItem; readonly result: AsyncInferenceResult }
  | { readonly item: BatchItem; readonly error: CaughtError };

export interface RecordBatchEvent {
  readonly plan: Pick<AsyncRunPlan, 'runId' | 'runPrefixUri' | 'generative'>;
  readonly batch: BatchDescriptor;
  readonly results: readonly IterationOutput[];
}

export interface BatchCounts {
  readonly batchIndex: number;
  readonly completed: number;
  readonly failed: number;
  readonly timedOut: number;
}

/* ---------------------------------------------------------------------------------------------
 * The end: "Summarize async run", "Clean up async run".
 * ------------------------------------------------------------------------------------------- */

/** What "Summarize async run" takes: the plan, the endpoint loop's last state and each batch's counts. */
export interface SummarizeAsyncRunEvent {
  readonly plan: AsyncRunPlan;
  readonly endpointState: AsyncEndpointState;
  readonly batches: readonly BatchCounts[];
}

export interface Distribution {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

export interface AsyncBenchmarkFigures {
  readonly burstSize: number;
  /** Instances when the burst started: the scale-out from zero is measured only from 0. */
  readonly instancesAtStart: number | null;
  /** Burst start → the first scaling activity from zero that completed (Application Auto Scaling). */
  readonly scaleOutFromZeroMs: number | null;
  /** Burst start → the first result: scale-out, model load and one inference. */
  readonly firstResultMs: number | null;
  /** Burst start → the last result. */
  readonly drainMs: number | null;
  readonly drainRatePerMinute: number | null;
  readonly timeInBacklogMs: { readonly average: number; readonly maximum: number } | null;
  readonly maxBacklogSize: number | null;
  readonly notes: readonly string[];
}

/**
 * How an async run ended, in the vocabulary of the optimization's outcomes (optimization-state.ts):
 * `completed` (every input completed), `partial` (some failed or timed out), `all-inputs-failed`
 * (none completed). A run that completed any input SUCCEEDS (each input's result is in the
 * summary); one that completed none ran to its end all the same (summary written, clean-up done)
 * but ends FAILED in "No input completed" with `NoInputCompletedError`, as an optimization without
 * a recommendation does. The outcome is the summary's `outcome` (or the cause's), the SNS attribute
 * and the CLIs' exit code.
 */
export const AsyncRunOutcomes = {
  completed: 'completed',
  partial: 'partial',
  allInputsFailed: 'all-inputs-failed',
} as const;
export type AsyncRunOutcome = (typeof AsyncRunOutcomes)[keyof typeof AsyncRunOutcomes];

export interface AsyncRunSummary {
  readonly runId: string;
  readonly name?: string;
  readonly outcome: AsyncRunOutcome;
  readonly endpointName: string;
  readonly inputs: number;
  readonly completed: number;
  readonly failed: number;
  readonly timedOut: number;
  /** First invocation → last result. */
  readonly makespanMs: number | null;
  /** Results per minute between the first and the last result. */
  readonly drainRatePerMinute: number | null;
  readonly totalMs: Distribution | null;
  readonly timeInSageMakerMs: Distribution | null;
  readonly benchmark?: AsyncBenchmarkFigures;
  readonly generative?: AsyncGenerativeFigures;
  readonly summaryUri: string;
  readonly summaryMarkdownUri: string;
  /** The report document (`async/report.json`) and its page with charts (`async/report.html`). */
  readonly reportUri?: string;
  readonly reportHtmlUri?: string;
  /** What "Validate async run" could not check, e.g. a reused endpoint's role. */
  readonly warnings?: readonly string[];
  /**
   * Why inputs failed or timed out, when some did: each distinct reason with how many inputs it
   * stopped, the most frequent first, at most `MAX_FAILURE_REASONS` (each input's is in summary.json).
   */
  readonly failureReasons?: readonly FailureReasonCount[];
}

export interface FailureReasonCount {
  /**
   * The input's failure reason on one line, cut to `MAX_FAILURE_REASON_LENGTH` characters, its
   * double quotes as single quotes and its backslashes as slashes: the list travels in the "No input
   * completed" cause, which `States.JsonToString` writes, and the local engine drops every backslash
   * from an intrinsic function's result (aws-local-stepfunctions 3.0.0), escapes included.
   */
  readonly reason: string;
  readonly inputs: number;
}

/** The failure reasons a summary lists, and how much of each: enough to tell one cause from many. */
export const MAX_FAILURE_REASONS = 5;
export const MAX_FAILURE_REASON_LENGTH = 300;

/**
 * The cause (JSON) of a run that ended in "No input completed": `errorMessage` first, as in a
 * Lambda's cause; the outcome, the counts, the failures' reasons and the summary's files for the
 * run API and the CLIs; the clean-up's message under `cleanUp`, as every failed run's cause has it.
 * The async counterpart of the optimization's `NoRecommendationCause`.
 */
export interface NoInputCompletedCause {
  readonly errorMessage: string;
  readonly outcome: typeof AsyncRunOutcomes.allInputsFailed;
  readonly counts: Pick<AsyncRunSummary, 'inputs' | 'failed' | 'timedOut'>;
  readonly failureReasons: readonly FailureReasonCount[];
  readonly summary: Pick<AsyncRunSummary, 'summaryUri' | 'summaryMarkdownUri'>;
  readonly cleanUp?: string;
}

/**
 * A generative run's tokens, from the results whose container reported its counts
 * (core/async/generated-tokens.ts). Rates are over the run's makespan, the async endpoint's
 * own throughput, queue included: an async result says when it was queued and when it ended, not
 * when its processing began.
 */
export interface AsyncGenerativeFigures {
  readonly format: GenerativeOutputFormat;
  /** Completed inputs whose tokens were counted, and those whose output had no counts. */
  readonly counted: number;
  readonly uncounted: number;
  readonly outputTokens: number;
  /** Summed over the counted results that report the prompt's length; null when none does. */
  readonly inputTokens: number | null;
  readonly outputTokensPerInput: Distribution | null;
  /** Counted output tokens ÷ the makespan: what the endpoint generated per second over the run. */
  readonly outputTokensPerSecond: number | null;
  /** Time in SageMaker (queue + processing) ÷ the input's output tokens. */
  readonly msPerOutputToken: Distribution | null;
  /** Why results were not counted (distinct reasons, with how many). */
  readonly notes: readonly string[];
}

/** What "Clean up async run" and its "Clean up after failure" take; they give `CleanUpResult` (the account). */
export interface CleanUpAsyncRunEvent {
  /** After a failure, the batches' recorded results are read back (core/async/completed-results.ts). */
  readonly plan: Pick<AsyncRunPlan, 'runId' | 'endpoint' | 'runPrefixUri' | 'itemCount' | 'batches'>;
  /** On success; its `cleanUp` is the previous round's account (the workflow writes each round's there). */
  readonly summary?: Pick<AsyncRunSummary, 'runId'> & { readonly cleanUp?: CleanUpAccount };
  readonly error?: CaughtError;
  /** On failure: the previous round's account. */
  readonly cleanUp?: CleanUpAccount;
}
