import { z } from 'zod';
import { isValidRunId } from './names.js';
import { runInputSchema } from './run-input.js';
import { asyncRunInputSchema } from './async-run-input.js';

/**
 * The run API's contract, in one module shared by the API construct (request models, templates),
 * the status Lambda (its response) and the typed client (which validates every response with these
 * schemas). Request body of `POST /runs` and `POST /async-runs`:
 *
 *     { "runId"?: "<1–80 of A-Z a-z 0-9 _ ->", "input": <the workflow's run input> }
 *
 * The run id becomes the execution name, so a retried request cannot start a second run; without
 * one, the API uses its request id.
 */

export const RunWorkflows = {
  optimization: 'optimization',
  asyncInference: 'async-inference',
} as const;
export type RunWorkflow = (typeof RunWorkflows)[keyof typeof RunWorkflows];

/**
 * The run-input schema of each workflow: the API's request models are generated from it. `POST`
 * bodies are checked with the first state's parse, which adds the rules that consult the catalog
 * (core/run-status/run-request.ts, core/planning/run-input-check.ts).
 */
export const RUN_INPUT_SCHEMAS: Readonly<Record<RunWorkflow, z.ZodType>> = {
  optimization: runInputSchema,
  'async-inference': asyncRunInputSchema,
};

/** Each workflow's resource under the API root: `POST /runs`, `GET /runs/{id}`, and so on. */
export const RUN_RESOURCES: Readonly<Record<RunWorkflow, string>> = {
  optimization: 'runs',
  'async-inference': 'async-runs',
};

/**
 * Step Functions execution names: 1–80 characters (StartExecution API reference), restricted to
 * characters that need no escaping in a URL, a JSON string or a SageMaker resource name. The same
 * rule as `isValidRunId` (core/contracts/names.ts), written as a pattern for the API's model.
 */
export const RUN_ID_PATTERN = '^[A-Za-z0-9_-]{1,80}$';

export const RUN_ID_EXPECTED = '1 to 80 letters, digits, "-" or "_" (it becomes the execution name)';

export const runIdSchema = z
  .string()
  .regex(new RegExp(RUN_ID_PATTERN), { message: RUN_ID_EXPECTED })
  .refine(isValidRunId, { message: RUN_ID_EXPECTED });

/** Why a run id is refused, or `undefined` when it is valid. */
export function describeInvalidRunId(runId: unknown): string | undefined {
  if (typeof runId === 'string' && isValidRunId(runId)) return undefined;
  return `got ${runId === undefined ? 'no run id' : JSON.stringify(runId)}, expected ${RUN_ID_EXPECTED}`;
}

/** Step Functions execution statuses (DescribeExecution `status`). */
export const ExecutionStatuses = {
  running: 'RUNNING',
  succeeded: 'SUCCEEDED',
  failed: 'FAILED',
  timedOut: 'TIMED_OUT',
  aborted: 'ABORTED',
  /** A redrive was asked for and has not started yet: the run is not over. */
  pendingRedrive: 'PENDING_REDRIVE',
} as const;
export type ExecutionStatus = (typeof ExecutionStatuses)[keyof typeof ExecutionStatuses];

const EXECUTION_STATUS_VALUES = Object.values(ExecutionStatuses) as [ExecutionStatus, ...ExecutionStatus[]];

/** Statuses after which an execution never changes again (without a redrive). */
export const TERMINAL_STATUSES: readonly ExecutionStatus[] = [
  ExecutionStatuses.succeeded,
  ExecutionStatuses.failed,
  ExecutionStatuses.timedOut,
  ExecutionStatuses.aborted,
];

export function isTerminalStatus(status: ExecutionStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** `POST /runs` and `POST /async-runs`: 200. */
export const startedRunSchema = z.object({
  runId: runIdSchema,
  executionArn: z.string().min(1),
  /** Seconds since the epoch, as StartExecution returns it (a JSON number with a fraction). */
  startDate: z.number(),
  /** `GET` this URL (signed) for the status. */
  statusUrl: z.string().min(1),
});
export type StartedRun = z.infer<typeof startedRunSchema>;

const countSchema = z.int().min(0);

/** The iterations of one of the workflow's Maps: the candidates benchmarked, the inputs processed. */
export const itemsProgressSchema = z.object({
  /** `candidates` (optimization) or `inputs` (async inference). */
  label: z.string(),
  /** How many items the Map iterates over, once the Map has started. */
  total: countSchema.optional(),
  started: countSchema,
  succeeded: countSchema,
  /** Iterations that failed or were aborted (a candidate that failed its test still succeeds here). */
  failed: countSchema,
  running: countSchema,
});
export type ItemsProgress = z.infer<typeof itemsProgressSchema>;

export const runProgressSchema = z.object({
  /** The phase the run entered last, e.g. "Benchmark each candidate". */
  phase: z.string().optional(),
  items: itemsProgressSchema.optional(),
  /**
   * When the items come in groups (async inference: inputs in batches), the groups' progress; the
   * items' total is then known once every group has started.
   */
  groups: itemsProgressSchema.optional(),
  /** History events read to compute this (newest first, stopping once nothing older matters). */
  historyEventsRead: countSchema,
});
export type RunProgress = z.infer<typeof runProgressSchema>;

/**
 * Where a succeeded run's results are: the optimization summary's `report`
 * (core/steps/optimization/recommend.ts), or the async summary's `summaryUri`,
 * `summaryMarkdownUri` and `reportHtmlUri` (core/steps/async/summarize-async-run.ts).
 */
export const reportLocationsSchema = z.object({
  json: z.string().min(1),
  markdown: z.string().min(1),
  /** A self-contained page with charts (an async summary without `reportHtmlUri` has none). */
  html: z.string().min(1).optional(),
});
export type ReportLocations = z.infer<typeof reportLocationsSchema>;

/** `GET /runs/{id}` and `GET /async-runs/{id}`: 200. */
export const runStatusSchema = z.object({
  runId: runIdSchema,
  workflow: z.enum([RunWorkflows.optimization, RunWorkflows.asyncInference]),
  status: z.enum(EXECUTION_STATUS_VALUES),
  executionArn: z.string().min(1),
  /** ISO 8601. */
  startDate: z.string(),
  stopDate: z.string().optional(),
  progress: runProgressSchema,
  /** FAILED, TIMED_OUT, ABORTED: the error name and cause the execution ended with. */
  error: z.string().optional(),
  cause: z.string().optional(),
  /**
   * The report (optimization) or summary (async inference) files: of SUCCEEDED runs, and of
   * optimization runs that ended FAILED with `NoRecommendationError` (read from its cause).
   */
  report: reportLocationsSchema.optional(),
  /**
   * The run's outcome, once it has one (optimization: `recommended`, `partial`,
   * `no-candidate-met-sla`, `all-candidates-failed`; async: `completed`, `partial`,
   * `all-inputs-failed`); the CLIs' exit codes derive from it (core/contracts/exit-codes.ts).
   */
  outcome: z.string().optional(),
  /**
   * An optimization run that proved its target TPS: the proof's verdict (`held`, `not-held`,
   * `failed`, `skipped`; core/serving/prove-target.ts); `not-held` exits 7.
   */
  proof: z.string().optional(),
  /**
   * A run of a Model Registry package: its verdict against the group's last approved version
   * (`regressed`, `improved`, `unchanged`, `not-comparable`, `no-baseline`; registry-baseline.ts).
   */
  comparison: z.string().optional(),
});
export type RunStatus = z.infer<typeof runStatusSchema>;

/** Codes of the API's own error bodies, so clients branch on a name rather than on a message. */
export const ApiErrorCodes = {
  invalidRequest: 'InvalidRequest',
  /** The run input breaks its schema: `issues` lists every problem, as the first state would. */
  invalidRunInput: 'InvalidRunInput',
  invalidRunId: 'InvalidRunId',
  runNotFound: 'RunNotFound',
  /** `stop`: the run has already ended. */
  runNotRunning: 'RunNotRunning',
  /** `report`: the run has no report (yet, or ever: it failed before writing one). */
  reportNotAvailable: 'ReportNotAvailable',
  runAlreadyExists: 'RunAlreadyExists',
  /** `plan`: the run's estimated cost exceeds its `maxCostUsd` (the first state's BudgetExceededError). */
  budgetExceeded: 'BudgetExceeded',
  throttled: 'Throttled',
  startRefused: 'StartExecutionRefused',
  serviceUnavailable: 'ServiceUnavailable',
  internal: 'InternalError',
} as const;
export type ApiErrorCode = (typeof ApiErrorCodes)[keyof typeof ApiErrorCodes];

/**
 * Every error body: the API's own (`error` set) and API Gateway's (`{ "message": … }` only, e.g.
 * a refused signature or a body that fails the request model).
 */
export const apiErrorSchema = z.object({
  error: z.string().optional(),
  message: z.string(),
  /** `InvalidRunInput`: every problem, each naming the field, what was given and what was expected. */
  issues: z.array(z.object({ field: z.string(), given: z.string(), expected: z.string() })).optional(),
});
export type ApiError = z.infer<typeof apiErrorSchema>;

/** What a run API Lambda answers: a status code and either its body or the API's error. */
export interface ApiReply<Body> {
  readonly statusCode: number;
  readonly body: Body | ApiError;
}

/** An error answer of the API's own (`error` is one of ApiErrorCodes). */
export function apiFailure(statusCode: number, error: string, message: string): ApiReply<never> {
  return { statusCode, body: { error, message } };
}

/** Query and path parts of the routes below, so the API, its Lambdas and the client agree. */
export const RUN_SUBRESOURCES = {
  /** `POST /<resource>/{id}/stop`. */
  stop: 'stop',
  /** `GET /<resource>/{id}/events`. */
  events: 'events',
  /** `GET /<resource>/{id}/report`. */
  report: 'report',
} as const;

/** `POST /<resource>/plan`: the plan of a run, nothing created (a resource beside `{id}`). */
export const RUN_PLAN_PATH = 'plan';

/**
 * `POST /runs/plan` and `POST /async-runs/plan`: 200. `plan` is what the workflow's first state
 * returns ("Validate and plan": RunPlan in core/contracts/optimization-state.ts; "Validate async
 * run": AsyncRunPlan, with `items` its inputs), the same JSON as the local `--plan --json`.
 */
export const plannedRunSchema = z.object({
  runId: runIdSchema,
  workflow: z.enum([RunWorkflows.optimization, RunWorkflows.asyncInference]),
  plan: z.looseObject({ runId: runIdSchema }),
  items: z.array(z.looseObject({ itemIndex: countSchema })).optional(),
});
export type PlannedRun = z.infer<typeof plannedRunSchema>;

/** `GET /runs` and `GET /async-runs`: one run, as ListExecutions describes it. */
export const runListItemSchema = z.object({
  runId: z.string().min(1),
  workflow: z.enum([RunWorkflows.optimization, RunWorkflows.asyncInference]),
  status: z.enum(EXECUTION_STATUS_VALUES),
  executionArn: z.string().min(1),
  /** ISO 8601. */
  startDate: z.string(),
  stopDate: z.string().optional(),
});
export type RunListItem = z.infer<typeof runListItemSchema>;

/** `GET /runs?status=&since=&limit=`: newest first. */
export const runListSchema = z.object({
  runs: z.array(runListItemSchema),
  /** More runs matched than `limit`: narrow the filters or raise the limit. */
  truncated: z.boolean(),
});
export type RunList = z.infer<typeof runListSchema>;

/** `GET /runs` filters as the API reads them from the query string. */
export const RUN_LIST_LIMITS = {
  /** Runs per answer when `limit` is not given. */
  defaultLimit: 50,
  /** ListExecutions pages hold at most 1,000 executions; more would need several pages per request. */
  maxLimit: 1000,
} as const;

/** `POST /runs/{id}/stop`: 200. */
export const stoppedRunSchema = z.object({
  runId: runIdSchema,
  workflow: z.enum([RunWorkflows.optimization, RunWorkflows.asyncInference]),
  executionArn: z.string().min(1),
  /** ISO 8601, as StopExecution returns it. */
  stopDate: z.string(),
});
export type StoppedRun = z.infer<typeof stoppedRunSchema>;

/** One progress event of a run: a history event reduced to one line. */
export const runEventSchema = z.object({
  /** The history event's id: events are numbered from 1 in the order they happened. */
  id: z.int().min(1),
  /** ISO 8601. */
  timestamp: z.string(),
  /** The history event type, e.g. `TaskStateEntered`. */
  type: z.string(),
  /** The state entered or exited, when the event names one. */
  state: z.string().optional(),
  /** A failure event's error and cause. */
  error: z.string().optional(),
  cause: z.string().optional(),
});
export type RunEvent = z.infer<typeof runEventSchema>;

/** `GET /runs/{id}/events?limit=`: the newest `limit` events, oldest first. */
export const runEventsSchema = z.object({
  runId: runIdSchema,
  workflow: z.enum([RunWorkflows.optimization, RunWorkflows.asyncInference]),
  events: z.array(runEventSchema),
  /** Older events exist than the first one here. */
  truncated: z.boolean(),
});
export type RunEvents = z.infer<typeof runEventsSchema>;

export const RUN_EVENT_LIMITS = {
  defaultLimit: 200,
  /** One GetExecutionHistory page at most (its `maxResults` is at most 1,000). */
  maxLimit: 1000,
} as const;

/**
 * A report file's name, as the client saves it: a plain file name (the last segment of the
 * object's key, `report.html`), never a path. A name with a separator, `..` or a leading dot would
 * make the client write outside the folder it was given.
 */
export const REPORT_FILE_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$';

export const REPORT_FILE_NAME_EXPECTED =
  'a plain file name (a letter or digit, then letters, digits, ".", "-" or "_"; 255 at most), such as report.html';

export function isPlainFileName(name: string): boolean {
  return new RegExp(REPORT_FILE_NAME_PATTERN).test(name);
}

/** `GET /runs/{id}/report`: a presigned GET link for each report file. */
export const reportLinksSchema = z.object({
  runId: runIdSchema,
  workflow: z.enum([RunWorkflows.optimization, RunWorkflows.asyncInference]),
  /** ISO 8601: the links stop working then (or sooner, when the signing credentials expire). */
  expiresAt: z.string(),
  files: z.array(
    z.object({
      /** The file name to save it as, e.g. `report.html`. */
      name: z.string().regex(new RegExp(REPORT_FILE_NAME_PATTERN), { message: REPORT_FILE_NAME_EXPECTED }),
      /** Where it is: `s3://bucket/key`. */
      uri: z.string().min(1),
      /** A presigned HTTPS GET URL. */
      url: z.string().min(1),
    }),
  ),
});
export type ReportLinks = z.infer<typeof reportLinksSchema>;
