import type { BatchItem, LoadBatchEvent } from '../../contracts/index.js';
import type { BatchDeps } from '../../async/index.js';

/**
 * "Load batch inputs": the start of one batch of the async workflow. A batch's inputs come from
 * the run's manifest (S3, written by "Validate async run"), so the execution's state stays small
 * whatever the number of inputs and the length of their URIs.
 */

/** The manifest "Validate async run" writes: one item per request sent. */
interface Manifest {
  readonly runId: string;
  readonly items: readonly BatchItem[];
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
