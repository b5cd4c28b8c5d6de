import { setMaxListeners } from 'node:events';
import { InvalidRunInputError, describeError } from '../contracts/errors.js';
import { mergeWorkerSteps } from './aggregate.js';
import { systemClock } from './clock.js';
import { usToMs } from './histogram.js';
import { runClosedModel } from './closed-model.js';
import { constantGrid, rampGrid, runOpenModel } from './open-model.js';
import { PayloadMix, payloadSeed } from './payload-mix.js';
import { scheduledLoads, stepPeriodMs, workerLoad, workerShare } from './plan.js';
import type { Clock, InvokeRequest, InvokeTransport } from './ports.js';
import type { LoadTestProgress, StepResult, WorkerResult, WorkerStep, WorkerStopReason } from './results.js';
import { mergeStepParts, stepsOverSegments } from './segments.js';
import { describeLoad, findStopPoint } from './sla.js';
import { RequestBudget, StepDriver } from './step-driver.js';
import { StepRecorder } from './step-recorder.js';
import { stepInvokerOf } from './streaming/step-invoker.js';
import type { StreamInvokeTransport } from './streaming/stream-transport.js';
import { parseLoadPlan, type LoadPlan, type LoadPlanInput } from '../contracts/load-plan.js';
import { parseSla, type LatencySla, type LatencySlaInput } from '../contracts/latency-sla.js';

/**
 * Time kept free before a deadline: the engine returns at least this long before it, so the caller
 * (a Lambda with its remaining time) can still serialize and hand back the result.
 */
export const DEADLINE_RESERVE_MS = 1000;

export interface RunLoadTestArgs {
  readonly plan: LoadPlan | LoadPlanInput;
  readonly sla: LatencySla | LatencySlaInput;
  /**
   * The caller's: built for `connectionsPerWorker(plan)` connections, closed by the caller.
   * Required unless the plan streams responses (`loadPlan.response.mode` `stream`).
   */
  readonly transport?: InvokeTransport;
  /** The same for a plan that streams responses (then required): each request is read as a stream. */
  readonly streamTransport?: StreamInvokeTransport;
  /**
   * Sent unchanged on every invocation; or a mix, from which each invocation draws its payload
   * (seeded per worker and step, `payloadSeed`), each payload's latency then recorded apart.
   */
  readonly request: InvokeRequest | PayloadMix;
  /** @default systemClock */
  readonly clock?: Clock;
  /** Shared start of distributed workers (epoch ms); all schedules derive from it. @default now */
  readonly startAtEpochMs?: number;
  /** The engine returns at least DEADLINE_RESERVE_MS before this (e.g. Lambda's remaining time). */
  readonly deadlineEpochMs?: number;
  /** @default 0 */
  readonly workerIndex?: number;
  /** Called about once a second; a callback that throws stops the progress events only. */
  readonly onProgress?: (event: LoadTestProgress) => void;
  /** Cancels the run: in-flight requests are aborted, the unfinished step is discarded. */
  readonly signal?: AbortSignal;
  /**
   * Runs one segment of the schedule rather than all of it (a test longer than one invocation);
   * `startAtEpochMs` is then this segment's shared start. @default the whole schedule
   */
  readonly segment?: LoadSegment;
}

/**
 * One invocation's share of a schedule too long for it. The schedule (step i's warm-up at
 * i × (warm-up + window) from the start) is cut into consecutive segments of `seconds`; segment k
 * runs the part of it in [k × seconds, (k + 1) × seconds), from its own shared start, so the gap
 * between invocations is in no step's time: the open model's arrival grid goes on where it
 * stopped (no burst to catch up, no gap counted as latency), the closed model starts again with
 * the same concurrency, and a window cut at a segment's end is resumed by the next, its parts
 * added up (segments.ts). The previous segments' results carry what stepping decides on: the
 * steps measured so far, the requests already issued, a stop.
 */
export interface LoadSegment {
  /** The segment's place in the schedule, from 0. */
  readonly index: number;
  /** Every segment's length on the schedule, in seconds. */
  readonly seconds: number;
  /** This worker's results of segments 0 … index − 1, in order. */
  readonly previous: readonly WorkerResult[];
}

interface Stop {
  readonly reason: WorkerStopReason;
  readonly detail: string;
}

interface RunningStep {
  readonly stepIndex: number;
  readonly load: number;
  readonly driver: StepDriver;
}

function seconds(ms: number): string {
  return `${Math.round(ms) / 1000} s`;
}

/** The segment as given, or InvalidRunInputError naming what is wrong with it. */
function checkSegment(segment: LoadSegment | undefined): LoadSegment | undefined {
  if (segment === undefined) return undefined;
  const issues = [];
  if (!Number.isInteger(segment.index) || segment.index < 0) {
    issues.push({ field: 'segment.index', given: String(segment.index), expected: 'a whole number from 0' });
  }
  if (!(segment.seconds > 0) || !Number.isFinite(segment.seconds)) {
    issues.push({
      field: 'segment.seconds',
      given: String(segment.seconds),
      expected: 'a finite number above 0',
    });
  }
  if (segment.previous.length !== segment.index) {
    issues.push({
      field: 'segment.previous',
      given: `${segment.previous.length} results`,
      expected: `this worker's results of the ${segment.index} earlier segments`,
    });
  }
  if (issues.length > 0) throw new InvalidRunInputError(issues);
  return segment;
}

/** Maps the shared wall-clock schedule onto this process's monotonic clock. */
function monotonicFromEpoch(clock: Clock): (epochMs: number) => number {
  const anchorUs = clock.nowUs();
  const anchorEpochMs = clock.epochMs();
  return (epochMs) => anchorUs + (epochMs - anchorEpochMs) * 1000;
}

function hardStopOf(plan: LoadPlan, maxTotalEpochMs: number, deadlineEpochMs: number | undefined) {
  const byDuration = {
    epochMs: maxTotalEpochMs,
    label: `maxTotalSeconds (${plan.maxTotalSeconds} s)`,
  };
  if (deadlineEpochMs === undefined) return byDuration;
  const byDeadline = {
    epochMs: deadlineEpochMs - DEADLINE_RESERVE_MS,
    label: `the deadline ${new Date(deadlineEpochMs).toISOString()} less ${DEADLINE_RESERVE_MS} ms reserved`,
  };
  return byDeadline.epochMs < byDuration.epochMs ? byDeadline : byDuration;
}

function progressOf(workerIndex: number, step: RunningStep, nowUs: number): LoadTestProgress {
  const recorder = step.driver.recorder;
  const phase = nowUs < recorder.activeFromUs ? 'warmup' : nowUs < recorder.activeToUs ? 'measure' : 'drain';
  const measuredUs = Math.min(nowUs, recorder.activeToUs) - recorder.activeFromUs;
  const stream = step.driver.stream?.live();
  return {
    workerIndex,
    stepIndex: step.stepIndex,
    load: step.load,
    phase,
    secondsIntoWindow: Math.round((nowUs - recorder.window.windowStartUs) / 1000) / 1000,
    requests: recorder.requests,
    tps: measuredUs > 0 ? Math.round((recorder.countedCompletions / measuredUs) * 1e9) / 1000 : 0,
    p95Ms: usToMs(recorder.latencies.valueAtPercentileUs(95)),
    errors: recorder.errorTotal,
    inFlight: step.driver.inFlight,
    late: recorder.late,
    dropped: recorder.dropped,
    ...(stream === undefined
      ? {}
      : {
          stream: {
            ttftP95Ms: usToMs(stream.ttftP95Us),
            itlP95Ms: usToMs(stream.itlP95Us),
            outputTokensPerSecond:
              measuredUs > 0 ? Math.round((stream.outputTokens / measuredUs) * 1e7) / 10 : 0,
          },
        }),
  };
}

/**
 * Emits progress once a second until stopped, and a step's final figures when it ends (`final`:
 * the window is over, so the event's phase is `drain` and its figures cover the whole window; the
 * ticks alone would leave them up to a second short, and on a terminal the next step's line would
 * replace them). A throwing callback ends the events, not the run.
 */
function startProgressTicker(
  clock: Clock,
  current: () => RunningStep | undefined,
  emit: (event: LoadTestProgress) => void,
  workerIndex: number,
): { stop(): void; final(step: RunningStep): void; failure(): string | undefined } {
  const stopped = new AbortController();
  let failure: string | undefined;
  // A step's window-end figures once: a tick that lands after the window already gave them.
  let drained: RunningStep | undefined;
  const send = (step: RunningStep): void => {
    if (failure !== undefined) return;
    const event = progressOf(workerIndex, step, clock.nowUs());
    if (event.phase === 'drain') {
      if (drained === step) return;
      drained = step;
    }
    try {
      emit(event);
    } catch (error) {
      failure = describeError(error);
      stopped.abort();
    }
  };
  // A function, not the property: the compiler would otherwise assume it cannot change in the loop.
  const isStopped = (): boolean => stopped.signal.aborted;
  void (async () => {
    let nextUs = clock.nowUs() + 1_000_000;
    while (!isStopped()) {
      await clock.sleepUntil(nextUs, stopped.signal);
      if (isStopped()) return;
      nextUs += 1_000_000;
      const step = current();
      if (step !== undefined) send(step);
    }
  })();
  return {
    stop: () => {
      stopped.abort();
    },
    final: send,
    failure: () => failure,
  };
}

/** Resolves to true if `targetUs` comes before `work` settles; the timer is cleared either way. */
async function deadlineComesFirst(clock: Clock, work: Promise<void>, targetUs: number): Promise<boolean> {
  const cancel = new AbortController();
  const timer = clock.sleepUntil(targetUs, cancel.signal).then(() => !cancel.signal.aborted);
  const first = await Promise.race([work.then(() => false), timer]);
  cancel.abort();
  return first;
}

/**
 * Runs one worker's share of a load test: SLA-aware stepping on a fixed schedule derived from the
 * shared start (step i's warm-up begins at start + i × (warm-up + window)), each step judged on
 * this worker's own figures through the same merge and SLA rules the aggregation uses. The
 * result holds encoded histograms and counts; `aggregateWorkerResults` turns one or many of them
 * into the load test's result.
 */
export async function runLoadTest(args: RunLoadTestArgs): Promise<WorkerResult> {
  const plan = parseLoadPlan(args.plan);
  const sla = parseSla(args.sla);
  const clock = args.clock ?? systemClock;
  const workerIndex = args.workerIndex ?? 0;
  if (!Number.isInteger(workerIndex) || workerIndex < 0 || workerIndex >= plan.workers) {
    throw new InvalidRunInputError([
      {
        field: 'workerIndex',
        given: String(workerIndex),
        expected: `a whole number from 0 to ${plan.workers - 1} (plan.workers is ${plan.workers})`,
      },
    ]);
  }
  const invoker = stepInvokerOf(plan, sla, args, clock);
  const payloadCount = args.request instanceof PayloadMix ? args.request.size : 1;
  const segment = checkSegment(args.segment);
  const startEpochMs = args.startAtEpochMs ?? clock.epochMs();
  const toMonotonicUs = monotonicFromEpoch(clock);
  // Schedule time (ms from the test's start, gaps between segments left out) → this invocation's
  // wall clock. Segment bounds are computed as index × length only, so that two segments agree
  // exactly on the boundary they share.
  const segmentFromMs = segment === undefined ? 0 : segment.index * segment.seconds * 1000;
  const segmentToMs =
    segment === undefined ? Number.POSITIVE_INFINITY : (segment.index + 1) * segment.seconds * 1000;
  const wallOf = (scheduleMs: number): number => startEpochMs + scheduleMs - segmentFromMs;
  const maxTotalMs = plan.maxTotalSeconds * 1000;
  const hardStop = hardStopOf(plan, wallOf(maxTotalMs), args.deadlineEpochMs);
  const previous = segment?.previous ?? [];
  const measuredBefore = stepsOverSegments(previous);
  const stoppedBefore = previous[previous.length - 1];
  const run = new AbortController();
  const onCancel = (): void => {
    run.abort('cancelled');
  };
  if (args.signal?.aborted === true) onCancel();
  args.signal?.addEventListener('abort', onCancel, { once: true });

  let running: RunningStep | undefined;
  const ticker =
    args.onProgress === undefined
      ? undefined
      : startProgressTicker(clock, () => running, args.onProgress, workerIndex);
  const issuedBefore = previous.reduce((sum, result) => sum + (result.requestsIssued ?? 0), 0);
  const budget = new RequestBudget(
    plan.maxTotalRequests === undefined
      ? undefined
      : Math.max(0, workerShare(plan.maxTotalRequests, plan.workers, workerIndex, true) - issuedBefore),
  );
  const steps: WorkerStep[] = [];
  // Steps finished in earlier segments count for stepping as if measured in this invocation.
  const judged: StepResult[] = measuredBefore
    .filter((step) => step.cutAtSegmentEnd !== true && step.workerLoad > 0)
    .map((step) => mergeWorkerSteps([step], sla, plan.model));
  const resumed = measuredBefore.find((step) => step.cutAtSegmentEnd === true);

  const runStep = async (stepIndex: number, load: number, partEndMs: number): Promise<Stop | undefined> => {
    const stepStartMs = stepIndex * stepPeriodMs(plan);
    const stepEndMs = stepStartMs + stepPeriodMs(plan);
    const windowStartScheduleMs = stepStartMs + plan.warmupSeconds * 1000;
    const windowStartEpochMs = wallOf(windowStartScheduleMs);
    const windowMs = plan.stepDurationSeconds * 1000;
    const cut = partEndMs < stepEndMs;
    const share = workerLoad(plan, load, workerIndex);
    const originUs = toMonotonicUs(wallOf(stepStartMs));
    const recorder = new StepRecorder({
      stepIndex,
      load,
      workerLoad: share,
      windowStartEpochMs,
      windowMs,
      windowStartUs: toMonotonicUs(windowStartEpochMs),
      measuredCap:
        plan.maxRequestsPerStep === undefined
          ? Number.POSITIVE_INFINITY
          : workerShare(plan.maxRequestsPerStep, plan.workers, workerIndex, true),
      requestTimeoutUs: plan.requestTimeoutMs * 1000,
      payloads: payloadCount,
      timeline: plan.ramp !== undefined,
      ...(cut ? { partEndUs: toMonotonicUs(wallOf(partEndMs)) } : {}),
    });
    recorder.joinAt(clock.nowUs());
    const step = new AbortController();
    // Every request in flight may listen on the step's signal (the SDK adds one listener per
    // call): hundreds of listeners are expected here, not a leak.
    setMaxListeners(0, step.signal);
    const cutShort = (): void => {
      step.abort(run.signal.reason);
    };
    run.signal.addEventListener('abort', cutShort, { once: true });
    const stream = invoker.newStreamRecorder();
    const driver = new StepDriver({
      clock,
      transport: invoker.transport,
      ...(stream === undefined ? {} : { stream }),
      request: args.request,
      payloadSeed: payloadSeed(workerIndex, stepIndex, segment?.index ?? 0),
      recorder,
      budget,
      signal: step.signal,
    });
    running = { stepIndex, load, driver };
    const partStartMs = Math.max(stepStartMs, segmentFromMs);
    // A worker that starts the step later than the late tolerance (a late Lambda) skips the
    // arrivals it missed rather than sending them in a burst; the recorder measures from its join.
    const joinedUs = clock.nowUs() - originUs;
    const fromUs = Math.max(
      (partStartMs - stepStartMs) * 1000,
      joinedUs > (partStartMs - stepStartMs) * 1000 + plan.lateToleranceMs * 1000 ? joinedUs : 0,
    );
    // A ramp's grid: the warm-up at its start rate, then up to the step's over the window; the
    // same offsets in every segment, so a resumed part goes on with the same arrivals.
    const grid =
      plan.ramp === undefined
        ? constantGrid(share)
        : rampGrid({
            fromPerSecond: workerShare(plan.ramp.fromTps, plan.workers, workerIndex, false),
            toPerSecond: share,
            rampStartUs: plan.warmupSeconds * 1_000_000,
            rampUs: windowMs * 1000,
          });
    const work =
      plan.model === 'closed'
        ? runClosedModel(driver, share)
        : runOpenModel(driver, {
            grid,
            maxInFlight: plan.maxInFlight,
            lateToleranceUs: plan.lateToleranceMs * 1000,
            requestTimeoutUs: plan.requestTimeoutMs * 1000,
            originUs,
            firstArrival: grid.before(fromUs),
            endArrival: grid.before((partEndMs - stepStartMs) * 1000),
            endUs: toMonotonicUs(wallOf(partEndMs)),
          });
    const deadlineHit = await deadlineComesFirst(clock, work, toMonotonicUs(hardStop.epochMs));
    if (deadlineHit) {
      step.abort('deadline');
      await work;
    }
    run.signal.removeEventListener('abort', cutShort);
    if (!cut && !deadlineHit && !run.signal.aborted) ticker?.final(running);
    const where = `step ${stepIndex + 1} (${describeLoad(load, plan.model)})`;
    if (run.signal.aborted)
      return { reason: 'aborted', detail: `cancelled during ${where}; that step is left out` };
    // A step is kept unless the request cap ended the run before its window measured anything (a
    // worker whose share of the load is zero keeps its empty step: it covered the window).
    const earlierPart = resumed?.stepIndex === stepIndex ? resumed : undefined;
    const complete = !(driver.budgetExhausted && recorder.measuredStarts === 0 && earlierPart === undefined);
    // A part that ended in the warm-up measured nothing: the next segment runs the window.
    const measuredPart = partEndMs > windowStartScheduleMs;
    if (complete && measuredPart) {
      const workerStep = {
        ...recorder.toWorkerStep(),
        ...(stream === undefined ? {} : { stream: stream.toFigures() }),
      };
      steps.push(workerStep);
      // A worker with no share of a step has nothing to judge it on; the merged step is judged
      // by the aggregation. A step cut at the segment's end is judged once its window is over.
      const whole = earlierPart === undefined ? workerStep : mergeStepParts([earlierPart, workerStep]);
      if (share > 0 && whole.cutAtSegmentEnd !== true)
        judged.push(mergeWorkerSteps([whole], sla, plan.model));
    }
    if (deadlineHit) {
      return {
        reason: 'deadline',
        detail: `${hardStop.label} came while ${where} was finishing; requests still in flight were counted as timeouts`,
      };
    }
    if (driver.budgetExhausted) {
      return {
        reason: 'request-cap',
        detail: `maxTotalRequests (${plan.maxTotalRequests ?? 'unlimited'}) reached during ${where}${complete ? '' : ', before its window; that step is left out'}`,
      };
    }
    if (cut) {
      return {
        reason: 'segment-end',
        detail: `segment ${(segment?.index ?? 0) + 1} ended ${seconds(partEndMs)} into the schedule, during ${where}; the next segment resumes it`,
      };
    }
    const stopPoint = findStopPoint(judged, plan, plan.model);
    return stopPoint === null ? undefined : { reason: stopPoint.reason, detail: stopPoint.detail };
  };

  const runSteps = async (): Promise<Stop> => {
    if (startEpochMs > hardStop.epochMs) {
      return {
        reason: 'deadline',
        detail: `the start ${new Date(startEpochMs).toISOString()} is after ${hardStop.label}`,
      };
    }
    if (stoppedBefore !== undefined && stoppedBefore.stoppedBecause !== 'segment-end') {
      return {
        reason: stoppedBefore.stoppedBecause,
        detail: `stopped in segment ${previous.length}: ${stoppedBefore.stopDetail}`,
      };
    }
    const loads = scheduledLoads(plan);
    for (const [stepIndex, load] of loads.entries()) {
      const stepStartMs = stepIndex * stepPeriodMs(plan);
      const stepEndMs = stepStartMs + stepPeriodMs(plan);
      // Steps that ended in earlier segments were run there.
      if (stepEndMs <= segmentFromMs) continue;
      const where = `step ${stepIndex + 1} (${describeLoad(load, plan.model)})`;
      if (stepStartMs >= segmentToMs) {
        return {
          reason: 'segment-end',
          detail: `segment ${(segment?.index ?? 0) + 1} ended ${seconds(segmentToMs)} into the schedule; ${where} runs in the next`,
        };
      }
      const partStartMs = Math.max(stepStartMs, segmentFromMs);
      const partEndMs = Math.min(stepEndMs, segmentToMs);
      const partEndEpochMs = wallOf(partEndMs);
      if (partEndEpochMs > hardStop.epochMs) {
        return {
          reason: 'deadline',
          detail: `${where} would end at ${new Date(partEndEpochMs).toISOString()}, after ${hardStop.label}`,
        };
      }
      // A step cut by the segment must still end within maxTotalSeconds once resumed.
      if (stepEndMs > maxTotalMs) {
        return {
          reason: 'deadline',
          detail: `${where} would end ${seconds(stepEndMs)} into the schedule, after maxTotalSeconds (${plan.maxTotalSeconds} s)`,
        };
      }
      await clock.sleepUntil(toMonotonicUs(wallOf(partStartMs)), run.signal);
      if (run.signal.aborted) return { reason: 'aborted', detail: `cancelled before ${where}` };
      const stop = await runStep(stepIndex, load, partEndMs);
      if (stop !== undefined) return stop;
    }
    const extended = loads.length - plan.steps.length;
    return {
      reason: 'completed',
      detail:
        extended === 0
          ? `all ${loads.length} steps ran`
          : `all ${loads.length} steps ran, ${extended} of them extension steps up to load ${loads[loads.length - 1] ?? '?'}, without saturating`,
    };
  };

  try {
    const stop = await runSteps();
    const progressFailure = ticker?.failure();
    return {
      schemaVersion: 1,
      workerIndex,
      workers: plan.workers,
      model: plan.model,
      startEpochMs,
      finishedEpochMs: clock.epochMs(),
      ...(segment === undefined ? {} : { segmentIndex: segment.index, requestsIssued: budget.taken }),
      steps,
      stoppedBecause: stop.reason,
      stopDetail:
        progressFailure === undefined
          ? stop.detail
          : `${stop.detail}; progress events stopped: ${progressFailure}`,
    };
  } finally {
    ticker?.stop();
    args.signal?.removeEventListener('abort', onCancel);
  }
}
