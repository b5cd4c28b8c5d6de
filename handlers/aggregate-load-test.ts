import { s3Uri } from './contracts/object-uri.js';
import {
  type CandidateOutcome,
  CandidateStatuses,
  type DeploymentState,
  type WorkerOutcome,
} from './contracts/workflow-state.js';
import { aggregateWorkerResults, type LoadTestResult, type WorkerResult } from './load-test/index.js';
import type { Logger, ObjectStore } from './ports.js';
import type { RunPlan } from './validate-and-plan.js';

export interface AggregateLoadTestEvent {
  readonly plan: Pick<RunPlan, 'runId' | 'artifactsBucket' | 'loadPlan' | 'sla'>;
  readonly candidateId: string;
  readonly workers: readonly WorkerOutcome[];
  readonly deployment: Pick<DeploymentState, 'createdEpochMs'>;
}

export interface AggregateDeps {
  readonly store: ObjectStore;
  readonly logger: Logger;
}

export function loadTestResultKey(runId: string, candidateId: string): string {
  return `runs/${runId}/load-tests/${candidateId}/result.json`;
}

/**
 * State "Aggregate load test": merges the workers' histograms by addition (never averaging
 * percentiles), applies the SLA to the merged steps and stores the candidate's result.
 */
export async function aggregateLoadTest(
  event: AggregateLoadTestEvent,
  deps: AggregateDeps,
): Promise<CandidateOutcome> {
  const workerResults = await Promise.all(
    event.workers.map(
      async (worker) =>
        JSON.parse(new TextDecoder().decode(await deps.store.getBytes(worker.resultUri))) as WorkerResult,
    ),
  );
  const { plan } = event;
  const result: LoadTestResult = aggregateWorkerResults(workerResults, plan.sla, plan.loadPlan);
  const resultUri = s3Uri(plan.artifactsBucket, loadTestResultKey(plan.runId, event.candidateId));
  await deps.store.putBytes(resultUri, new TextEncoder().encode(JSON.stringify(result)), 'application/json');
  deps.logger.info('Load test aggregated', {
    candidateId: event.candidateId,
    sustainableTps: result.sustainableTps,
    stoppedBecause: result.stoppedBecause,
  });
  return {
    candidateId: event.candidateId,
    status: CandidateStatuses.measured,
    resultUri,
    sustainableTps: result.sustainableTps,
    ...(event.deployment.createdEpochMs === undefined
      ? {}
      : { endpointCreatedEpochMs: event.deployment.createdEpochMs }),
  };
}
