/**
 * Ports of the async-inference workflow. AWS adapters live in `lambdas/adapters/` (DynamoDB, Step
 * Functions, SageMaker runtime); local ones will live in `local/adapters/`.
 *
 * A task token is a secret: whoever holds it can resume the execution. It goes into the store and
 * to Step Functions, never into a log line, an error message or a state's output.
 */

/** One waiting task, keyed by the `InferenceId` SageMaker echoes in its notification. */
export interface TaskTokenRecord {
  readonly inferenceId: string;
  /** Absent once the notification Lambda has used it: the record stays as a tombstone. */
  readonly taskToken?: string;
  readonly runId: string;
  readonly itemIndex: number;
  readonly inputLocation: string;
  /** The endpoint invoked: the heartbeat sender checks it is still alive. Absent in old records. */
  readonly endpointName?: string;
  /**
   * Where SageMaker said it will write this invocation's result and failure (InvokeEndpointAsync's
   * `OutputLocation`, `FailureLocation`), stored once the call returned. They tie a notification
   * to the invocation it reports, and let the heartbeat sender look for a result whose
   * notification was lost. Absent until the invocation returned, and in old records.
   */
  readonly outputLocation?: string;
  readonly failureLocation?: string;
  /** When the invoke step stored the token, just before calling InvokeEndpointAsync. */
  readonly storedAtEpochMs: number;
  /** When the notification Lambda resumed the task (set together with the token's removal). */
  readonly resumedAtEpochMs?: number;
  /** DynamoDB TTL: the table deletes the record some time after this instant. */
  readonly expiresAtEpochSeconds: number;
}

/** A record about to be stored: it always carries a token. */
export type NewTaskTokenRecord = TaskTokenRecord & { readonly taskToken: string };

export type PutOutcome =
  { readonly status: 'stored' } | { readonly status: 'exists'; readonly existing: TaskTokenRecord };

/** `changed`: the record no longer holds the token the caller expected (someone wrote in between). */
export type ConditionalOutcome = { readonly status: 'done' } | { readonly status: 'changed' };

export interface TaskTokenStore {
  /** Stores the record unless one exists for the id (a conditional put); then returns it. */
  putIfAbsent(record: NewTaskTokenRecord): Promise<PutOutcome>;
  /**
   * Overwrites `previous` with `record`, on condition that the stored record still holds
   * `previous.taskToken` (or still holds no token, for a tombstone).
   */
  replace(record: NewTaskTokenRecord, previous: TaskTokenRecord): Promise<ConditionalOutcome>;
  /** A strongly consistent read; `undefined` when no record has that id. */
  get(inferenceId: string): Promise<TaskTokenRecord | undefined>;
  /**
   * Deletes the token after use and keeps the record as a tombstone until its TTL, so a
   * redelivered notification is told apart from an unknown id. Conditional on the token.
   */
  consumeToken(inferenceId: string, taskToken: string, resumedAtEpochMs: number): Promise<ConditionalOutcome>;
  /** Deletes the record, on condition that it still holds `taskToken`. */
  deleteIfToken(inferenceId: string, taskToken: string): Promise<ConditionalOutcome>;
  /**
   * Adds the invocation's output and failure locations to the record, on condition that it still
   * holds `taskToken` (`changed`: the task was already resumed, or a newer attempt took the id).
   */
  recordReceipt(
    inferenceId: string,
    taskToken: string,
    receipt: AsyncInvocationReceipt,
  ): Promise<ConditionalOutcome>;
  /** Every record that still holds a token (a task waiting for its notification), in any order. */
  listWaiting(): AsyncIterable<NewTaskTokenRecord>;
}

/**
 * Why Step Functions refused a token: the task timed out, its execution ended, or the token is not
 * one it issued (SendTaskSuccess/SendTaskFailure/SendTaskHeartbeat error types).
 */
export const TaskGoneReasons = ['TaskTimedOut', 'TaskDoesNotExist', 'InvalidToken'] as const;
export type TaskGoneReason = (typeof TaskGoneReasons)[number];

/** `delivered`: Step Functions accepted the call; `task-gone`: the task no longer waits. */
export type TaskCallOutcome =
  { readonly status: 'delivered' } | { readonly status: 'task-gone'; readonly reason: TaskGoneReason };

/**
 * Resumes waiting tasks. A task that no longer waits is an outcome, not an error; throttling
 * surfaces as `TransientServiceError`.
 */
export interface TaskResumer {
  sendTaskSuccess(taskToken: string, output: Readonly<Record<string, unknown>>): Promise<TaskCallOutcome>;
  sendTaskFailure(taskToken: string, error: string, cause: string): Promise<TaskCallOutcome>;
  /** Also tells whether a task still waits, without changing it. */
  sendTaskHeartbeat(taskToken: string): Promise<TaskCallOutcome>;
}

export interface AsyncInvocationRequest {
  readonly endpointName: string;
  readonly inputLocation: string;
  readonly contentType: string;
  readonly inferenceId: string;
  readonly invocationTimeoutSeconds: number;
  /** `RequestTTLSeconds`: how long the request may wait in SageMaker's queue. */
  readonly requestTtlSeconds: number;
}

export interface AsyncInvocationReceipt {
  readonly inferenceId: string;
  /** Where SageMaker will write the result. */
  readonly outputLocation: string;
  /** Where SageMaker will write the model's error response, when the endpoint has a failure path. */
  readonly failureLocation?: string;
}

/**
 * SageMaker `InvokeEndpointAsync`: queues one request; throttling surfaces as `TransientServiceError`,
 * an endpoint that no longer exists as `EndpointFailedError` (the workflow stops the run on it).
 */
export interface AsyncInvoker {
  invokeEndpointAsync(request: AsyncInvocationRequest): Promise<AsyncInvocationReceipt>;
}

/** One question to IAM's policy simulator: may the principal call `action` on each resource? */
export interface PolicyCheck {
  readonly action: string;
  readonly resourceArns: readonly string[];
  /** Request context the policies' conditions read, e.g. `kms:ViaService`. */
  readonly context?: Readonly<Record<string, string>>;
}

export interface DeniedAction {
  readonly action: string;
  readonly resourceArn: string;
  /** IAM's `EvalDecision`: `implicitDeny` (nothing allows it) or `explicitDeny`. */
  readonly decision: string;
}

/**
 * `simulated`: IAM evaluated every check (`denied` lists what it does not allow); `unavailable`:
 * the simulation itself could not run (denied to us, throttled, …), with the reason.
 */
export type PolicySimulation =
  | { readonly status: 'simulated'; readonly denied: readonly DeniedAction[] }
  | { readonly status: 'unavailable'; readonly reason: string };

/** IAM `SimulatePrincipalPolicy`: what a role's policies allow, without calling anything. */
export interface PolicySimulator {
  simulate(principalArn: string, checks: readonly PolicyCheck[]): Promise<PolicySimulation>;
}

/** The execution role an endpoint's model runs as (DescribeEndpointConfig → DescribeModel). */
export interface EndpointRoleReader {
  /** `undefined` when the endpoint, its config or its model cannot be found. */
  executionRoleOf(endpointName: string): Promise<string | undefined>;
}
