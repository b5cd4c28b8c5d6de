import {
  type AsyncInferenceFailureCause,
  type ItemResult,
  type ItemStatus,
  ItemStatuses,
  type IterationOutput,
  type BatchCounts,
  type RecordBatchEvent,
  describeError,
  ErrorNames,
  TransientServiceError,
} from '../../contracts/index.js';
import { type BatchDeps, batchResultsUri, generatedTokensOf } from '../../async/index.js';

/**
 * "Record batch results": the end of one batch of the async workflow. Its per-input results go to
 * S3 (batch-results.ts), so the execution's state stays small whatever the number of inputs.
 */

/** State "Record batch results": writes the batch's results to S3 and returns only its counts. */
export async function recordBatchResults(event: RecordBatchEvent, deps: BatchDeps): Promise<BatchCounts> {
  const results = await Promise.all(
    event.results.map(async (output) =>
      withTokens(await withWholeReason(toItemResult(output), deps), event, deps),
    ),
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

/**
 * The most of one result read to count its tokens. A generated answer is text of a few KB to a few
 * hundred KB; a larger object is not an answer the formats describe, and a batch reads up to 40
 * results at once in a Lambda of modest memory.
 */
export const MAX_TOKEN_COUNT_READ_BYTES = 1024 * 1024;

/** A generative run's completed result, with the token counts its container wrote, or why none. */
async function withTokens(result: ItemResult, event: RecordBatchEvent, deps: BatchDeps): Promise<ItemResult> {
  const format = event.plan.generative?.format;
  if (
    format === undefined ||
    result.status !== ItemStatuses.completed ||
    result.outputLocation === undefined
  ) {
    return result;
  }
  const uncounted = (tokensNote: string): ItemResult => ({ ...result, tokensNote });
  try {
    const metadata = await deps.store.head(result.outputLocation);
    if (metadata === undefined) return uncounted('the output object is gone: nothing to count');
    if (metadata.sizeBytes > MAX_TOKEN_COUNT_READ_BYTES) {
      return uncounted(
        `the output is ${metadata.sizeBytes} bytes, more than the ${MAX_TOKEN_COUNT_READ_BYTES} read to count tokens`,
      );
    }
    const tokens = generatedTokensOf(format, await deps.store.getBytes(result.outputLocation));
    if (!tokens.counted) return uncounted(tokens.reason);
    return {
      ...result,
      outputTokens: tokens.outputTokens,
      ...(tokens.inputTokens === undefined ? {} : { inputTokens: tokens.inputTokens }),
    };
  } catch (error) {
    // A throttled read fails the state, whose retries read again; any other failure leaves this
    // one result uncounted, with the reason, rather than lose the batch's results.
    if (error instanceof TransientServiceError) throw error;
    deps.logger.warn('Output unreadable for its token count', {
      itemIndex: result.itemIndex,
      outputLocation: result.outputLocation,
      error: error instanceof Error ? error.name : 'Error',
    });
    return uncounted(`the output could not be read: ${describeError(error)}`);
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
