/**
 * Errors as the engine sees them. The engine matches `Retry`/`Catch` `ErrorEquals` on `error.name`
 * and builds the Catch output as `{ Error: error.name, Cause: error.message }`; it reads the
 * optional `isRetryable`/`isCatchable` flags (default true).
 */
export class TaskFailedError extends Error {
  override readonly name: string;

  constructor(name: string, cause: string) {
    super(cause);
    this.name = name;
  }
}

/** Not retryable nor catchable: fails the execution, as on AWS. */
abstract class TerminalError extends Error {
  readonly isRetryable = false;
  readonly isCatchable = false;
}

/**
 * A state output above 256 KiB (https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html,
 * "Maximum input or output size for a task, state, or execution"). On AWS `States.ALL` does not
 * catch it; here it cannot be caught at all, which fails loudly rather than hiding the bug.
 */
export class DataLimitExceededError extends TerminalError {
  override readonly name = 'States.DataLimitExceeded';
}

/** Thrown into a Task the engine keeps running after the execution was aborted or ended. */
export class ExecutionStoppedError extends TerminalError {
  override readonly name = 'ExecutionStopped';

  constructor(stateName: string) {
    super(`Task "${stateName}" was not run: the execution was stopped`);
  }
}

/**
 * How Step Functions reports an error thrown by a Lambda function: the error name, and as Cause
 * the JSON the Node.js runtime writes (`{"errorType","errorMessage","trace"}`), e.g.
 * `{"Error":"EndpointFailedError","Cause":"{\"errorType\":\"EndpointFailedError\",...}"}`
 * (https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html).
 */
export function lambdaFunctionError(thrown: unknown): TaskFailedError {
  const { name, message, stack } = describeThrown(thrown);
  const cause = JSON.stringify({
    errorType: name,
    errorMessage: message,
    trace: stack?.split('\n') ?? [],
  });
  return new TaskFailedError(name, cause);
}

/** An error of a service integration (aws-sdk and others): its name, and its message as Cause. */
export function serviceError(thrown: unknown): TaskFailedError {
  const { name, message } = describeThrown(thrown);
  return new TaskFailedError(name, message);
}

function describeThrown(thrown: unknown): { name: string; message: string; stack?: string } {
  if (thrown instanceof Error) {
    return { name: thrown.name, message: thrown.message, ...(thrown.stack ? { stack: thrown.stack } : {}) };
  }
  // As the Node.js runtime reports a thrown non-Error (its Errors.js toRapidResponse): errorType is
  // `typeof` the value and errorMessage its string form.
  return { name: typeof thrown, message: String(thrown) };
}
