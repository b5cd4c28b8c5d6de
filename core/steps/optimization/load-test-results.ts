import { s3Uri } from '../../contracts/index.js';
import type { RunPlan } from '../../contracts/index.js';
import type { WorkerResult } from '../../load-test/index.js';
import type { ObjectStore } from '../../ports/index.js';

/** Where "Aggregate load test" keeps a candidate's merged result (and failed-run clean-up looks for it). */
export function loadTestResultKey(runId: string, candidateId: string): string {
  return `runs/${runId}/load-tests/${candidateId}/result.json`;
}

/**
 * Where the load workers' results are kept, one object per worker and segment: "Run load worker"
 * writes them and reads its own earlier segments to resume; "Aggregate load test" reads them all.
 */
export function workerResultKey(
  runId: string,
  candidateId: string,
  workerIndex: number,
  segmentIndex: number,
): string {
  return `runs/${runId}/load-tests/${candidateId}/worker-${workerIndex}/segment-${segmentIndex}.json`;
}

export function workerResultUri(
  plan: Pick<RunPlan, 'runId' | 'artifactsBucket'>,
  candidateId: string,
  workerIndex: number,
  segmentIndex: number,
): string {
  return s3Uri(plan.artifactsBucket, workerResultKey(plan.runId, candidateId, workerIndex, segmentIndex));
}

/** Where a worker's result of one round (knee probe or repeat, load-test/rounds.ts) is kept. */
export function roundResultUri(
  plan: Pick<RunPlan, 'runId' | 'artifactsBucket'>,
  candidateId: string,
  workerIndex: number,
  roundIndex: number,
): string {
  return s3Uri(
    plan.artifactsBucket,
    `runs/${plan.runId}/load-tests/${candidateId}/worker-${workerIndex}/round-${roundIndex}.json`,
  );
}

export async function readWorkerResult(store: ObjectStore, uri: string): Promise<WorkerResult> {
  return JSON.parse(new TextDecoder().decode(await store.getBytes(uri))) as WorkerResult;
}

/** One worker's results of segments 0 … count − 1, in order. */
export function readWorkerSegments(
  store: ObjectStore,
  plan: Pick<RunPlan, 'runId' | 'artifactsBucket'>,
  candidateId: string,
  workerIndex: number,
  count: number,
): Promise<WorkerResult[]> {
  return Promise.all(
    Array.from({ length: count }, (_, segment) =>
      readWorkerResult(store, workerResultUri(plan, candidateId, workerIndex, segment)),
    ),
  );
}
