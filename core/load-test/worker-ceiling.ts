/**
 * How many signed InvokeEndpoint requests one load worker can issue per second, and the planner's
 * check of an open-model plan against it. On AWS each request costs the worker SigV4 signing and
 * TLS through the SDK; past this rate the worker's own CPU, not the endpoint, limits the arrivals
 * (starts are late, latencies include the client's queueing). Measured by `npm run bench`
 * (bench/signed-path.ts; figures and method in bench/RESULTS.md, "Signed path").
 */
import { scheduledLoads } from './plan.js';
import type { LoadPlan } from '../contracts/index.js';
import { LOAD_WORKER_MEMORY_MB } from '../contracts/index.js';

/** Lambda memory per vCPU (see LOAD_WORKER_MEMORY_MB). */
export const LAMBDA_MB_PER_VCPU = 1769;

/**
 * Signed requests per CPU-second of the load worker's client (the engine through the tuned
 * SageMaker Runtime transport, 32 in flight, 18-byte JSON bodies): 1,321, the median of the 20
 * tuned rounds of four bench runs on a shared 2-vCPU x86 machine (load average 9-16), rounded
 * down (bench/RESULTS.md "Signed path"; the busiest run measured 942, an idle machine more).
 */
export const SIGNED_REQUESTS_PER_CPU_SECOND = 1_300;

/**
 * The ceiling of one load worker: the measured rate per CPU-second times the CPU a worker gets,
 * at most one vCPU (2,048 MB buys 1.16 vCPU, but the engine, the SDK and TLS all run on Node's
 * one JavaScript thread, so the rest serves only the garbage collector and I/O threads).
 */
export const SIGNED_REQUESTS_PER_WORKER_SECOND = Math.floor(
  SIGNED_REQUESTS_PER_CPU_SECOND * Math.min(1, LOAD_WORKER_MEMORY_MB / LAMBDA_MB_PER_VCPU),
);

/**
 * Workers an arrival rate needs so that none exceeds SIGNED_REQUESTS_PER_WORKER_SECOND. Never more
 * than MAX_WORKERS for a rate a plan may ask (MAX_ARRIVAL_RATE): a test holds the two together.
 */
export function workersForArrivalRate(requestsPerSecond: number): number {
  return Math.max(1, Math.ceil(requestsPerSecond / SIGNED_REQUESTS_PER_WORKER_SECOND));
}

/**
 * Why an open-model plan asks more of each worker than a worker can sign, or undefined. The
 * highest scheduled step (extension steps included) decides: steps ascend. A warning, not a
 * refusal: the ceiling was measured on another CPU with small bodies, and a plan above it still
 * runs; its late starts (counted per step) show where the worker fell behind.
 */
export function workerCeilingWarning(plan: LoadPlan): string | undefined {
  if (plan.model !== 'open') return undefined;
  const loads = scheduledLoads(plan);
  const top = loads[loads.length - 1] ?? 0;
  const perWorker = top / plan.workers;
  if (perWorker <= SIGNED_REQUESTS_PER_WORKER_SECOND) return undefined;
  return (
    `loadPlan.workers: the top step of ${top} requests/s is ${Math.round(perWorker)} requests/s for each of ` +
    `${plan.workers} worker(s), more than the ~${SIGNED_REQUESTS_PER_WORKER_SECOND} signed InvokeEndpoint ` +
    `requests/s one ${LOAD_WORKER_MEMORY_MB} MB load worker can send on AWS (bench/RESULTS.md, "Signed path"); ` +
    `its own CPU would delay the arrivals and add to the latencies: set loadPlan.workers to at least ` +
    `${workersForArrivalRate(top)}.`
  );
}
