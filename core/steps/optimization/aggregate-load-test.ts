import {
  s3Uri,
  type AggregateLoadTestEvent,
  type CandidateOutcome,
  CandidateStatuses,
  type DeploymentState,
  type LoadRoundStart,
} from '../../contracts/index.js';
import {
  aggregateWorkerResults,
  combineSegments,
  describeLateWorkers,
  describeLoad,
  lateWorkers,
  type LoadTestResult,
  ownRound,
  pendingRepeat,
  roundPlan,
  settleRounds,
  type WorkerResult,
} from '../../load-test/index.js';
import type { Logger, ObjectStore } from '../../ports/index.js';
import { loadTestResultKey, readWorkerResult, readWorkerSegments } from './load-test-results.js';
import type { LoadRound } from '../../contracts/index.js';

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
 *
 * Once the stepped schedule is measured, rounds follow (load-test/rounds.ts): while `nextRound`
 * finds a knee probe or a repeat to run, the outcome is NEXT_ROUND with its load and shared start,
 * the result so far is stored, and this state runs again after the round (`aggregateRound`).
 *
 * With interleaved repeats (load-test/rounds.ts `interleavesRepeats`), the candidate's own rounds
 * are its knee probes; then, while a repeat is due, the outcome is REPEATS_PENDING with the repeat
 * and the endpoint kept for it (`keptDeployment`): "Repeat each candidate" runs it in the next
 * round over all candidates and brings its workers back here, and deletes the endpoint once the
 * outcome is MEASURED.
 */
export async function aggregateLoadTest(
  event: AggregateLoadTestEvent,
  deps: AggregateDeps,
): Promise<CandidateOutcome> {
  const { plan } = event;
  if (event.deployment.loadRound !== undefined) {
    return aggregateRound(event, event.deployment.loadRound, deps);
  }
  const segmentIndex = event.deployment.loadSegment?.index ?? 0;
  const segmentResults = await Promise.all(
    event.workers.map((worker) => readWorkerResult(deps.store, worker.resultUri)),
  );
  const late = segmentIndex === 0 ? lateWorkers(segmentResults, plan.loadPlan) : [];
  if (late.length === 0 && segmentResults.every((result) => result.stoppedBecause === 'segment-end')) {
    const nextSegment = { index: segmentIndex + 1, startEpochMs: nextSharedStart(deps) };
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
  await putResult(deps, resultUri, result);
  deps.logger.info('Load test aggregated', {
    candidateId: event.candidateId,
    sustainableTps: result.sustainableTps,
    stoppedBecause: result.stoppedBecause,
  });
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
  if (measurementProblem === undefined) return afterMeasurement(event, resultUri, result, deps);
  return measuredOutcome(
    event,
    resultUri,
    result,
    measurementProblem,
    canRerun ? CandidateStatuses.rerun : CandidateStatuses.measurementProblem,
  );
}

async function putResult(deps: AggregateDeps, uri: string, result: LoadTestResult): Promise<void> {
  await deps.store.putBytes(uri, new TextEncoder().encode(JSON.stringify(result)), 'application/json');
}

/** The shared start of the workers' next run (a segment or a round), after the start delay. */
function nextSharedStart(deps: AggregateDeps): number {
  const nowEpochMs = deps.nowEpochMs ?? Date.now;
  return nowEpochMs() + (deps.loadStartDelaySeconds ?? DEFAULT_LOAD_START_DELAY_SECONDS) * 1000;
}

function nextRoundOutcome(
  event: AggregateLoadTestEvent,
  round: LoadRoundStart,
  deps: AggregateDeps,
): CandidateOutcome {
  deps.logger.info('Load test round next', { candidateId: event.candidateId, nextRound: round });
  return { candidateId: event.candidateId, status: CandidateStatuses.nextRound, nextRound: round };
}

/**
 * After a round: its workers merged into one step (the same aggregation as the schedule's, on a
 * one-step plan), added to the stored result's `probes` or `repeats`, the sustainable figures
 * settled again (`settleRounds`), then the next round or MEASURED. A round with a late worker, or
 * that measured no whole step, is left out and ends the rounds (`roundsNote` says why): the
 * figures so far stand.
 */
async function aggregateRound(
  event: AggregateLoadTestEvent,
  round: LoadRoundStart,
  deps: AggregateDeps,
): Promise<CandidateOutcome> {
  const { plan } = event;
  const resultUri = s3Uri(plan.artifactsBucket, loadTestResultKey(plan.runId, event.candidateId));
  const stored = await readLoadTestResult(deps, resultUri);
  const results = await Promise.all(
    event.workers.map((worker) => readWorkerResult(deps.store, worker.resultUri)),
  );
  const onePlan = roundPlan(plan.loadPlan, round.load);
  const what = `round ${round.index + 1} (${round.kind === 'knee' ? 'knee probe' : 'repeat'} at ${describeLoad(round.load, plan.loadPlan.model)})`;
  const late = lateWorkers(results, onePlan);
  const merged = late.length === 0 ? aggregateWorkerResults(results, plan.sla, onePlan) : undefined;
  const step = merged?.steps[0];
  let updated: LoadTestResult;
  if (step === undefined) {
    const why =
      merged === undefined ? describeLateWorkers(late, onePlan) : `no whole step: ${merged.stopDetail}`;
    updated = { ...stored, roundsNote: `${what} not counted, ${why}; no further rounds` };
    deps.logger.warn('Load test round not counted', { candidateId: event.candidateId, round, why });
  } else {
    const added =
      round.kind === 'knee'
        ? { probes: [...(stored.probes ?? []), step] }
        : { repeats: [...(stored.repeats ?? []), step] };
    updated = settleRounds(
      {
        ...stored,
        ...added,
        finishedEpochMs: Math.max(stored.finishedEpochMs, merged?.finishedEpochMs ?? 0),
      },
      plan.sla.targetTps,
    );
  }
  await putResult(deps, resultUri, updated);
  return afterMeasurement(event, resultUri, updated, deps);
}

/**
 * Once figures are stored: the candidate's next own round, else its next interleaved repeat
 * (REPEATS_PENDING, the endpoint kept), else MEASURED.
 */
function afterMeasurement(
  event: AggregateLoadTestEvent,
  resultUri: string,
  result: LoadTestResult,
  deps: AggregateDeps,
): CandidateOutcome {
  const { loadPlan } = event.plan;
  const next = ownRound(result, loadPlan);
  if (next !== null) return nextRoundOutcome(event, { ...next, startEpochMs: nextSharedStart(deps) }, deps);
  const repeat = pendingRepeat(result, loadPlan);
  if (repeat !== null) return repeatsPendingOutcome(event, resultUri, result, repeat, deps);
  if (result.probes !== undefined || result.repeats !== undefined || result.roundsNote !== undefined) {
    deps.logger.info('Load test rounds done', {
      candidateId: event.candidateId,
      sustainableTps: result.sustainableTps,
      probes: result.probes?.length ?? 0,
      repeats: result.repeats?.length ?? 0,
    });
  }
  return measuredOutcome(event, resultUri, result, undefined);
}

function repeatsPendingOutcome(
  event: AggregateLoadTestEvent,
  resultUri: string,
  result: LoadTestResult,
  repeat: LoadRound,
  deps: AggregateDeps,
): CandidateOutcome {
  const keptDeployment = keptDeploymentOf(event);
  deps.logger.info('Load test repeat pending: endpoint kept for the interleaved rounds', {
    candidateId: event.candidateId,
    pendingRepeat: repeat,
    endpointName: keptDeployment.endpointName,
  });
  return {
    ...measuredOutcome(event, resultUri, result, undefined, CandidateStatuses.repeatsPending),
    pendingRepeat: repeat,
    keptDeployment,
  };
}

/**
 * The deployment "Repeat each candidate" checks and measures again: as "Check endpoint" left it,
 * without this load test's segment, round and re-run marks.
 */
function keptDeploymentOf(event: AggregateLoadTestEvent): DeploymentState {
  const { loadRound: _round, loadSegment: _segment, loadTestRerun: _rerun, ...deployment } = event.deployment;
  const { candidateId, endpointName, status, waitSeconds, deadlineEpochMs } = deployment;
  if (
    candidateId === undefined ||
    endpointName === undefined ||
    status === undefined ||
    waitSeconds === undefined ||
    deadlineEpochMs === undefined
  ) {
    throw new Error(
      `Aggregate load test: interleaved repeats keep the endpoint, but the deployment of ${event.candidateId} names none (got ${JSON.stringify(Object.keys(deployment))}, expected "Check endpoint"'s deployment)`,
    );
  }
  return { ...deployment, candidateId, endpointName, status, waitSeconds, deadlineEpochMs };
}

async function readLoadTestResult(deps: AggregateDeps, uri: string): Promise<LoadTestResult> {
  return JSON.parse(new TextDecoder().decode(await deps.store.getBytes(uri))) as LoadTestResult;
}

/** The candidate's outcome once its figures are final (or cannot be trusted: `measurementProblem`). */
function measuredOutcome(
  event: AggregateLoadTestEvent,
  resultUri: string,
  result: LoadTestResult,
  measurementProblem: string | undefined,
  status: CandidateOutcome['status'] = CandidateStatuses.measured,
): CandidateOutcome {
  const { createdEpochMs, instanceType, instanceCount, variantName } = event.deployment;
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
