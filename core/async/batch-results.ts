import type { Logger, ObjectStore } from '../ports/index.js';

/**
 * Where a batch's per-input results live: "Record batch results" writes them there and "Summarize
 * async run" reads them back, so the execution's state carries only each batch's counts.
 */

/** What the batch steps ("Load batch inputs", "Record batch results") run on. */
export interface BatchDeps {
  readonly store: ObjectStore;
  readonly logger: Logger;
}

/** The S3 object of one batch's `ItemResult`s, under the run's prefix. */
export function batchResultsUri(runPrefixUri: string, batchIndex: number): string {
  return `${runPrefixUri}async/results/batch-${String(batchIndex).padStart(4, '0')}.json`;
}
