import { ErrorNames } from '../contracts/errors.js';
import type { Logger, ObjectStore } from '../ports.js';
import type { AsyncInferenceFailureCause, AsyncInferenceResult } from './handle-async-notification.js';
import type { AsyncRunPlan, BatchDescriptor } from './validate-async-run.js';

/**
 * "Load batch inputs" and "Record batch results": the two ends of one batch of the async workflow.
 * A batch's inputs come from the run's manifest (S3), and its per-input results go back to S3, so
 * the execution's state stays small whatever the number of inputs and the length of their URIs.
 */

export interface BatchItem {
  readonly itemIndex: number;
  readonly inputLocation: string;
}

interface Manifest {
  readonly runId: string;
  readonly items: readonly BatchItem[];
}

export interface LoadBatchEvent {
  readonly plan: Pick<AsyncRunPlan, 'manifestUri'>;
  readonly batch: BatchDescriptor;
}

export interface BatchDeps {
  readonly store: ObjectStore;
  readonly logger: Logger;
}

/** State "Load batch inputs": the batch's slice of the manifest. */
export async function loadBatch(event: LoadBatchEvent, deps: BatchDeps): Promise<readonly BatchItem[]> {
  const manifest = JSON.parse(
    new TextDecoder().decode(await deps.store.getBytes(event.plan.manifestUri)),
  ) as Manifest;
  const { firstItemIndex, itemCount } = event.batch;
  const items = manifest.items.slice(firstItemIndex, firstItemIndex + itemCount);
  if (items.length !== itemCount) {
    throw new TypeError(
      `Batch ${event.batch.batchIndex}: the manifest has ${items.length} items from index ${firstItemIndex}, expected ${itemCount}`,
    );
  }
  return items;
}

export const ItemStatuses = { completed: 'Completed', failed: 'Failed', timedOut: 'TimedOut' } as const;
export type ItemStatus = (typeof ItemStatuses)[keyof typeof ItemStatuses];

/** One input's outcome, as the summary lists it. */
export interface ItemResult {
  readonly itemIndex: number;
  readonly inputLocation: string;
  readonly status: ItemStatus;
  readonly inferenceId?: string;
  readonly outputLocation?: string;
  readonly failureLocation?: string;
  readonly failureReason?: string;
  /** Where the notification kept a failure reason too long for the state (its whole text is in `failureReason`). */
  readonly failureReasonUri?: string;
  /** SageMaker's receivedTime → eventTime (queue plus processing), when it says. */
  readonly timeInSageMakerMs: number | null;
  /** Invocation → resume, as the workflow saw it. */
  readonly totalMs: number | null;
  readonly invokedAtEpochMs?: number;
  readonly finishedAtEpochMs?: number;
}

/** What one iteration of "Invoke each input" ends with: the task's result, or the Catch's error. */
export type IterationOutput =
  | { readonly item: BatchItem; readonly result: AsyncInferenceResult }
  | { readonly item: BatchItem; readonly error: { readonly Error?: string; readonly Cause?: string } };

export interface RecordBatchEvent {
  readonly plan: Pick<AsyncRunPlan, 'runId' | 'runPrefixUri'>;
  readonly batch: BatchDescriptor;
  readonly results: readonly IterationOutput[];
}

export interface BatchCounts {
  readonly batchIndex: number;
  readonly completed: number;
  readonly failed: number;
  readonly timedOut: number;
}

export function batchResultsUri(runPrefixUri: string, batchIndex: number): string {
  return `${runPrefixUri}async/results/batch-${String(batchIndex).padStart(4, '0')}.json`;
}

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
