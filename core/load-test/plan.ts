import {
  LOAD_WORKER_MEASURING_SECONDS,
  type LoadPlan,
  MAX_ARRIVAL_RATE,
  MAX_CONCURRENCY,
} from '../contracts/index.js';

/**
 * The arithmetic of a load plan (contracts/load-plan.ts): its schedule, segments and each worker's
 * share of the load.
 */

/**
 * The shortest segment a plan may be cut into: below a minute, a worker Lambda would spend more
 * time starting and writing its result than measuring.
 */
export const MIN_SEGMENT_SECONDS = 60;

/** The time one step takes on the schedule: warm-up then measurement window. */
export function stepPeriodMs(plan: LoadPlan): number {
  return (plan.warmupSeconds + plan.stepDurationSeconds) * 1000;
}

/** At most this many extension steps (×2 each: up to 64 × the last planned step). */
export const MAX_EXTENSION_STEPS = 6;
/** `maxLoad` when the plan names none: 8 × the last planned step (three doublings). */
export const DEFAULT_MAX_LOAD_FACTOR = 8;

/**
 * The loads of the whole schedule: the planned steps, then, with `extendUntilSaturated`, the
 * extension steps a worker runs only if no step stopped the stepping (each double the last, the
 * final one at `maxLoad` when doubling would pass it). Everything that plans for the worst case
 * (duration, segments, connections, cost) counts them.
 */
export function scheduledLoads(plan: LoadPlan): readonly number[] {
  const last = plan.steps[plan.steps.length - 1];
  if (plan.extendUntilSaturated !== true || last === undefined) return plan.steps;
  const limit = plan.model === 'closed' ? MAX_CONCURRENCY : MAX_ARRIVAL_RATE;
  const cap = Math.min(plan.maxLoad ?? last * DEFAULT_MAX_LOAD_FACTOR, limit);
  const loads = [...plan.steps];
  let load = last;
  while (load < cap && loads.length - plan.steps.length < MAX_EXTENSION_STEPS) {
    load = Math.min(load * 2, cap);
    loads.push(load);
  }
  return loads;
}

/** The schedule's length if every step runs (extension steps included). */
export function plannedDurationSeconds(plan: LoadPlan): number {
  return (scheduledLoads(plan).length * stepPeriodMs(plan)) / 1000;
}

/** How long one candidate's load test can last: every step's warm-up and window, capped. */
export function loadTestSeconds(plan: LoadPlan): number {
  return Math.min(plan.maxTotalSeconds, plannedDurationSeconds(plan));
}

/**
 * The schedule length one load worker invocation runs on AWS: the worker's measuring time
 * (its Lambda timeout less a minute to start and write its result) less the request timeout, so
 * the requests still in flight at a segment's end settle before the Lambda must return. Never
 * below MIN_SEGMENT_SECONDS (a request timeout that long may then be cut at a segment's end).
 */
export function awsSegmentSeconds(plan: LoadPlan): number {
  return Math.max(
    MIN_SEGMENT_SECONDS,
    LOAD_WORKER_MEASURING_SECONDS - Math.ceil(plan.requestTimeoutMs / 1000),
  );
}

/** Worker invocations one load test takes in the worst case (every step runs). */
export function segmentCount(plan: LoadPlan, segmentSeconds: number): number {
  return Math.max(1, Math.ceil(loadTestSeconds(plan) / segmentSeconds));
}

/**
 * This worker's part of a total: whole units (concurrency, request caps) are dealt out so that the
 * parts add up exactly (16 over 3 workers: 6, 5, 5); rates are split evenly.
 */
export function workerShare(total: number, workers: number, workerIndex: number, whole: boolean): number {
  if (!whole) return total / workers;
  const base = Math.floor(total / workers);
  return base + (workerIndex < total % workers ? 1 : 0);
}

/** The load one worker applies at a step: in-flight requests (closed) or requests/s (open). */
export function workerLoad(plan: LoadPlan, load: number, workerIndex: number): number {
  return workerShare(load, plan.workers, workerIndex, plan.model === 'closed');
}

/**
 * Connections a worker's transport must hold so that no request waits for a socket (the SDK's
 * default of 50 sockets per client would otherwise queue requests and report the queueing as
 * latency): the largest per-worker concurrency for a closed plan, `maxInFlight` for an open one.
 */
export function connectionsPerWorker(plan: LoadPlan): number {
  if (plan.model === 'open') return plan.maxInFlight;
  const loads = scheduledLoads(plan);
  const largest = loads[loads.length - 1] ?? 1;
  return Math.max(1, Math.ceil(largest / plan.workers));
}
