import type { AsyncRunPlan, ItemResult, CompletedWork } from '../contracts/index.js';
import { ItemStatuses, describeError } from '../contracts/index.js';
import type { ObjectStore } from '../ports/index.js';
import { batchResultsUri } from './batch-results.js';

/**
 * What a failed async run completed, and where: the results of the batches that "Record batch
 * results" wrote before the failure (one file per batch, each input's status and its output's S3
 * location). A batch still in flight when the run failed recorded nothing: its inputs that did
 * complete have their output where SageMaker wrote it, unnamed here. Read by "Clean up after
 * failure", whose account goes into the run's cause with it; a read that fails is said in the
 * message, never thrown, so that clean-up still runs.
 */
export async function completedResults(
  plan: Pick<AsyncRunPlan, 'runPrefixUri' | 'itemCount' | 'batches'>,
  store: Pick<ObjectStore, 'getBytes' | 'list'>,
): Promise<CompletedWork> {
  try {
    const expected = new Set(
      plan.batches.map((batch) => batchResultsUri(plan.runPrefixUri, batch.batchIndex)),
    );
    const listed = await store.list(`${plan.runPrefixUri}async/results/`, plan.batches.length + 1);
    const recorded = listed.uris.filter((uri) => expected.has(uri));
    const items: ItemResult[] = [];
    for (const uri of recorded) {
      const parsed = JSON.parse(new TextDecoder().decode(await store.getBytes(uri))) as {
        readonly results?: readonly ItemResult[];
      };
      items.push(...(parsed.results ?? []));
    }
    return { message: describeCompleted(plan, recorded.length, items), locations: recorded };
  } catch (error) {
    return {
      message: `The results recorded before the failure could not be read (${describeError(error)}); each batch's are under ${plan.runPrefixUri}async/results/.`,
      locations: [],
    };
  }
}

function describeCompleted(
  plan: Pick<AsyncRunPlan, 'itemCount' | 'batches'>,
  recordedBatches: number,
  items: readonly ItemResult[],
): string {
  const count = (status: string): number => items.filter((item) => item.status === status).length;
  const inputs = (n: number): string => `${n} input${n === 1 ? '' : 's'}`;
  if (recordedBatches === 0) {
    return `No batch recorded its results before the failure: none of the ${inputs(plan.itemCount)} has a recorded result.`;
  }
  const unrecorded = plan.itemCount - items.length;
  return [
    `Before the failure, ${recordedBatches} of ${plan.batches.length} batches recorded their results: ${inputs(items.length)} of ${plan.itemCount},`,
    `${count(ItemStatuses.completed)} completed, ${count(ItemStatuses.failed)} failed, ${count(ItemStatuses.timedOut)} timed out`,
    `(each input's status and output location are in the batch files listed).`,
    unrecorded === 0
      ? ''
      : `The other ${inputs(unrecorded)} have no recorded result (one that completed has its output at the endpoint's S3 output path).`,
  ]
    .filter((part) => part !== '')
    .join(' ');
}
