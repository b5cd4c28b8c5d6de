import { s3Uri } from './contracts/object-uri.js';
import {
  type AggregateLoadTestEvent,
  type CandidateOutcome,
  CandidateStatuses,
} from './contracts/optimization-state.js';
import {
  aggregateWorkerResults,
  combineSegments,
  describeLateWorkers,
  lateWorkers,
  type LoadTestResult,
  type WorkerResult,
} from './load-test/index.js';
import type { Logger, ObjectStore } from './ports.js';
import { readWorkerResult, readWorkerSegments } from './shared/load-test-results.js';

export interface AggregateDeps {
  readonly store: ObjectStore;
  readonly logger: Logger;
  /** For the next segment's shared start. @default Date.now */
  readonly nowEpochMs?: () => number;
  /** Time for every worker of the next segment to start before its shared start. @default 10 */
  readonly loadStartDelaySeconds?: number;
}

/** As "Check endpoint" leaves the workers of the first segment (LOAD_START_DELAY_SECONDS). */
const DEFAULT_LOAD_START_DELAY_SECONDS = 10;

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
 *
 * A load test longer than one worker invocation runs in segments, this state after each: while
 * every worker paused at its segment's end, the outcome is NEXT_SEGMENT with the next segment's
 * shared start, and the workflow runs the workers again. Otherwise (the schedule is over, or a
 * worker stopped: the steps after it would miss its load) each worker's segments are combined,
 * parts of a step added up exactly, and aggregated as one run. Late workers are looked for in the
 * first segment only, the one a re-run replaces.
 */
export async function aggregateLoadTest(
  event: AggregateLoadTestEvent,
  deps: AggregateDeps,
): Promise<CandidateOutcome> {
  const { plan } = event;
  const segmentIndex = event.deployment.loadSegment?.index ?? 0;
  const segmentResults = await Promise.all(
    event.workers.map((worker) => readWorkerResult(deps.store, worker.resultUri)),
  );
  const late = segmentIndex === 0 ? lateWorkers(segmentResults, plan.loadPlan) : [];
  if (late.length === 0 && segmentResults.every((result) => result.stoppedBecause === 'segment-end')) {
    const nowEpochMs = deps.nowEpochMs ?? Date.now;
    const delaySeconds = deps.loadStartDelaySeconds ?? DEFAULT_LOAD_START_DELAY_SECONDS;
    const nextSegment = { index: segmentIndex + 1, startEpochMs: nowEpochMs() + delaySeconds * 1000 };
    deps.logger.info('Load test segment ended: running the next', {
      candidateId: event.candidateId,
      nextSegment,
    });
    return { candidateId: event.candidateId, status: CandidateStatuses.nextSegment, nextSegment };
  }
  const workerResults: WorkerResult[] = await Promise.all(
    segmentResults.map(async (current) => {
      const earlier = await readWorkerSegments(
        deps.store,
        plan,
        event.candidateId,
        current.workerIndex,
        segmentIndex,
      );
      return combineSegments([...earlier, current]);
    }),
  );
  const result: LoadTestResult = aggregateWorkerResults(workerResults, plan.sla, plan.loadPlan);
  const resultUri = s3Uri(plan.artifactsBucket, loadTestResultKey(plan.runId, event.candidateId));
  await deps.store.putBytes(resultUri, new TextEncoder().encode(JSON.stringify(result)), 'application/json');
  deps.logger.info('Load test aggregated', {
    candidateId: event.candidateId,
    sustainableTps: result.sustainableTps,
    stoppedBecause: result.stoppedBecause,
  });
  const { createdEpochMs, instanceType, instanceCount, variantName } = event.deployment;
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
