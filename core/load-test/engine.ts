import { setMaxListeners } from 'node:events';
import {
  InvalidRunInputError,
  describeError,
  parseLoadPlan,
  type LoadPlan,
  type LoadPlanInput,
  parseSla,
  type LatencySla,
  type LatencySlaInput,
} from '../contracts/index.js';
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
import type { StepInvoker } from './streaming/step-invoker.js';
import type { StreamStepRecorder } from './streaming/step-recorder.js';
import type { StreamInvokeTransport } from './streaming/stream-transport.js';

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
interface ProgressTicker {
  stop(): void;
  final(step: RunningStep): void;
  failure(): string | undefined;
}

function startProgressTicker(
  clock: Clock,
  current: () => RunningStep | undefined,
  emit: (event: LoadTestProgress) => void,
  workerIndex: number,
): ProgressTicker {
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
 * One worker's run across its steps: the schedule mapped onto this invocation's clock, the request
 * budget, and what the steps so far measured and judged. The phases below read and extend it.
 */
interface WorkerRun {
  readonly args: RunLoadTestArgs;
  readonly plan: LoadPlan;
  readonly sla: LatencySla;
  readonly clock: Clock;
  readonly workerIndex: number;
  readonly invoker: StepInvoker;
  readonly payloadCount: number;
  readonly segment: LoadSegment | undefined;
  readonly startEpochMs: number;
  readonly toMonotonicUs: (epochMs: number) => number;
  /** Schedule time (ms from the test's start) where this invocation's segment begins and ends. */
  readonly segmentFromMs: number;
  readonly segmentToMs: number;
  /** Schedule time → this invocation's wall clock. */
  readonly wallOf: (scheduleMs: number) => number;
  readonly maxTotalMs: number;
  readonly hardStop: { readonly epochMs: number; readonly label: string };
  readonly previous: readonly WorkerResult[];
  readonly cancel: AbortController;
  readonly budget: RequestBudget;
  readonly steps: WorkerStep[];
  readonly judged: StepResult[];
  /** A step cut at the previous segment's end, which this one resumes. */
  readonly resumed: WorkerStep | undefined;
  /** The step under way, for progress events. */
  running: RunningStep | undefined;
}

/** One step's part in this invocation, on the schedule (ms from the test's start). */
interface StepPart {
  readonly stepIndex: number;
  readonly load: number;
  /** This worker's share of the step's load. */
  readonly share: number;
  readonly stepStartMs: number;
  readonly partStartMs: number;
  readonly partEndMs: number;
  readonly windowStartScheduleMs: number;
  readonly windowMs: number;
  /** The segment ends before the step does. */
  readonly cut: boolean;
  readonly where: string;
}

/** A step whose requests are under way. */
interface StartedStep {
  readonly recorder: StepRecorder;
  readonly driver: StepDriver;
  readonly stream: StreamStepRecorder | undefined;
  readonly running: RunningStep;
  readonly signal: AbortController;
  /** Stops passing the run's cancellation on to the step. */
  readonly detach: () => void;
}

/** A step's warm-up start and window end on the schedule (ms from the test's start). */
function stepBoundsMs(
  plan: LoadPlan,
  stepIndex: number,
): { readonly startMs: number; readonly endMs: number } {
  const startMs = stepIndex * stepPeriodMs(plan);
  return { startMs, endMs: startMs + stepPeriodMs(plan) };
}

function whereOf(plan: LoadPlan, stepIndex: number, load: number): string {
  return `step ${stepIndex + 1} (${describeLoad(load, plan.model)})`;
}

/** The worker index as given, or InvalidRunInputError naming the plan's workers. */
function checkWorkerIndex(plan: LoadPlan, workerIndex: number): number {
  if (!Number.isInteger(workerIndex) || workerIndex < 0 || workerIndex >= plan.workers) {
    throw new InvalidRunInputError([
      {
        field: 'workerIndex',
        given: String(workerIndex),
        expected: `a whole number from 0 to ${plan.workers - 1} (plan.workers is ${plan.workers})`,
      },
    ]);
  }
  return workerIndex;
}

/** Checks the arguments and maps the schedule onto this invocation; starts nothing. */
function prepareWorkerRun(args: RunLoadTestArgs): WorkerRun {
  const plan = parseLoadPlan(args.plan);
  const sla = parseSla(args.sla);
  const clock = args.clock ?? systemClock;
  const workerIndex = checkWorkerIndex(plan, args.workerIndex ?? 0);
  const invoker = stepInvokerOf(plan, sla, args, clock);
  const payloadCount = args.request instanceof PayloadMix ? args.request.size : 1;
  const segment = checkSegment(args.segment);
  const startEpochMs = args.startAtEpochMs ?? clock.epochMs();
  const toMonotonicUs = monotonicFromEpoch(clock);
  // Segment bounds are computed as index × length only, so that two segments agree exactly on
  // the boundary they share; the wall clock leaves out the gaps between segments.
  const segmentFromMs = segment === undefined ? 0 : segment.index * segment.seconds * 1000;
  const segmentToMs =
    segment === undefined ? Number.POSITIVE_INFINITY : (segment.index + 1) * segment.seconds * 1000;
  const wallOf = (scheduleMs: number): number => startEpochMs + scheduleMs - segmentFromMs;
  const maxTotalMs = plan.maxTotalSeconds * 1000;
  const previous = segment?.previous ?? [];
  const measuredBefore = stepsOverSegments(previous);
  const issuedBefore = previous.reduce((sum, result) => sum + (result.requestsIssued ?? 0), 0);
  return {
    args,
    plan,
    sla,
    clock,
    workerIndex,
    invoker,
    payloadCount,
    segment,
    startEpochMs,
    toMonotonicUs,
    segmentFromMs,
    segmentToMs,
    wallOf,
    maxTotalMs,
    hardStop: hardStopOf(plan, wallOf(maxTotalMs), args.deadlineEpochMs),
    previous,
    cancel: new AbortController(),
    budget: new RequestBudget(
      plan.maxTotalRequests === undefined
        ? undefined
        : Math.max(0, workerShare(plan.maxTotalRequests, plan.workers, workerIndex, true) - issuedBefore),
    ),
    steps: [],
    // Steps finished in earlier segments count for stepping as if measured in this invocation.
    judged: measuredBefore
      .filter((step) => step.cutAtSegmentEnd !== true && step.workerLoad > 0)
      .map((step) => mergeWorkerSteps([step], sla, plan.model)),
    resumed: measuredBefore.find((step) => step.cutAtSegmentEnd === true),
    running: undefined,
  };
}

/** Passes the caller's cancellation on to the run; returns the function that stops listening. */
function followCancellation(signal: AbortSignal | undefined, cancel: AbortController): () => void {
  const onCancel = (): void => {
    cancel.abort('cancelled');
  };
  if (signal?.aborted === true) onCancel();
  signal?.addEventListener('abort', onCancel, { once: true });
  return () => {
    signal?.removeEventListener('abort', onCancel);
  };
}

/** A reason to stop before the first step: a start past the hard stop, or a stop in an earlier segment. */
function stopBeforeStart(run: WorkerRun): Stop | undefined {
  if (run.startEpochMs > run.hardStop.epochMs) {
    return {
      reason: 'deadline',
      detail: `the start ${new Date(run.startEpochMs).toISOString()} is after ${run.hardStop.label}`,
    };
  }
  const stoppedBefore = run.previous[run.previous.length - 1];
  if (stoppedBefore !== undefined && stoppedBefore.stoppedBecause !== 'segment-end') {
    return {
      reason: stoppedBefore.stoppedBecause,
      detail: `stopped in segment ${run.previous.length}: ${stoppedBefore.stopDetail}`,
    };
  }
  return undefined;
}

/** A reason not to run a step here: it starts in the next segment, or would end past a hard stop. */
function stopBeforeStep(run: WorkerRun, stepIndex: number, load: number): Stop | undefined {
  const { plan, segmentToMs } = run;
  const { startMs: stepStartMs, endMs: stepEndMs } = stepBoundsMs(plan, stepIndex);
  const where = whereOf(plan, stepIndex, load);
  if (stepStartMs >= segmentToMs) {
    return {
      reason: 'segment-end',
      detail: `segment ${(run.segment?.index ?? 0) + 1} ended ${seconds(segmentToMs)} into the schedule; ${where} runs in the next`,
    };
  }
  const partEndEpochMs = run.wallOf(Math.min(stepEndMs, segmentToMs));
  if (partEndEpochMs > run.hardStop.epochMs) {
    return {
      reason: 'deadline',
      detail: `${where} would end at ${new Date(partEndEpochMs).toISOString()}, after ${run.hardStop.label}`,
    };
  }
  // A step cut by the segment must still end within maxTotalSeconds once resumed.
  if (stepEndMs > run.maxTotalMs) {
    return {
      reason: 'deadline',
      detail: `${where} would end ${seconds(stepEndMs)} into the schedule, after maxTotalSeconds (${plan.maxTotalSeconds} s)`,
    };
  }
  return undefined;
}

function stepPartOf(run: WorkerRun, stepIndex: number, load: number): StepPart {
  const { plan } = run;
  const { startMs: stepStartMs, endMs: stepEndMs } = stepBoundsMs(plan, stepIndex);
  const partEndMs = Math.min(stepEndMs, run.segmentToMs);
  return {
    stepIndex,
    load,
    share: workerLoad(plan, load, run.workerIndex),
    stepStartMs,
    partStartMs: Math.max(stepStartMs, run.segmentFromMs),
    partEndMs,
    windowStartScheduleMs: stepStartMs + plan.warmupSeconds * 1000,
    windowMs: plan.stepDurationSeconds * 1000,
    cut: partEndMs < stepEndMs,
    where: whereOf(plan, stepIndex, load),
  };
}

/** The step's recorder, its driver and its own signal, which the run's cancellation aborts. */
function startStep(run: WorkerRun, part: StepPart): StartedStep {
  const { plan, clock, workerIndex } = run;
  const windowStartEpochMs = run.wallOf(part.windowStartScheduleMs);
  const recorder = new StepRecorder({
    stepIndex: part.stepIndex,
    load: part.load,
    workerLoad: part.share,
    windowStartEpochMs,
    windowMs: part.windowMs,
    windowStartUs: run.toMonotonicUs(windowStartEpochMs),
    measuredCap:
      plan.maxRequestsPerStep === undefined
        ? Number.POSITIVE_INFINITY
        : workerShare(plan.maxRequestsPerStep, plan.workers, workerIndex, true),
    requestTimeoutUs: plan.requestTimeoutMs * 1000,
    payloads: run.payloadCount,
    timeline: plan.ramp !== undefined,
    ...(part.cut ? { partEndUs: run.toMonotonicUs(run.wallOf(part.partEndMs)) } : {}),
  });
  recorder.joinAt(clock.nowUs());
  const signal = new AbortController();
  // Every request in flight may listen on the step's signal (the SDK adds one listener per
  // call): hundreds of listeners are expected here, not a leak.
  setMaxListeners(0, signal.signal);
  const cutShort = (): void => {
    signal.abort(run.cancel.signal.reason);
  };
  run.cancel.signal.addEventListener('abort', cutShort, { once: true });
  const stream = run.invoker.newStreamRecorder();
  const driver = new StepDriver({
    clock,
    transport: run.invoker.transport,
    ...(stream === undefined ? {} : { stream }),
    request: run.args.request,
    payloadSeed: payloadSeed(workerIndex, part.stepIndex, run.segment?.index ?? 0),
    recorder,
    budget: run.budget,
    signal: signal.signal,
  });
  const running = { stepIndex: part.stepIndex, load: part.load, driver };
  run.running = running;
  return {
    running,
    recorder,
    driver,
    stream,
    signal,
    detach: () => {
      run.cancel.signal.removeEventListener('abort', cutShort);
    },
  };
}

/** Sends the step's requests by the plan's model; resolves when the part is over. */
function sendRequests(run: WorkerRun, part: StepPart, driver: StepDriver): Promise<void> {
  const { plan, clock, workerIndex } = run;
  const originUs = run.toMonotonicUs(run.wallOf(part.stepStartMs));
  // A worker that starts the step later than the late tolerance (a late Lambda) skips the
  // arrivals it missed rather than sending them in a burst; the recorder measures from its join.
  const joinedUs = clock.nowUs() - originUs;
  const partFromUs = (part.partStartMs - part.stepStartMs) * 1000;
  const fromUs = Math.max(partFromUs, joinedUs > partFromUs + plan.lateToleranceMs * 1000 ? joinedUs : 0);
  // A ramp's grid: the warm-up at its start rate, then up to the step's over the window; the
  // same offsets in every segment, so a resumed part goes on with the same arrivals.
  const grid =
    plan.ramp === undefined
      ? constantGrid(part.share)
      : rampGrid({
          fromPerSecond: workerShare(plan.ramp.fromTps, plan.workers, workerIndex, false),
          toPerSecond: part.share,
          rampStartUs: plan.warmupSeconds * 1_000_000,
          rampUs: part.windowMs * 1000,
        });
  if (plan.model === 'closed') return runClosedModel(driver, part.share);
  return runOpenModel(driver, {
    grid,
    maxInFlight: plan.maxInFlight,
    lateToleranceUs: plan.lateToleranceMs * 1000,
    requestTimeoutUs: plan.requestTimeoutMs * 1000,
    originUs,
    firstArrival: grid.before(fromUs),
    endArrival: grid.before((part.partEndMs - part.stepStartMs) * 1000),
    endUs: run.toMonotonicUs(run.wallOf(part.partEndMs)),
  });
}

/** Waits for the step's requests; at the hard stop, aborts them. True if the hard stop came first. */
async function finishOrHitDeadline(
  run: WorkerRun,
  started: StartedStep,
  work: Promise<void>,
): Promise<boolean> {
  const deadlineHit = await deadlineComesFirst(run.clock, work, run.toMonotonicUs(run.hardStop.epochMs));
  if (deadlineHit) {
    started.signal.abort('deadline');
    await work;
  }
  started.detach();
  return deadlineHit;
}

/**
 * Keeps the step's figures and judges it on this worker's own figures. A step is kept unless the
 * request cap ended the run before its window measured anything (a worker whose share of the load
 * is zero keeps its empty step: it covered the window). True if the step is complete.
 */
function keepStep(run: WorkerRun, part: StepPart, started: StartedStep): boolean {
  const { recorder, driver, stream } = started;
  const earlierPart = run.resumed?.stepIndex === part.stepIndex ? run.resumed : undefined;
  const complete = !(driver.budgetExhausted && recorder.measuredStarts === 0 && earlierPart === undefined);
  // A part that ended in the warm-up measured nothing: the next segment runs the window.
  const measuredPart = part.partEndMs > part.windowStartScheduleMs;
  if (complete && measuredPart) {
    const workerStep = {
      ...recorder.toWorkerStep(),
      ...(stream === undefined ? {} : { stream: stream.toFigures() }),
    };
    run.steps.push(workerStep);
    // A worker with no share of a step has nothing to judge it on; the merged step is judged
    // by the aggregation. A step cut at the segment's end is judged once its window is over.
    const whole = earlierPart === undefined ? workerStep : mergeStepParts([earlierPart, workerStep]);
    if (part.share > 0 && whole.cutAtSegmentEnd !== true)
      run.judged.push(mergeWorkerSteps([whole], run.sla, run.plan.model));
  }
  return complete;
}

/** Why the run stops after this step, if it does: the hard stop, the request cap, the segment's end or the SLA. */
function stopAfterStep(
  run: WorkerRun,
  part: StepPart,
  outcome: { readonly deadlineHit: boolean; readonly complete: boolean; readonly budgetExhausted: boolean },
): Stop | undefined {
  const { plan } = run;
  if (outcome.deadlineHit) {
    return {
      reason: 'deadline',
      detail: `${run.hardStop.label} came while ${part.where} was finishing; requests still in flight were counted as timeouts`,
    };
  }
  if (outcome.budgetExhausted) {
    return {
      reason: 'request-cap',
      detail: `maxTotalRequests (${plan.maxTotalRequests ?? 'unlimited'}) reached during ${part.where}${outcome.complete ? '' : ', before its window; that step is left out'}`,
    };
  }
  if (part.cut) {
    return {
      reason: 'segment-end',
      detail: `segment ${(run.segment?.index ?? 0) + 1} ended ${seconds(part.partEndMs)} into the schedule, during ${part.where}; the next segment resumes it`,
    };
  }
  const stopPoint = findStopPoint(run.judged, plan, plan.model);
  return stopPoint === null ? undefined : { reason: stopPoint.reason, detail: stopPoint.detail };
}

/** Runs one step's part in this invocation: start, send, finish, keep, and decide whether to go on. */
async function runStep(
  run: WorkerRun,
  ticker: ProgressTicker | undefined,
  part: StepPart,
): Promise<Stop | undefined> {
  const started = startStep(run, part);
  const work = sendRequests(run, part, started.driver);
  const deadlineHit = await finishOrHitDeadline(run, started, work);
  const cancelled = run.cancel.signal.aborted;
  if (!part.cut && !deadlineHit && !cancelled) ticker?.final(started.running);
  if (cancelled)
    return { reason: 'aborted', detail: `cancelled during ${part.where}; that step is left out` };
  const complete = keepStep(run, part, started);
  return stopAfterStep(run, part, { deadlineHit, complete, budgetExhausted: started.driver.budgetExhausted });
}

/** Runs the scheduled steps that fall in this invocation, in order, until one gives a reason to stop. */
async function runSchedule(run: WorkerRun, ticker: ProgressTicker | undefined): Promise<Stop> {
  const early = stopBeforeStart(run);
  if (early !== undefined) return early;
  const { plan } = run;
  const loads = scheduledLoads(plan);
  for (const [stepIndex, load] of loads.entries()) {
    // Steps that ended in earlier segments were run there.
    if (stepBoundsMs(plan, stepIndex).endMs <= run.segmentFromMs) continue;
    const before = stopBeforeStep(run, stepIndex, load);
    if (before !== undefined) return before;
    const part = stepPartOf(run, stepIndex, load);
    await run.clock.sleepUntil(run.toMonotonicUs(run.wallOf(part.partStartMs)), run.cancel.signal);
    if (run.cancel.signal.aborted) return { reason: 'aborted', detail: `cancelled before ${part.where}` };
    const stop = await runStep(run, ticker, part);
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
}

function workerResultOf(run: WorkerRun, stop: Stop, progressFailure: string | undefined): WorkerResult {
  return {
    schemaVersion: 1,
    workerIndex: run.workerIndex,
    workers: run.plan.workers,
    model: run.plan.model,
    startEpochMs: run.startEpochMs,
    finishedEpochMs: run.clock.epochMs(),
    ...(run.segment === undefined
      ? {}
      : { segmentIndex: run.segment.index, requestsIssued: run.budget.taken }),
    steps: run.steps,
    stoppedBecause: stop.reason,
    stopDetail:
      progressFailure === undefined
        ? stop.detail
        : `${stop.detail}; progress events stopped: ${progressFailure}`,
  };
}

/**
 * Runs one worker's share of a load test: SLA-aware stepping on a fixed schedule derived from the
 * shared start (step i's warm-up begins at start + i × (warm-up + window)), each step judged on
 * this worker's own figures through the same merge and SLA rules the aggregation uses. The
 * result holds encoded histograms and counts; `aggregateWorkerResults` turns one or many of them
 * into the load test's result.
 */
export async function runLoadTest(args: RunLoadTestArgs): Promise<WorkerResult> {
  const run = prepareWorkerRun(args);
  const stopFollowing = followCancellation(args.signal, run.cancel);
  const ticker =
    args.onProgress === undefined
      ? undefined
      : startProgressTicker(run.clock, () => run.running, args.onProgress, run.workerIndex);
  try {
    const stop = await runSchedule(run, ticker);
    return workerResultOf(run, stop, ticker?.failure());
  } finally {
    ticker?.stop();
    stopFollowing();
  }
}
