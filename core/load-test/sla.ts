import type { StepResult, StepStall } from './results.js';
import { describeStall, describeStallAt } from './stall.js';
import type { StreamStepResult } from './streaming/stream-figures.js';
import { streamSlaBreaches } from './streaming/stream-sla.js';
import type { LatencyPercentilesMs, LoadModel, LoadPlan, LatencySla } from '../contracts/index.js';

/** The figures of a merged step the SLA is judged on. */
export interface StepFigures {
  readonly requests: number;
  readonly dropped: number;
  readonly errorRate: number;
  readonly latencyMs: LatencyPercentilesMs;
  readonly windowSeconds: number;
  /** Streamed steps: TTFT and ITL, judged on `ttftP95Ms` and `itlP95Ms`. */
  readonly stream?: StreamStepResult;
  /** Where the endpoint stopped answering (stall.ts): the step cannot meet the SLA. */
  readonly stall?: StepStall;
}

/** "16 in flight" or "200 requests/s". */
export function describeLoad(load: number, model: LoadModel): string {
  return model === 'closed' ? `${load} in flight` : `${load} requests/s`;
}

function formatMs(ms: number): string {
  return `${ms.toFixed(3)} ms`;
}

function formatPercent(fraction: number): string {
  return `${(fraction * 100).toFixed(2)}%`;
}

/** Every way a step misses the SLA, each as a sentence; empty when it meets it. */
export function slaBreaches(step: StepFigures, sla: LatencySla): string[] {
  if (step.windowSeconds <= 0) {
    return ['no measurement window: the workers never ran this step at the same time'];
  }
  // First, and before "no request": an endpoint stalled since the warm-up holds every user of a
  // closed model, so none starts a measured request.
  const breaches: string[] = step.stall === undefined ? [] : [describeStall(step.stall)];
  if (step.requests === 0 && step.dropped === 0) {
    return [...breaches, 'no request was measured in the window'];
  }
  if (sla.p95LatencyMs !== undefined && step.latencyMs.p95 > sla.p95LatencyMs) {
    breaches.push(`p95 ${formatMs(step.latencyMs.p95)} > SLA ${sla.p95LatencyMs} ms`);
  }
  if (sla.p99LatencyMs !== undefined && step.latencyMs.p99 > sla.p99LatencyMs) {
    breaches.push(`p99 ${formatMs(step.latencyMs.p99)} > SLA ${sla.p99LatencyMs} ms`);
  }
  breaches.push(...streamSlaBreaches(step.stream, sla));
  if (step.errorRate > sla.maxErrorRate) {
    breaches.push(`error rate ${formatPercent(step.errorRate)} > SLA ${formatPercent(sla.maxErrorRate)}`);
  }
  if (step.dropped > 0) {
    // A dropped start means the offered load was not delivered: whatever the other figures say,
    // the endpoint was not shown to sustain this step.
    breaches.push(
      `${step.dropped} of ${step.requests + step.dropped} scheduled requests dropped: they waited longer than the request timeout for a free connection`,
    );
  }
  return breaches;
}

export interface StopPoint {
  /** Index into the steps of the step that ends the stepping. */
  readonly index: number;
  readonly reason: 'sla-breached' | 'stalled' | 'plateau';
  readonly detail: string;
}

function formatTps(tps: number): string {
  return `${tps.toFixed(1)} TPS`;
}

/**
 * The first step at which SLA-aware stepping stops: the first step whose endpoint stalled (named
 * as such: a hang, not a capacity limit), the first step that breaches the SLA, or,
 * with `stopAtPlateau`, the first whose throughput is below `plateauGain` × the best throughput of
 * the steps before it (throughput stopped rising: more load only adds queueing).
 */
export function findStopPoint(
  steps: readonly StepResult[],
  plan: LoadPlan,
  model: LoadModel,
): StopPoint | null {
  let bestIndex = -1;
  let bestTps = 0;
  for (const [index, step] of steps.entries()) {
    const where = `step ${index + 1} (${describeLoad(step.load, model)})`;
    const stall = step.stall;
    if (stall !== undefined) {
      const said = describeStall(stall);
      const others = step.slaBreaches.filter((breach) => breach !== said);
      return {
        index,
        reason: 'stalled',
        detail: `${describeStallAt(stall, where)}${others.length === 0 ? '' : `; also ${others.join('; ')}`}`,
      };
    }
    if (!step.meetsSla) {
      return { index, reason: 'sla-breached', detail: `${where}: ${step.slaBreaches.join('; ')}` };
    }
    if (plan.stopAtPlateau && bestIndex >= 0 && step.tps < plan.plateauGain * bestTps) {
      return {
        index,
        reason: 'plateau',
        detail: `${where}: ${formatTps(step.tps)} is less than ${plan.plateauGain} × ${formatTps(bestTps)} of step ${bestIndex + 1}`,
      };
    }
    if (step.tps > bestTps || bestIndex < 0) {
      bestTps = step.tps;
      bestIndex = index;
    }
  }
  return null;
}

/**
 * The candidate's sustainable throughput: the step with the highest TPS among those that met the
 * SLA before the first breach (a later step that meets it again does not count: the endpoint
 * already failed at a lower load). Ties go to the lower load.
 */
export function pickSustainable(steps: readonly StepResult[]): { tps: number; load: number } | null {
  let best: { tps: number; load: number } | null = null;
  for (const step of steps) {
    if (!step.meetsSla) break;
    if (best === null || step.tps > best.tps) best = { tps: step.tps, load: step.load };
  }
  return best;
}
