import type { ExecutionStatus, RunWorkflow } from '../contracts/index.js';

/**
 * What the status of a run needs from Step Functions: the execution's description and its history,
 * newest first. The AWS adapter is `lambdas/adapters/sfn-execution-reader.ts`.
 */

/** A run of one of the workflows: the run id is the execution name. */
export interface RunRef {
  readonly workflow: RunWorkflow;
  readonly runId: string;
}

/** DescribeExecution, reduced to what a run's status shows. */
export interface ExecutionDescription {
  readonly executionArn: string;
  readonly status: ExecutionStatus;
  readonly startDate: Date;
  readonly stopDate?: Date;
  /** The execution's output (JSON text), once it SUCCEEDED. */
  readonly output?: string;
  /** The error and cause a FAILED, TIMED_OUT or ABORTED execution ended with. */
  readonly error?: string;
  readonly cause?: string;
}

/**
 * One history event, reduced to what progress is computed from (GetExecutionHistory `HistoryEvent`,
 * Step Functions API reference). Execution data (inputs, outputs) is never read.
 */
export interface HistoryEventView {
  /** Events are numbered from 1 in the order they happened. */
  readonly id: number;
  readonly previousEventId?: number;
  /** The event type, e.g. `TaskStateEntered`, `MapIterationSucceeded`. */
  readonly type: string;
  /** `…StateEntered` events: the state's name (`stateEnteredEventDetails.name`). */
  readonly enteredState?: string;
  /** `MapIteration…` events: the name of the iteration's Map state (`mapIterationEventDetails.name`). */
  readonly mapIterationOf?: string;
  /** `MapStateStarted`: how many items the Map iterates over (`mapStateStartedEventDetails.length`). */
  readonly mapItemCount?: number;
}

export interface ExecutionReader {
  /** The run's execution, or `undefined` when Step Functions has none by that name. */
  describe(run: RunRef): Promise<ExecutionDescription | undefined>;
  /**
   * The run's history events, newest first. Pages are fetched as the consumer iterates, so a
   * consumer that stops early (breaks out of its loop) reads no further page.
   */
  newestEvents(run: RunRef): AsyncIterable<HistoryEventView>;
}

/**
 * What starting a run needs from Step Functions (StartExecution). The AWS adapter is
 * `lambdas/adapters/sfn-run-starter.ts`; it sorts the service's answers into these outcomes so
 * the API can answer with the right status.
 */
export interface RunStarter {
  start(request: {
    readonly workflow: RunWorkflow;
    /** The execution name: the run id. */
    readonly name: string;
    /** The run input, passed on as the user wrote it (the first state parses it again). */
    readonly input: unknown;
  }): Promise<RunStartOutcome>;
}

export type RunStartOutcome =
  | { readonly status: 'started'; readonly executionArn: string; readonly startDate: Date }
  /** ExecutionAlreadyExists: the name is taken by an ended run, or by a running one with another input. */
  | { readonly status: 'name-taken'; readonly message: string }
  /** ExecutionLimitExceeded or throttling: retry later with the same name. */
  | { readonly status: 'throttled'; readonly message: string }
  /** A 5xx or a network failure: retry with the same name. */
  | { readonly status: 'unavailable'; readonly message: string }
  /** Any other refusal (access denied, no such state machine, invalid input): the deployment is wrong. */
  | { readonly status: 'refused'; readonly error: string; readonly message: string };

/** One execution as ListExecutions lists it. */
export interface ListedExecution {
  /** The execution name: the run id. */
  readonly name: string;
  readonly executionArn: string;
  readonly status: ExecutionStatus;
  readonly startDate: Date;
  readonly stopDate?: Date;
}

/** What `GET /runs` needs from Step Functions (ListExecutions). AWS adapter: `lambdas/adapters/sfn-run-lister.ts`. */
export interface RunLister {
  /**
   * The workflow's executions, newest first, that match `status` and started at or after `since`;
   * at most `limit` of them, `truncated` when more matched.
   */
  list(request: {
    readonly workflow: RunWorkflow;
    readonly status?: ExecutionStatus;
    readonly since?: Date;
    readonly limit: number;
  }): Promise<{ readonly executions: readonly ListedExecution[]; readonly truncated: boolean }>;
}

/** What `POST /runs/{id}/stop` needs from Step Functions (StopExecution). AWS adapter: `lambdas/adapters/sfn-run-stopper.ts`. */
export interface RunStopper {
  /** Stops the run's execution with this error and cause; returns when Step Functions stopped it. */
  stop(
    run: RunRef,
    reason: { readonly error: string; readonly cause: string },
  ): Promise<{ readonly stopDate: Date }>;
}

/** One history event with what a progress line shows (GetExecutionHistory `HistoryEvent`). */
export interface HistoryEventLine {
  readonly id: number;
  readonly timestamp: Date;
  readonly type: string;
  /** The state a `…StateEntered`/`…StateExited` event names. */
  readonly state?: string;
  /** The error and cause of a failure, time-out or abort event. */
  readonly error?: string;
  readonly cause?: string;
}

/** What `GET /runs/{id}/events` needs (GetExecutionHistory). AWS adapter: `lambdas/adapters/sfn-run-events.ts`. */
export interface RunEventReader {
  /** The run's newest `limit` events, newest first; `undefined` when the run does not exist. */
  newest(
    run: RunRef,
    limit: number,
  ): Promise<{ readonly events: readonly HistoryEventLine[]; readonly truncated: boolean } | undefined>;
}

/** What `GET /runs/{id}/report` needs: a presigned GET URL of an object. AWS adapter: `lambdas/adapters/s3-presigner.ts`. */
export interface ObjectPresigner {
  /** A URL that GETs `uri` (`s3://bucket/key`) without credentials for `expiresInSeconds`. */
  presignGet(uri: string, expiresInSeconds: number): Promise<string>;
}
