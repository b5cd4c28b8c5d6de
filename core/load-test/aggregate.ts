import { LoadTestAbortedError } from '../contracts/index.js';
import { mergeErrorSamples } from './error-samples.js';
import {
  encodeHistogram,
  type LatencyHistogram,
  latencyPercentilesMs,
  mergeEncodedHistograms,
} from './histogram.js';
import { addErrorCounts, emptyErrorCounts, totalErrors } from './results.js';
import type {
  LoadTestResult,
  PayloadStepResult,
  PayloadWorkerStep,
  StepResult,
  StopReason,
  WorkerResult,
  WorkerStep,
  WorkerStopReason,
} from './results.js';
import { findStopPoint, pickSustainable, slaBreaches } from './sla.js';
import { longestStall } from './stall.js';
import { mergeStreamStep } from './streaming/merge.js';
import { mergeTimeline } from './timeline.js';
import type { LoadModel, LoadPlan, LatencySla } from '../contracts/index.js';

function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

/**
 * Successful completions a worker had in [fromMs, toMs) of the window. Buckets it covered only in
 * part are prorated by time; for a single worker the range is its own active window, so the count
 * is exact.
 */
function completionsWithin(step: WorkerStep, fromMs: number, toMs: number): number {
  let total = 0;
  step.okPerBucket.forEach((count, index) => {
    if (count === 0) return;
    const bucketStart = index * step.bucketMs;
    const bucketEnd = bucketStart + step.bucketMs;
    const active = Math.min(bucketEnd, step.activeToMs) - Math.max(bucketStart, step.activeFromMs);
    const common = Math.min(bucketEnd, toMs) - Math.max(bucketStart, fromMs);
    if (active <= 0 || common <= 0) return;
    total += common >= active ? count : (count * common) / active;
  });
  return total;
}

/**
 * Each payload's figures added over parts of one step (workers' steps, or one worker's segments),
 * by index: histograms added, counts added. Absent when no part recorded per-payload figures (a
 * run with one payload). The merged histogram comes decoded too, for percentiles.
 */
export function addPayloadFigures(
  parts: readonly WorkerStep[],
): { readonly figures: PayloadWorkerStep; readonly histogram: LatencyHistogram }[] | undefined {
  const count = Math.max(0, ...parts.map((part) => part.payloads?.length ?? 0));
  if (count === 0) return undefined;
  return Array.from({ length: count }, (_, payload) => {
    const own = parts.flatMap((part) => {
      const entry = part.payloads?.[payload];
      return entry === undefined ? [] : [entry];
    });
    const sum = (value: (entry: PayloadWorkerStep) => number): number =>
      own.reduce((total, entry) => total + value(entry), 0);
    const histogram = mergeEncodedHistograms(own.map((entry) => entry.histogram));
    return {
      histogram,
      figures: {
        requests: sum((entry) => entry.requests),
        ok: sum((entry) => entry.ok),
        errors: sum((entry) => entry.errors),
        histogram: encodeHistogram(histogram),
        maxLatencyUs: Math.max(0, ...own.map((entry) => entry.maxLatencyUs)),
      },
    };
  });
}

/** Each payload's figures over all workers, by index, with its percentiles. */
function mergePayloadSteps(parts: readonly WorkerStep[]): PayloadStepResult[] | undefined {
  return addPayloadFigures(parts)?.map(({ figures, histogram }, payload) => ({
    payload,
    requests: figures.requests,
    errors: figures.errors,
    latencyMs: latencyPercentilesMs(histogram, figures.maxLatencyUs),
    histogram: figures.histogram,
  }));
}

/**
 * One step over all workers: histograms added (never percentiles averaged), counts added,
 * throughput over the part of the window every worker covered. With one worker this is that
 * worker's step as it is: the engine judges its own steps through this same function.
 */
export function mergeWorkerSteps(
  parts: readonly WorkerStep[],
  sla: LatencySla,
  model: LoadModel,
): StepResult {
  const first = parts[0];
  if (first === undefined) {
    throw new LoadTestAbortedError('cannot merge a step without any worker data: expected at least one part');
  }
  const fromMs = Math.max(...parts.map((part) => part.activeFromMs));
  const toMs = Math.min(...parts.map((part) => part.activeToMs));
  const windowMs = Math.max(0, toMs - fromMs);
  const completions = parts.reduce((sum, part) => sum + completionsWithin(part, fromMs, toMs), 0);
  const histogram = mergeEncodedHistograms(parts.map((part) => part.histogram));
  const errors = emptyErrorCounts();
  for (const part of parts) addErrorCounts(errors, part.errors);
  const requests = parts.reduce((sum, part) => sum + part.requests, 0);
  const dropped = parts.reduce((sum, part) => sum + part.dropped, 0);
  const late = parts.reduce((sum, part) => sum + part.late, 0);
  const attempted = requests + dropped;
  const tps = windowMs > 0 ? round(completions / (windowMs / 1000), 3) : 0;
  const stream = mergeStreamStep(parts, tps);
  const stall = longestStall(parts.map((part) => part.stall));
  const figures = {
    requests,
    dropped,
    errorRate: attempted === 0 ? 0 : round((totalErrors(errors) + dropped) / attempted, 6),
    latencyMs: latencyPercentilesMs(histogram, Math.max(...parts.map((part) => part.maxLatencyUs))),
    windowSeconds: round(windowMs / 1000, 3),
    ...(stream === undefined ? {} : { stream }),
    ...(stall === undefined ? {} : { stall }),
  };
  const breaches = slaBreaches(figures, sla);
  const payloads = mergePayloadSteps(parts);
  const timeline = mergeTimeline(parts);
  return {
    load: first.load,
    loadKind: model === 'closed' ? 'concurrency' : 'arrival-rate',
    tps,
    errorRate: figures.errorRate,
    latencyMs: figures.latencyMs,
    requests,
    errors,
    errorSamples: mergeErrorSamples(parts),
    late,
    dropped,
    windowSeconds: figures.windowSeconds,
    workers: parts.length,
    meetsSla: breaches.length === 0,
    slaBreaches: breaches,
    histogram: encodeHistogram(histogram),
    ...(stall === undefined ? {} : { stall }),
    ...(payloads === undefined ? {} : { payloads }),
    ...(stream === undefined ? {} : { stream }),
    ...(timeline === undefined ? {} : { timeline }),
  };
}

/** When several workers stopped for different reasons, the most telling one is reported. */
const STOP_REASON_PRIORITY: readonly WorkerStopReason[] = [
  'aborted',
  'deadline',
  'request-cap',
  'stalled',
  'sla-breached',
  'plateau',
  'completed',
  'segment-end',
];

function checkWorkerSet(results: readonly WorkerResult[], plan: LoadPlan): void {
  const indexes = results.map((result) => result.workerIndex).sort((a, b) => a - b);
  const expected = Array.from({ length: plan.workers }, (_, index) => index);
  if (indexes.join(',') !== expected.join(',')) {
    throw new LoadTestAbortedError(
      `worker results do not match the plan: expected workers [${expected.join(', ')}], got [${indexes.join(', ')}]; a missing worker means the endpoint received less load than each step states`,
      { expected, got: indexes },
    );
  }
  const starts = new Set(results.map((result) => result.startEpochMs));
  const models = new Set(results.map((result) => result.model));
  if (starts.size !== 1 || models.size !== 1 || !models.has(plan.model)) {
    throw new LoadTestAbortedError(
      `worker results come from different runs: expected one start time and model '${plan.model}', got starts [${[...starts].join(', ')}] and models [${[...models].join(', ')}]`,
    );
  }
}

/** The steps every worker completed, by index: a step some worker did not run had less load. */
function commonSteps(results: readonly WorkerResult[]): WorkerStep[][] {
  const count = Math.min(...results.map((result) => result.steps.length));
  return Array.from({ length: count }, (_, index) =>
    results.map((result) => {
      const step = result.steps[index];
      if (step?.stepIndex !== index) {
        throw new LoadTestAbortedError(
          `worker ${result.workerIndex} reports step ${step?.stepIndex ?? 'none'} at position ${index}: expected step ${index}`,
        );
      }
      return step;
    }),
  );
}

function workerStopReason(results: readonly WorkerResult[], stepCount: number): WorkerResult {
  const rank = (list: readonly WorkerResult[]): WorkerResult[] =>
    [...list].sort(
      (a, b) =>
        STOP_REASON_PRIORITY.indexOf(a.stoppedBecause) - STOP_REASON_PRIORITY.indexOf(b.stoppedBecause),
    );
  const limiting = rank(results.filter((result) => result.steps.length === stepCount));
  // A worker paused at a segment's end was stopped by the others (the load test did not go on):
  // the reason is theirs.
  const chosen =
    limiting[0]?.stoppedBecause === 'segment-end'
      ? (rank(results)[0] ?? limiting[0])
      : (limiting[0] ?? results[0]);
  if (chosen === undefined)
    throw new LoadTestAbortedError('no worker results to aggregate: expected at least one');
  return chosen;
}

/**
 * Turns the results of all workers of a run (or of the single worker) into the load test's
 * result: merged steps, where SLA-aware stepping stops on the merged figures, and the sustainable
 * throughput.
 */
export function aggregateWorkerResults(
  results: readonly WorkerResult[],
  sla: LatencySla,
  plan: LoadPlan,
): LoadTestResult {
  checkWorkerSet(results, plan);
  const perStep = commonSteps(results);
  const steps = perStep.map((parts) => mergeWorkerSteps(parts, sla, plan.model));
  const stopPoint = findStopPoint(steps, plan, plan.model);
  const sustainable = pickSustainable(steps);
  const limiting = workerStopReason(results, steps.length);
  const extraSteps = Math.max(...results.map((result) => result.steps.length)) - steps.length;
  const droppedNote =
    extraSteps > 0
      ? `; ${extraSteps} step(s) run by only some workers are left out (the endpoint did not get their full load)`
      : '';

  let stoppedBecause: StopReason;
  let stopDetail: string;
  const limitingReason: StopReason =
    limiting.stoppedBecause === 'segment-end' ? 'deadline' : limiting.stoppedBecause;
  if (stopPoint !== null) {
    stoppedBecause = stopPoint.reason;
    stopDetail = stopPoint.detail;
    if (stopPoint.index < steps.length - 1) {
      stopDetail += `; the workers, each judging its own share, ran ${steps.length - 1 - stopPoint.index} step(s) beyond it`;
    }
  } else if (
    limiting.stoppedBecause === 'stalled' ||
    limiting.stoppedBecause === 'sla-breached' ||
    limiting.stoppedBecause === 'plateau'
  ) {
    // A worker stopped on its own figures although the merged step is fine (for example one
    // worker saw most of the errors): it ended the stepping all the same.
    stoppedBecause = limiting.stoppedBecause;
    stopDetail = `worker ${limiting.workerIndex} stopped on its own figures: ${limiting.stopDetail}`;
  } else {
    // Every worker paused at a segment's end, yet no segment followed: the schedule was cut short.
    stoppedBecause = limitingReason;
    stopDetail =
      plan.workers > 1 ? `worker ${limiting.workerIndex}: ${limiting.stopDetail}` : limiting.stopDetail;
  }

  const sustainableTps = sustainable?.tps ?? null;
  return {
    schemaVersion: 1,
    model: plan.model,
    workers: results.length,
    startEpochMs: Math.min(...results.map((result) => result.startEpochMs)),
    finishedEpochMs: Math.max(...results.map((result) => result.finishedEpochMs)),
    steps,
    sustainableTps,
    sustainableStep: sustainable?.load ?? null,
    meetsTargetTps:
      sla.targetTps === undefined ? null : sustainableTps !== null && sustainableTps >= sla.targetTps,
    stoppedBecause,
    stopDetail: stopDetail + droppedNote,
  };
}
