import type { InvokeAsyncInferenceEvent } from '../../contracts/index.js';
import { InferenceIdInUseError, runToken } from '../../contracts/index.js';
import type { Logger } from '../../ports/index.js';
import type {
  AsyncInvocationReceipt,
  AsyncInvoker,
  NewTaskTokenRecord,
  TaskResumer,
  TaskTokenRecord,
  TaskTokenStore,
} from '../../async/index.js';

/**
 * State "Invoke async inference": a Lambda task with `.waitForTaskToken`. It stores the task token
 * under a deterministic `InferenceId`, then queues the input with `InvokeEndpointAsync`; the
 * execution waits until the notification Lambda resumes it with that token.
 *
 * Order matters: the token is stored before the invocation, so a notification cannot arrive for
 * an id that has no token yet.
 *
 * Retries. A retried attempt (the Lambda failed, or the wait timed out and the workflow retries)
 * derives the same id but carries a NEW token: Step Functions issues one per attempt. The previous
 * attempt's record is then overwritten only when that attempt is over, as Step Functions itself
 * says: a heartbeat with the previous token answers `TaskTimedOut`, `TaskDoesNotExist` or
 * `InvalidToken`. The overwrite is conditional on the record still holding the token that was
 * checked, so two writers cannot both win. A record without a token (a tombstone: the previous
 * attempt was resumed, e.g. with a failure the workflow retries) is over by definition. If the
 * previous token still waits, another live task owns the id (only a collision between runs can do
 * that) and the attempt fails with `InferenceIdInUseError` rather than steal its token.
 *
 * A retried attempt invokes again: SageMaker does not deduplicate by `InferenceId`. Once the call
 * returns, the record gets the invocation's `OutputLocation`/`FailureLocation` (a UUID SageMaker
 * picks per request): the notification Lambda resumes the task only with the notification of that
 * invocation, so an earlier attempt's (or an earlier run's, under a reused run id) is ignored, and
 * the heartbeat sender looks there for a result whose notification was lost.
 *
 * An endpoint that no longer exists fails the task with `EndpointFailedError`: the workflow does
 * not record it as a failed input but stops the run, so the remaining inputs are not invoked.
 */

export interface InvokeAsyncInferenceDeps {
  readonly store: TaskTokenStore;
  readonly resumer: TaskResumer;
  readonly invoker: AsyncInvoker;
  readonly logger: Logger;
  readonly nowEpochMs: () => number;
}

/**
 * How long a record outlives the wait: a Lambda retries an asynchronous invocation (SNS delivers
 * that way) for up to 6 hours (Lambda, "Asynchronous invocation", maximum event age), so a
 * redelivered notification still finds the tombstone and is counted as a duplicate.
 */
export const RECORD_GRACE_SECONDS = 6 * 3600;

/** `InferenceId`: 1–64 printable characters (SageMaker InvokeEndpointAsync reference). */
const INFERENCE_ID_MAX = 64;

/** The same run and item give the same id, so every attempt for an input shares it. */
export function deriveInferenceId(runId: string, itemIndex: number): string {
  if (!Number.isInteger(itemIndex) || itemIndex < 0) {
    throw new TypeError(`itemIndex: got ${itemIndex}, expected an integer of at least 0`);
  }
  const id = `mso-${runToken(runId)}-item-${itemIndex}`;
  if (id.length > INFERENCE_ID_MAX) {
    throw new TypeError(`itemIndex: got ${itemIndex}, which makes an InferenceId longer than 64 characters`);
  }
  return id;
}

export async function invokeAsyncInference(
  event: InvokeAsyncInferenceEvent,
  deps: InvokeAsyncInferenceDeps,
): Promise<AsyncInvocationReceipt> {
  const inferenceId = deriveInferenceId(event.runId, event.itemIndex);
  const nowMs = deps.nowEpochMs();
  const record: NewTaskTokenRecord = {
    inferenceId,
    taskToken: event.taskToken,
    runId: event.runId,
    itemIndex: event.itemIndex,
    inputLocation: event.inputLocation,
    endpointName: event.endpointName,
    storedAtEpochMs: nowMs,
    expiresAtEpochSeconds: Math.ceil(nowMs / 1000) + event.waitTimeoutSeconds + RECORD_GRACE_SECONDS,
  };
  const where = { inferenceId, runId: event.runId, itemIndex: event.itemIndex };

  await storeToken(record, deps, where);

  try {
    const receipt = await deps.invoker.invokeEndpointAsync({
      endpointName: event.endpointName,
      inputLocation: event.inputLocation,
      contentType: event.contentType,
      inferenceId,
      invocationTimeoutSeconds: event.invocationTimeoutSeconds,
      requestTtlSeconds: event.requestTtlSeconds,
    });
    deps.logger.info('Async inference queued', { ...where, outputLocation: receipt.outputLocation });
    await recordReceipt(record, receipt, deps, where);
    return receipt;
  } catch (error) {
    // Nothing was queued, so no notification will come: remove this attempt's token now rather
    // than leave it until its TTL. Best effort: the invocation error is what the workflow needs.
    await deps.store.deleteIfToken(inferenceId, event.taskToken).catch((cleanupError: unknown) => {
      deps.logger.warn('Could not delete the token of a failed invocation', {
        ...where,
        error: cleanupError instanceof Error ? cleanupError.name : String(cleanupError),
      });
    });
    throw error;
  }
}

/**
 * Best effort: the request is queued whatever happens here, and failing the task would only invoke
 * again. Without the receipt, the notification is matched by time and a lost one waits for the
 * wait's heartbeat or timeout. `changed`: the notification already resumed the task (a fast model).
 */
async function recordReceipt(
  record: NewTaskTokenRecord,
  receipt: AsyncInvocationReceipt,
  deps: InvokeAsyncInferenceDeps,
  where: Record<string, unknown>,
): Promise<void> {
  try {
    await deps.store.recordReceipt(record.inferenceId, record.taskToken, receipt);
  } catch (error) {
    deps.logger.warn('Could not store where the result will be written', {
      ...where,
      error: error instanceof Error ? error.name : String(error),
    });
  }
}

async function storeToken(
  record: NewTaskTokenRecord,
  deps: InvokeAsyncInferenceDeps,
  where: Record<string, unknown>,
): Promise<void> {
  const put = await deps.store.putIfAbsent(record);
  if (put.status === 'stored') return;

  const previous = put.existing;
  if (previous.taskToken === record.taskToken) {
    // The same attempt ran again (its token is already stored): invoking again is harmless.
    deps.logger.info('Task token already stored for this attempt', where);
    return;
  }
  await assertPreviousAttemptOver(previous, deps, where);

  const replaced = await deps.store.replace(record, previous);
  if (replaced.status === 'changed') {
    throw new InferenceIdInUseError(
      `InferenceId ${record.inferenceId}: its record changed while this attempt replaced it, expected only this attempt to write it; another task is using the same id`,
      where,
    );
  }
  deps.logger.info('Task token of a previous attempt replaced', where);
}

async function assertPreviousAttemptOver(
  previous: TaskTokenRecord,
  deps: InvokeAsyncInferenceDeps,
  where: Record<string, unknown>,
): Promise<void> {
  if (previous.taskToken === undefined) return;
  const heartbeat = await deps.resumer.sendTaskHeartbeat(previous.taskToken);
  if (heartbeat.status === 'delivered') {
    throw new InferenceIdInUseError(
      `InferenceId ${previous.inferenceId} belongs to a task that is still waiting (run ${previous.runId}, item ${previous.itemIndex}), expected a finished previous attempt; its token is left in place`,
      { ...where, ownerRunId: previous.runId, ownerItemIndex: previous.itemIndex },
    );
  }
  deps.logger.info('Previous attempt is over', { ...where, reason: heartbeat.reason });
}
