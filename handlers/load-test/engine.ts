import { setMaxListeners } from 'node:events';
import { InvalidRunInputError, describeError } from '../contracts/errors.js';
import { mergeWorkerSteps } from './aggregate.js';
import { systemClock } from './clock.js';
import { usToMs } from './histogram.js';
import { runClosedModel } from './closed-model.js';
import { runOpenModel } from './open-model.js';
import { PayloadMix, payloadSeed } from './payload-mix.js';
import { parseLoadPlan, parseSla, stepPeriodMs, workerLoad, workerShare } from './plan.js';
import type { LatencySla, LatencySlaInput, LoadPlan, LoadPlanInput } from './plan.js';
import type { Clock, InvokeRequest, InvokeTransport } from './ports.js';
import type { LoadTestProgress, StepResult, StopReason, WorkerResult, WorkerStep } from './results.js';
import { describeLoad, findStopPoint } from './sla.js';
import { RequestBudget, StepDriver } from './step-driver.js';
import { StepRecorder } from './step-recorder.js';

/**
 * Time kept free before a deadline: the engine returns at least this long before it, so the caller
 * (a Lambda with its remaining time) can still serialize and hand back the result.
 */
export const DEADLINE_RESERVE_MS = 1000;

export interface RunLoadTestArgs {
  readonly plan: LoadPlan | LoadPlanInput;
  readonly sla: LatencySla | LatencySlaInput;
  /** The caller's: built for `connectionsPerWorker(plan)` connections, closed by the caller. */
  readonly transport: InvokeTransport;
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
}

interface Stop {
  readonly reason: StopReason;
  readonly detail: string;
}

interface RunningStep {
  readonly stepIndex: number;
  readonly load: number;
  readonly driver: StepDriver;
}

/** Maps the shared wall-clock schedule onto this process's monotonic clock. */
function monotonicFromEpoch(clock: Clock): (epochMs: number) => number {
  const anchorUs = clock.nowUs();
  const anchorEpochMs = clock.epochMs();
  return (epochMs) => anchorUs + (epochMs - anchorEpochMs) * 1000;
}

function hardStopOf(plan: LoadPlan, startEpochMs: number, deadlineEpochMs: number | undefined) {
  const byDuration = {
    epochMs: startEpochMs + plan.maxTotalSeconds * 1000,
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
  };
}

/** Emits progress once a second until stopped; a throwing callback ends the events, not the run. */
function startProgressTicker(
  clock: Clock,
  current: () => RunningStep | undefined,
  emit: (event: LoadTestProgress) => void,
  workerIndex: number,
): { stop(): void; failure(): string | undefined } {
  const stopped = new AbortController();
  let failure: string | undefined;
  // A function, not the property: the compiler would otherwise assume it cannot change in the loop.
  const isStopped = (): boolean => stopped.signal.aborted;
  void (async () => {
    let nextUs = clock.nowUs() + 1_000_000;
    while (!isStopped()) {
      await clock.sleepUntil(nextUs, stopped.signal);
      if (isStopped()) return;
      nextUs += 1_000_000;
      const step = current();
      if (step === undefined) continue;
      try {
        emit(progressOf(workerIndex, step, clock.nowUs()));
      } catch (error) {
        failure = describeError(error);
        return;
      }
    }
  })();
  return {
    stop: () => {
      stopped.abort();
    },
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
  const payloadCount = args.request instanceof PayloadMix ? args.request.size : 1;
  const startEpochMs = args.startAtEpochMs ?? clock.epochMs();
  const toMonotonicUs = monotonicFromEpoch(clock);
  const hardStop = hardStopOf(plan, startEpochMs, args.deadlineEpochMs);
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
  const budget = new RequestBudget(
    plan.maxTotalRequests === undefined
      ? undefined
      : workerShare(plan.maxTotalRequests, plan.workers, workerIndex, true),
  );
  const steps: WorkerStep[] = [];
  const judged: StepResult[] = [];

  const runStep = async (stepIndex: number, load: number): Promise<Stop | undefined> => {
    const windowStartEpochMs = startEpochMs + stepIndex * stepPeriodMs(plan) + plan.warmupSeconds * 1000;
    const windowMs = plan.stepDurationSeconds * 1000;
    const share = workerLoad(plan, load, workerIndex);
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
      payloads: payloadCount,
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
    const driver = new StepDriver({
      clock,
      transport: args.transport,
      request: args.request,
      payloadSeed: payloadSeed(workerIndex, stepIndex),
      recorder,
      budget,
      signal: step.signal,
    });
    running = { stepIndex, load, driver };
    const work =
      plan.model === 'closed'
        ? runClosedModel(driver, share)
        : runOpenModel(driver, {
            ratePerSecond: share,
            maxInFlight: plan.maxInFlight,
            lateToleranceUs: plan.lateToleranceMs * 1000,
            requestTimeoutUs: plan.requestTimeoutMs * 1000,
            windowEndUs: recorder.window.windowStartUs + windowMs * 1000,
          });
    const deadlineHit = await deadlineComesFirst(clock, work, toMonotonicUs(hardStop.epochMs));
    if (deadlineHit) {
      step.abort('deadline');
      await work;
    }
    run.signal.removeEventListener('abort', cutShort);
    const where = `step ${stepIndex + 1} (${describeLoad(load, plan.model)})`;
    if (run.signal.aborted)
      return { reason: 'aborted', detail: `cancelled during ${where}; that step is left out` };
    // A step is kept unless the request cap ended the run before its window measured anything (a
    // worker whose share of the load is zero keeps its empty step: it covered the window).
    const complete = !(driver.budgetExhausted && recorder.measuredStarts === 0);
    if (complete) {
      const workerStep = recorder.toWorkerStep();
      steps.push(workerStep);
      // A worker with no share of a step has nothing to judge it on; the merged step is judged
      // by the aggregation.
      if (share > 0) judged.push(mergeWorkerSteps([workerStep], sla, plan.model));
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
    for (const [stepIndex, load] of plan.steps.entries()) {
      const stepStartEpochMs = startEpochMs + stepIndex * stepPeriodMs(plan);
      const windowEndEpochMs = stepStartEpochMs + stepPeriodMs(plan);
      const where = `step ${stepIndex + 1} (${describeLoad(load, plan.model)})`;
      if (windowEndEpochMs > hardStop.epochMs) {
        return {
          reason: 'deadline',
          detail: `${where} would end at ${new Date(windowEndEpochMs).toISOString()}, after ${hardStop.label}`,
        };
      }
      await clock.sleepUntil(toMonotonicUs(stepStartEpochMs), run.signal);
      if (run.signal.aborted) return { reason: 'aborted', detail: `cancelled before ${where}` };
      const stop = await runStep(stepIndex, load);
      if (stop !== undefined) return stop;
    }
    return { reason: 'completed', detail: `all ${plan.steps.length} steps ran` };
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
