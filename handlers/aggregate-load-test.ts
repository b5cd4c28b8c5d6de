import { s3Uri } from './contracts/object-uri.js';
import {
  type AggregateLoadTestEvent,
  type CandidateOutcome,
  CandidateStatuses,
} from './contracts/optimization-state.js';
import {
  aggregateWorkerResults,
  describeLateWorkers,
  lateWorkers,
  type LoadTestResult,
  type WorkerResult,
} from './load-test/index.js';
import type { Logger, ObjectStore } from './ports.js';

export interface AggregateDeps {
  readonly store: ObjectStore;
  readonly logger: Logger;
}

export function loadTestResultKey(runId: string, candidateId: string): string {
  return `runs/${runId}/load-tests/${candidateId}/result.json`;
}

/**
 * State "Aggregate load test": merges the workers' histograms by addition (never averaging
 * percentiles), applies the SLA to the merged steps and stores the candidate's result. The
 * endpoint's instance type, count and variant, as "Check endpoint" found them, go on to the report.
 *
 * A worker that started late (load-test/late-start.ts) makes the figures describe less load than
 * the steps state, so they say nothing about the endpoint: the first time, the outcome is RERUN
 * (the workflow runs the load test once more, from a new shared start); on the re-run, or at once
 * when the plan has no room for re-runs (`loadTestReruns` 0), it is MEASUREMENT_PROBLEM with the
 * reason, which the report shows instead of an SLA verdict.
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
  const { createdEpochMs, instanceType, instanceCount, variantName } = event.deployment;
  const late = lateWorkers(workerResults, plan.loadPlan);
  const rerun = event.deployment.loadTestRerun === true;
  const canRerun = !rerun && (plan.loadTestReruns ?? 1) > 0;
  const measurementProblem =
    late.length === 0
      ? undefined
      : describeLateWorkers(late, plan.loadPlan) +
        (rerun
          ? '; the re-run had a late worker too'
          : canRerun
            ? ''
            : "; not re-run: the run's worst-case history has no room for re-runs (fewer candidates or workers leave some)");
  if (measurementProblem !== undefined) {
    deps.logger.warn(canRerun ? 'Late load workers: re-running' : 'Load test not measurable: late workers', {
      candidateId: event.candidateId,
      lateWorkers: late,
    });
  }
  const status =
    measurementProblem === undefined
      ? CandidateStatuses.measured
      : canRerun
        ? CandidateStatuses.rerun
        : CandidateStatuses.measurementProblem;
  return {
    candidateId: event.candidateId,
    status,
    ...(measurementProblem === undefined ? {} : { measurementProblem }),
    resultUri,
    sustainableTps: result.sustainableTps,
    ...(createdEpochMs === undefined ? {} : { endpointCreatedEpochMs: createdEpochMs }),
    ...(instanceType === undefined ? {} : { instanceType }),
    ...(instanceCount === undefined ? {} : { instanceCount }),
    ...(variantName === undefined ? {} : { variantName }),
  };
}
