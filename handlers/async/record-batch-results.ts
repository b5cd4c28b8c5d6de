import {
  type AsyncInferenceFailureCause,
  type ItemResult,
  type ItemStatus,
  ItemStatuses,
  type IterationOutput,
  type BatchCounts,
  type RecordBatchEvent,
} from '../contracts/async-state.js';
import { ErrorNames } from '../contracts/errors.js';
import { type BatchDeps, batchResultsUri } from './batch-results.js';

/**
 * "Record batch results": the end of one batch of the async workflow. Its per-input results go to
 * S3 (batch-results.ts), so the execution's state stays small whatever the number of inputs.
 */

/** State "Record batch results": writes the batch's results to S3 and returns only its counts. */
export async function recordBatchResults(event: RecordBatchEvent, deps: BatchDeps): Promise<BatchCounts> {
  const results = await Promise.all(
    event.results.map((output) => withWholeReason(toItemResult(output), deps)),
  );
  await deps.store.putBytes(
    batchResultsUri(event.plan.runPrefixUri, event.batch.batchIndex),
    new TextEncoder().encode(JSON.stringify({ batchIndex: event.batch.batchIndex, results })),
    'application/json',
  );
  const count = (status: ItemStatus): number => results.filter((result) => result.status === status).length;
  const counts = {
    batchIndex: event.batch.batchIndex,
    completed: count(ItemStatuses.completed),
    failed: count(ItemStatuses.failed),
    timedOut: count(ItemStatuses.timedOut),
  };
  deps.logger.info('Batch recorded', { runId: event.plan.runId, ...counts });
  return counts;
}

/** The state carried a truncated failure reason: the results object gets the whole text back. */
async function withWholeReason(result: ItemResult, deps: BatchDeps): Promise<ItemResult> {
  if (result.failureReasonUri === undefined) return result;
  try {
    const text = new TextDecoder().decode(await deps.store.getBytes(result.failureReasonUri));
    return {
      ...result,
      failureReason: `${result.status === ItemStatuses.failed ? reasonPrefix(result) : ''}${text}`,
    };
  } catch (error) {
    // The truncated reason and its URI stay: the summary still says why the input failed.
    deps.logger.warn('Whole failure reason unreadable; the truncated one is kept', {
      itemIndex: result.itemIndex,
      failureReasonUri: result.failureReasonUri,
      error: error instanceof Error ? error.name : 'Error',
    });
    return result;
  }
}

/** `toItemResult` writes a failed input's reason as `<invocationStatus>: <reason>`. */
function reasonPrefix(result: ItemResult): string {
  const separator = result.failureReason?.indexOf(': ') ?? -1;
  return separator < 0 || result.failureReason === undefined
    ? ''
    : result.failureReason.slice(0, separator + 2);
}

/** Step Functions' own names for a task that ran past TimeoutSeconds or HeartbeatSeconds. */
const TIMEOUT_ERRORS: readonly string[] = ['States.Timeout', 'States.HeartbeatTimeout'];

export function toItemResult(output: IterationOutput): ItemResult {
  const { item } = output;
  if ('result' in output) {
    const { result } = output;
    return {
      itemIndex: item.itemIndex,
      inputLocation: item.inputLocation,
      status: ItemStatuses.completed,
      inferenceId: result.inferenceId,
      outputLocation: result.outputLocation,
      timeInSageMakerMs: result.timeInSageMakerMs,
      totalMs: result.totalMs,
      invokedAtEpochMs: result.invokedAtEpochMs,
      finishedAtEpochMs: result.finishedAtEpochMs,
    };
  }
  const errorName = output.error.Error ?? 'Error';
  const base = { itemIndex: item.itemIndex, inputLocation: item.inputLocation };
  if (TIMEOUT_ERRORS.includes(errorName)) {
    return {
      ...base,
      status: ItemStatuses.timedOut,
      failureReason: `${errorName}: no notification arrived before the wait's timeout`,
      timeInSageMakerMs: null,
      totalMs: null,
    };
  }
  const cause = errorName === ErrorNames.inferenceFailed ? parseFailureCause(output.error.Cause) : undefined;
  if (cause !== undefined) {
    return {
      ...base,
      status: ItemStatuses.failed,
      inferenceId: cause.inferenceId,
      failureReason: `${cause.invocationStatus}: ${cause.failureReason}`,
      ...(cause.failureReasonUri === undefined ? {} : { failureReasonUri: cause.failureReasonUri }),
      ...(cause.failureLocation === null ? {} : { failureLocation: cause.failureLocation }),
      timeInSageMakerMs: cause.timeInSageMakerMs,
      totalMs: cause.totalMs,
      invokedAtEpochMs: cause.invokedAtEpochMs,
      finishedAtEpochMs: cause.finishedAtEpochMs,
    };
  }
  return {
    ...base,
    status: ItemStatuses.failed,
    failureReason: `${errorName}: ${lambdaErrorMessage(output.error.Cause) ?? output.error.Cause ?? 'no cause given'}`,
    timeInSageMakerMs: null,
    totalMs: null,
  };
}

/**
 * A Lambda function's error reaches a Catch with, as its `Cause`, the runtime's error document:
 * JSON with `errorType`, `errorMessage` and (Node.js) the stack `trace`. The message is what the
 * summary's reader needs, not the stack.
 */
function lambdaErrorMessage(cause: string | undefined): string | undefined {
  if (cause === undefined || !cause.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(cause) as { errorMessage?: unknown };
    return typeof parsed.errorMessage === 'string' ? parsed.errorMessage : undefined;
  } catch {
    return undefined;
  }
}

function parseFailureCause(cause: string | undefined): AsyncInferenceFailureCause | undefined {
  if (cause === undefined) return undefined;
  try {
    const parsed = JSON.parse(cause) as Partial<AsyncInferenceFailureCause>;
    return typeof parsed.inferenceId === 'string' && typeof parsed.failureReason === 'string'
      ? (parsed as AsyncInferenceFailureCause)
      : undefined;
  } catch {
    return undefined;
  }
}
