/**
 * What a Catch keeps of a failed state (`resultPath: '$.error'`): `{ Error, Cause }`, the same in
 * both workflows, and the one way to say it in a sentence (the report, a skipped candidate's reason,
 * the local CLI's progress lines).
 */
export interface CaughtError {
  readonly Error?: string;
  readonly Cause?: string;
}

/** Lambda errors reach a Catch as `{ Error, Cause }` where Cause is JSON `{ errorType, errorMessage }`. */
export function failureReasonOf(error: CaughtError | undefined): string {
  if (error === undefined) return 'failed without an error';
  const name = error.Error ?? 'Error';
  try {
    const cause = JSON.parse(error.Cause ?? '') as { errorMessage?: unknown };
    if (typeof cause.errorMessage === 'string') return `${name}: ${cause.errorMessage}`;
  } catch {
    // Not JSON: a service or States.* error whose Cause is plain text.
  }
  return error.Cause === undefined || error.Cause === '' ? name : `${name}: ${error.Cause}`;
}
