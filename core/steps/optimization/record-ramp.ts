import {
  failureReasonOf,
  describeError,
  TransientServiceError,
  CandidateStatuses,
  type RampRequest,
  type RampVerdict,
} from '../../contracts/index.js';
import type { CandidateOutcome, RecordRampEvent } from '../../contracts/index.js';
import type { LoadTestResult } from '../../load-test/index.js';
import type { EndpointInstanceSeriesReader, Logger, ObjectStore } from '../../ports/index.js';
import type { Report } from '../../report/index.js';
import { readStoredReport, writeStoredReport } from '../../report/index.js';
import {
  brokenTimeText,
  type InstanceCountPoint,
  type RampOutcome,
  rampOutcome,
  retestRequest,
  type ServeTargetRamp,
} from '../../serving/index.js';

export interface RecordRampDeps {
  readonly store: ObjectStore;
  readonly logger: Logger;
  /** The ramp endpoint's instances over the ramp (locally the front's series, on AWS scaling activities). */
  readonly series: EndpointInstanceSeriesReader;
  /** Where `series` reads from, for the report: one phrase. */
  readonly seriesSource: string;
}

/**
 * States "Record ramp" and "Record failed ramp": the ramp's verdict into report.json
 * (`serveTarget.ramp`), report.md and report.html. After the workers and "Aggregate ramp load
 * test" (which merged every worker's segments into one step with its timeline), the timeline and
 * the endpoint's instance counts over the ramp go through `rampOutcome` (serving/ramp.ts): the
 * minutes the SLA broke, each scale-out and its lag, the ramp's cost, and the headroom that would
 * have held. A measurement the aggregate could not trust (a late worker), or an error, makes the
 * ramp `failed` with why. The state output (`summary.ramp`) is the verdict alone.
 */
export async function recordRamp(event: RecordRampEvent, deps: RecordRampDeps): Promise<RampVerdict> {
  const request = event.summary.rampRequest;
  const report = await readStoredReport(deps.store, event.summary.report.json);
  const st = report.serveTarget;
  const measured = await rampOf(event, request, deps);
  const retest = retestOf(event, measured);
  // A re-test keeps the ramp before it (the report's, which this one follows).
  const earlier = (request.attempt ?? 1) > 1 ? st?.ramp : undefined;
  const ramp: ServeTargetRamp = {
    ...measured,
    note: `${measured.note}${retest === undefined ? '' : `; re-testing ${describeRetest(retest)}`}`,
    ...(earlier === undefined ? {} : { previous: withoutPrevious(earlier) }),
  };
  const updated: Report = st === undefined ? report : { ...report, serveTarget: { ...st, ramp } };
  await writeStoredReport(deps.store, event.summary.report, updated);
  deps.logger.info('Ramp recorded', {
    runId: event.plan.runId,
    status: ramp.status,
    slaBrokenSeconds: ramp.outcome?.slaBrokenSeconds,
    scaleOuts: ramp.outcome?.scaleOuts.length,
  });
  return { status: ramp.status, note: ramp.note, ...(retest === undefined ? {} : { retest }) };
}

/**
 * The ramp once more, or undefined: only after a ramp that ran and broke the SLA, while the plan
 * allows a re-test (`rampTest.retests`), and when its arithmetic advised a change that can scale
 * (ramp-test.ts `retestRequest`).
 */
function retestOf(event: RecordRampEvent, ramp: ServeTargetRamp): RampRequest | undefined {
  const request = event.summary.rampRequest;
  const advice = ramp.outcome?.headroom;
  if (ramp.status !== 'not-held' || advice === undefined) return undefined;
  if ((request.attempt ?? 1) > (event.plan.rampTest?.retests ?? 0)) return undefined;
  const type = request.candidate.instanceType;
  const quota = type === undefined ? undefined : event.plan.instanceQuotas?.[type];
  return retestRequest(event.plan.runId, request, advice, quota);
}

function describeRetest(retest: RampRequest): string {
  return `at headroom ${retest.headroom} from ${retest.minInstances} instances (${retest.minInstances}–${retest.maxInstances}, target ${retest.targetInvocationsPerInstance} invocations per instance per minute)`;
}

function withoutPrevious(ramp: ServeTargetRamp): Omit<ServeTargetRamp, 'previous'> {
  const { previous: _older, ...kept } = ramp;
  return kept;
}

async function rampOf(
  event: RecordRampEvent,
  request: RampRequest,
  deps: RecordRampDeps,
): Promise<ServeTargetRamp> {
  const base = {
    candidateId: request.candidate.proofOf ?? request.candidate.id,
    ...(request.candidate.instanceType === undefined ? {} : { instanceType: request.candidate.instanceType }),
    fromTps: request.fromTps,
    toTps: request.toTps,
    minInstances: request.minInstances,
    maxInstances: request.maxInstances,
    targetInvocationsPerInstance: request.targetInvocationsPerInstance,
  };
  const what = `${request.minInstances}–${request.maxInstances} × ${request.candidate.instanceType ?? request.candidate.id}`;
  if (event.error !== undefined || event.outcome === undefined) {
    return { ...base, status: 'failed', note: `the ramp of ${what} failed: ${failureReasonOf(event.error)}` };
  }
  const measured = await measuredRamp(event.outcome, deps);
  if (typeof measured === 'string') {
    return { ...base, status: 'failed', note: measured };
  }
  const { result, timeline } = measured;
  const rampStartEpochMs = result.startEpochMs + request.loadPlan.warmupSeconds * 1000;
  const rampEndEpochMs = rampStartEpochMs + request.loadPlan.stepDurationSeconds * 1000;
  const { points, note: instancesNote } = await instancesOver(
    event.summary.rampRequest.candidate.endpointName,
    { fromEpochMs: rampStartEpochMs, toEpochMs: rampEndEpochMs, minInstances: request.minInstances },
    deps,
  );
  const outcome = rampOutcome({
    timeline,
    rampStartEpochMs,
    fromTps: request.fromTps,
    toTps: request.toTps,
    sla: event.plan.sla,
    instances: points,
    usdPerInstanceHour: request.candidate.usdPerHour ?? 0,
    perInstanceTps: request.perInstanceTps,
    headroom: request.headroom,
    minInstances: request.minInstances,
  });
  return {
    ...base,
    status: outcome.held ? 'held' : 'not-held',
    outcome,
    instancesNote,
    note: verdictNote(outcome, request, what),
  };
}

/** The merged ramp step and its timeline, or why there is none to judge. */
async function measuredRamp(
  outcome: Pick<CandidateOutcome, 'status' | 'resultUri' | 'measurementProblem'>,
  deps: Pick<RecordRampDeps, 'store'>,
): Promise<
  | {
      readonly result: LoadTestResult;
      readonly timeline: NonNullable<LoadTestResult['steps'][number]['timeline']>;
    }
  | string
> {
  if (outcome.status !== CandidateStatuses.measured || outcome.resultUri === undefined) {
    return `the ramp's load test could not be judged (${outcome.status}): ${outcome.measurementProblem ?? 'no result stored'}`;
  }
  const result = JSON.parse(
    new TextDecoder().decode(await deps.store.getBytes(outcome.resultUri)),
  ) as LoadTestResult;
  const timeline = result.steps[0]?.timeline;
  if (timeline === undefined || timeline.length === 0) {
    return `the ramp's load test stopped before its window (${result.stoppedBecause}: ${result.stopDetail})`;
  }
  return { result, timeline };
}

/**
 * The instance counts over the ramp, starting from the minimum it was deployed with: a reader
 * that shows nothing before the first change (AWS activities say only what they set) gets the
 * deployed minimum at the ramp's start. A reader that fails leaves the minimum alone, and the note
 * says the scale-outs are unknown: the SLA's verdict stands on the workers' figures.
 */
async function instancesOver(
  endpointName: string,
  window: { readonly fromEpochMs: number; readonly toEpochMs: number; readonly minInstances: number },
  deps: Pick<RecordRampDeps, 'series' | 'seriesSource' | 'logger'>,
): Promise<{ readonly points: readonly InstanceCountPoint[]; readonly note: string }> {
  const initial: InstanceCountPoint = { atEpochMs: window.fromEpochMs, inService: window.minInstances };
  try {
    const read = await deps.series.instanceSeries(endpointName, window.fromEpochMs, window.toEpochMs, {
      initialInService: window.minInstances,
    });
    const first = read[0];
    const points = first === undefined || first.atEpochMs > window.fromEpochMs ? [initial, ...read] : read;
    return { points, note: deps.seriesSource };
  } catch (error) {
    // Throttling is worth the step's own retries; anything else leaves the verdict to the timeline.
    if (error instanceof TransientServiceError) throw error;
    deps.logger.warn('Could not read the ramp endpoint’s instances', {
      endpointName,
      error: describeError(error),
    });
    return {
      points: [initial],
      note: `not read (${describeError(error)}): the chart shows the minimum throughout and no scale-out`,
    };
  }
}

function verdictNote(outcome: RampOutcome, request: RampRequest, what: string): string {
  const ramp = `${what} from ${request.fromTps} to ${request.toTps} TPS over ${outcome.seconds} s`;
  const scaleOuts =
    outcome.scaleOuts.length === 0
      ? 'no scale-out'
      : outcome.scaleOuts
          .map(
            (s) =>
              `${s.fromInstances}→${s.toInstances} at ${Math.round(s.atSeconds)} s` +
              (s.secondsToScaleOut === null
                ? ''
                : ` (${Math.round(s.secondsToScaleOut)} s after its trigger)`),
          )
          .join(', ');
  if (outcome.held) return `held: the SLA held through the ramp of ${ramp}; ${scaleOuts}`;
  const first = outcome.breaches[0];
  const why = first === undefined ? '' : ` (first from ${first.fromSeconds} s: ${first.reasons.join('; ')})`;
  return (
    `not held: the SLA broke for ${brokenTimeText(outcome)} during the ramp of ${ramp}${why}; ` +
    `${scaleOuts}; ${outcome.headroom?.note ?? ''}`
  ).replace(/; $/, '');
}
