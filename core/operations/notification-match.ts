import type { InferenceNotification, TaskTokenRecord } from '../async/index.js';

/**
 * Whether a notification reports the invocation a waiting record made, or an earlier one under the
 * same `InferenceId`: a previous attempt of the same input, or a run of the same name before (a
 * redriven execution keeps its name, a local run id can be reused). SNS and Lambda deliver at least
 * once, so such a notification can arrive late and must not resume the task waiting now.
 *
 * Evidence, strongest first:
 * - the locations: InvokeEndpointAsync answers with the `OutputLocation`/`FailureLocation` of that
 *   request (an object named by a fresh UUID: SageMaker API reference and the published
 *   notifications), and the notification names the same objects; the record has them once the
 *   call returned. Compared by object name, the per-request part, whatever form of S3 URI either
 *   side uses;
 * - the endpoint: the record names the endpoint it invoked, the notification its `endpointName`,
 *   compared without case, so that a difference of case alone never leaves a task waiting;
 * - the time: SageMaker's `receivedTime` before the record was stored (just before the call)
 *   belongs to an earlier call. Used when the record has no locations yet (the notification of a
 *   fast model can arrive before the invoke step stored them).
 */

/** Clocks of Lambda and SageMaker may differ by this much; an earlier run's call is far older. */
export const CLOCK_SKEW_TOLERANCE_MS = 1_000;

/** Why the notification is of an earlier invocation, or `undefined` when it is this record's. */
export function earlierInvocationReason(
  notification: InferenceNotification,
  record: TaskTokenRecord,
): string | undefined {
  const [name, reported, expected] =
    notification.outcome === 'completed'
      ? ['outputLocation', notification.outputLocation, record.outputLocation]
      : ['failureLocation', notification.failureLocation, record.failureLocation];
  if (reported !== undefined && expected !== undefined && objectName(reported) !== objectName(expected)) {
    return `its ${name} is ${reported}, expected ${expected} (this attempt's)`;
  }
  if (
    notification.endpointName !== undefined &&
    record.endpointName !== undefined &&
    notification.endpointName.toLowerCase() !== record.endpointName.toLowerCase()
  ) {
    return `its endpoint is ${notification.endpointName}, expected ${record.endpointName}`;
  }
  const received = notification.receivedAtEpochMs;
  if (
    received !== undefined &&
    (expected === undefined || reported === undefined) &&
    received < record.storedAtEpochMs - CLOCK_SKEW_TOLERANCE_MS
  ) {
    return `SageMaker received its request at ${new Date(received).toISOString()}, before this attempt stored its token at ${new Date(record.storedAtEpochMs).toISOString()}`;
  }
  return undefined;
}

/** The last segment of an S3 URI (`s3://bucket/prefix/<uuid>.out` → `<uuid>.out`). */
function objectName(uri: string): string {
  return uri.slice(uri.lastIndexOf('/') + 1);
}
