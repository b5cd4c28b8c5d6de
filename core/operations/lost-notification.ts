import type { AsyncInferenceFailureCause, AsyncInferenceResult } from '../contracts/index.js';
import type { ObjectStore } from '../ports/index.js';
import type { NewTaskTokenRecord } from '../async/index.js';

/**
 * A lost notification: SageMaker wrote the result (or the model's error response) but its SNS
 * notification never resumed the task (a topic policy or key changed, the notification Lambda's
 * retries ran out). SageMaker writes the output to the `OutputLocation` InvokeEndpointAsync
 * returned, and the model's error response to `FailureLocation` (SageMaker developer guide,
 * "Check prediction results": "Check for outputs in your Amazon S3 bucket"), so the heartbeat
 * sender looks there for each task that has waited longer than `lostNotificationAfterMs`, and
 * resumes it from what it finds, within a heartbeat round instead of the wait's timeout.
 *
 * Racing the notification is harmless: whichever resumes first wins, the other finds a task that
 * no longer waits (or a tombstone). The wait before looking only saves S3 requests for tasks whose
 * notification is still on its way.
 */

/**
 * How long a task waits before its output is looked for: SNS delivers to Lambda within seconds, so
 * two minutes without a notification means the result (if written) is not coming that way.
 */
export const LOST_NOTIFICATION_AFTER_MS = 2 * 60_000;

export type WrittenResult =
  | { readonly kind: 'success'; readonly output: AsyncInferenceResult }
  | { readonly kind: 'failure'; readonly cause: AsyncInferenceFailureCause };

/**
 * The result SageMaker wrote for `record`'s invocation, or `undefined`: none yet, the record does
 * not know where (its invocation had not returned), or it is too recent to look. One HeadObject for
 * the output, and one for the failure object when there is no output.
 */
export async function findWrittenResult(
  record: NewTaskTokenRecord,
  objects: ObjectStore,
  nowMs: number,
  lostNotificationAfterMs: number,
): Promise<WrittenResult | undefined> {
  if (record.outputLocation === undefined) return undefined;
  const waitedMs = nowMs - record.storedAtEpochMs;
  if (waitedMs < lostNotificationAfterMs) return undefined;
  const times = {
    totalMs: Math.max(0, waitedMs),
    invokedAtEpochMs: record.storedAtEpochMs,
    finishedAtEpochMs: nowMs,
  };

  if ((await objects.head(record.outputLocation)) !== undefined) {
    return {
      kind: 'success',
      output: {
        inferenceId: record.inferenceId,
        status: 'Completed',
        inputLocation: record.inputLocation,
        outputLocation: record.outputLocation,
        // The notification carried SageMaker's times; the object alone does not.
        timeInSageMakerMs: null,
        ...times,
      },
    };
  }
  if (record.failureLocation === undefined || (await objects.head(record.failureLocation)) === undefined) {
    return undefined;
  }
  return {
    kind: 'failure',
    cause: {
      inferenceId: record.inferenceId,
      invocationStatus: 'Failed',
      failureReason: `The model answered with an error, kept at ${record.failureLocation}; SageMaker's notification did not arrive, so the heartbeat sender found the failure object ${Math.round(waitedMs / 1000)} s after the invocation`,
      failureLocation: record.failureLocation,
      inputLocation: record.inputLocation,
      timeInSageMakerMs: null,
      ...times,
    },
  };
}
