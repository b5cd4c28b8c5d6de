/**
 * Errors of the run API client, with literal names so callers can branch on `error.name`. They say
 * what was called, the HTTP status, the API's error code and its message.
 */

export const ClientErrorNames = {
  runApi: 'RunApiError',
  runAlreadyExists: 'RunAlreadyExistsError',
  runNotFound: 'RunNotFoundError',
  waitTimedOut: 'RunWaitTimeoutError',
} as const;

/** Any answer of the API other than success, or a success whose body is not what the API promises. */
export class RunApiError extends Error {
  override readonly name: string = ClientErrorNames.runApi;
  /** The HTTP status, or 0 when no answer came back (network error, timeout). */
  readonly status: number;
  /** The API's error code (`RunAlreadyExists`, `InvalidRequest`, …), when the body carries one. */
  readonly code: string | undefined;

  constructor(message: string, status: number, code?: string, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
    this.code = code;
  }
}

/**
 * 409: the run id is taken. Step Functions accepts a name again only while that execution is
 * RUNNING with the same input (a retry then gets the same run); otherwise it refuses it for 90 days.
 */
export class RunAlreadyExistsError extends RunApiError {
  override readonly name = ClientErrorNames.runAlreadyExists;
  readonly runId: string;

  constructor(runId: string, apiMessage: string, code?: string) {
    super(
      `Run "${runId}" already exists with another input, or has already ended: run ids are execution ` +
        `names and cannot be reused for 90 days. Read its status (\`status ${runId}\`) or choose another ` +
        `run id. The API said: ${apiMessage}`,
      409,
      code,
    );
    this.runId = runId;
  }
}

/** 404: no run by that id in that workflow. */
export class RunNotFoundError extends RunApiError {
  override readonly name = ClientErrorNames.runNotFound;
  readonly runId: string;

  constructor(runId: string, apiMessage: string, code?: string) {
    super(`No run "${runId}": ${apiMessage}`, 404, code);
    this.runId = runId;
  }
}

/** `waitForRun` gave up before the run ended; the run itself goes on. */
export class RunWaitTimeoutError extends Error {
  override readonly name = ClientErrorNames.waitTimedOut;
  readonly runId: string;
  readonly lastStatus: string;

  constructor(runId: string, waitedSeconds: number, lastStatus: string) {
    super(
      `Run "${runId}" was still ${lastStatus} after waiting ${waitedSeconds} s, expected it to end sooner: ` +
        'the run goes on; wait longer (timeoutSeconds) or read its status later',
    );
    this.runId = runId;
    this.lastStatus = lastStatus;
  }
}
