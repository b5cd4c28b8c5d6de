import { resourceName, RUN_LIMITS } from '../contracts/index.js';
import type {
  PlannedCandidate,
  ProofRequest,
  ProofStatus,
  ProvePlan,
  RunPlan,
  LoadPlan,
} from '../contracts/index.js';
import { stepPeriodMs, workersForArrivalRate } from '../load-test/index.js';
import type { StepResult } from '../load-test/index.js';
import type { InstanceShare } from './instance-spread.js';

/**
 * "Prove the target": after "Recommend", the candidate that serves the target is
 * deployed once more with the computed count and load tested with one open-model step at the target
 * rate; the SLA is judged on the figures merged over every worker. This module holds the arithmetic
 * and the vocabulary: what is deployed, with which load, and how the outcome reads.
 */

/**
 * The share of the target an open-model step must deliver for the target to count as carried: the
 * arrivals are scheduled at the target, so a lower rate means requests failed, were dropped or
 * started late (the workers' own limit), none of which is the target served.
 */
export const PROOF_MIN_TPS_SHARE = 0.95;

/**
 * The suffix of the proof's candidate id (and so of its resource names): `<winner>-prove`, and
 * `<winner>-prove-2` for the corrected count (a new name: the first endpoint may still be deleting,
 * and SageMaker keeps an endpoint's name until it is gone).
 */
export const PROOF_ID_SUFFIX = '-prove';

export type { InstanceShare };

/** report.json's `serveTarget.proof`. */
export interface ServeTargetProof {
  readonly status: ProofStatus;
  /** The candidate proven (the winner's id), its count and type. */
  readonly candidateId?: string;
  readonly instances?: number;
  readonly instanceType?: string;
  readonly targetTps: number;
  /** The merged step at the target rate; absent when none was measured. */
  readonly measured?: {
    readonly tps: number;
    readonly p95Ms: number;
    readonly p99Ms: number;
    readonly errorRate: number;
    readonly workers: number;
  };
  /** Per instance (locally, from the routing front) or the variant's per-instance figure (AWS). */
  readonly perInstance?: readonly InstanceShare[];
  /** Busiest ÷ least busy instance (instance-spread.ts); only with one count per instance. */
  readonly perInstanceImbalance?: number;
  /** Where `perInstance` comes from and what it covers, or why it is missing. */
  readonly perInstanceNote?: string;
  /** One sentence: what held or not, and what to do. */
  readonly note: string;
  /** The proof before this one, when this one corrects its count. */
  readonly previous?: Omit<ServeTargetProof, 'previous'>;
}

/**
 * Workers for an arrival rate: the plan's, or more when one worker could not sign the target's
 * requests (worker-ceiling.ts, the planner's own sizing), at most the workers one inline Map runs
 * at once (RUN_LIMITS.maxLoadWorkers): they must all start together.
 */
export function proofWorkers(loadPlan: Pick<LoadPlan, 'workers'>, targetTps: number): number {
  return Math.min(RUN_LIMITS.maxLoadWorkers, Math.max(loadPlan.workers, workersForArrivalRate(targetTps)));
}

/**
 * Why the proof cannot run for a plan, or undefined: it runs as one worker invocation (as a round
 * does), so a step longer than one is not provable. Checked at planning, written into the plan.
 */
export function proofSkipReason(loadPlan: LoadPlan, segmentSeconds: number): string | undefined {
  const stepSeconds = stepPeriodMs(loadPlan) / 1000;
  if (stepSeconds <= segmentSeconds) return undefined;
  return (
    `steps of ${stepSeconds} s (warmupSeconds + stepDurationSeconds) are longer than one load worker ` +
    `invocation (${segmentSeconds} s), and the proof runs as one; shorten the steps to prove the target`
  );
}

/**
 * The proof's load: the plan's warm-up, window, timeouts and request caps, one open-model step at
 * the target, no extension, no plateau stop and no rounds (the proof is one measurement).
 */
export function proofLoadPlan(loadPlan: LoadPlan, targetTps: number, workers: number): LoadPlan {
  const { extendUntilSaturated: _extend, maxLoad: _maxLoad, ...rest } = loadPlan;
  return {
    ...rest,
    model: 'open',
    steps: [targetTps],
    workers,
    stopAtPlateau: false,
    kneeProbes: 0,
    repeats: 1,
  };
}

/**
 * The winner as the proof deploys it: its model, image and settings, `instances` of its type, under
 * names of its own (`<winner>-prove`, derived from the run id like every candidate's), so a retried
 * deploy is idempotent and clean-up finds it by its prefix and run tag.
 */
export function proofCandidate(
  runId: string,
  winner: PlannedCandidate,
  instances: number,
  attempt = 1,
): PlannedCandidate {
  return redeployedCandidate(
    runId,
    winner,
    instances,
    `${PROOF_ID_SUFFIX}${attempt === 1 ? '' : `-${attempt}`}`,
  );
}

/**
 * The winner deployed again after "Recommend" (the proof's, the ramp's): its model, image and
 * settings, `instances` of its type, as `<winner><suffix>` with names derived from the run id.
 * `proofOf` names the winner: delete-candidate deletes such an endpoint whatever the clean-up policy.
 */
export function redeployedCandidate(
  runId: string,
  winner: PlannedCandidate,
  instances: number,
  suffix: string,
): PlannedCandidate {
  const id = `${winner.id}${suffix}`;
  return {
    ...winner,
    id,
    initialInstanceCount: instances,
    proofOf: winner.id,
    modelName: resourceName(runId, 'model', id),
    endpointConfigName: resourceName(runId, 'endpoint-config', id),
    endpointName: resourceName(runId, 'endpoint', id),
    estimatedCostUsd: 0,
  };
}

/** The verdict on the merged step at the target: held, or not held with why and what to do. */
export function judgeProof(
  step: StepResult | undefined,
  request: Pick<ProofRequest, 'targetTps' | 'instances'>,
  what: string,
): Pick<ServeTargetProof, 'status' | 'note'> {
  if (step === undefined) {
    return {
      status: 'failed',
      note: `not proven: the proof measured no whole step at ${request.targetTps} TPS`,
    };
  }
  const p95 = round(step.latencyMs.p95);
  const minTps = request.targetTps * PROOF_MIN_TPS_SHARE;
  const carried = step.tps >= minTps;
  if (step.meetsSla && carried) {
    return {
      status: 'held',
      note: `proven: ${what} held p95 ${p95} ms at ${round(step.tps)} TPS (target ${request.targetTps})`,
    };
  }
  const why = [
    ...step.slaBreaches,
    ...(carried
      ? []
      : [
          `${round(step.tps)} TPS served, below ${round(minTps)} (${PROOF_MIN_TPS_SHARE * 100} % of the target)`,
        ]),
  ].join('; ');
  return {
    status: 'not-held',
    note:
      `not held: ${what} at ${request.targetTps} TPS: ${why}; raise the count (availability.minInstances ` +
      'or a lower scaling.headroom), or pick the next candidate of the ranking, and run again',
  };
}

/** One decimal: TPS and milliseconds as the sentences show them. */
function round(value: number): number {
  return Math.round(value * 10) / 10;
}

/**
 * What the proof phase does with the candidate that serves the target: run (the request) or skip
 * (why). Only a real-time candidate the run created can be deployed again with another count; an
 * existing endpoint is the user's, and serverless scales itself.
 */
export function proofDecision(
  plan: Pick<RunPlan, 'runId' | 'loadPlan' | 'sla'> & { readonly prove?: ProvePlan },
  chosen: { readonly candidate: PlannedCandidate; readonly instances: number | undefined } | undefined,
): { readonly request: ProofRequest } | { readonly skipped: string } {
  const targetTps = plan.sla.targetTps;
  if (targetTps === undefined) return { skipped: 'no sla.targetTps' };
  if (plan.prove === undefined) return { skipped: 'not planned (the plan predates the proof)' };
  if (!plan.prove.enabled) return { skipped: 'off (prove.enabled is false)' };
  if (plan.prove.skipReason !== undefined) return { skipped: plan.prove.skipReason };
  if (chosen === undefined) return { skipped: 'no candidate that met the SLA can carry the target' };
  const { candidate, instances } = chosen;
  if (candidate.kind === 'existing') {
    return { skipped: `${candidate.id} is your endpoint: the run does not redeploy it with another count` };
  }
  if (candidate.kind === 'serverless' || instances === undefined) {
    return { skipped: `${candidate.id} is serverless: it has no instance count to prove` };
  }
  return {
    request: {
      targetTps,
      instances,
      candidate: proofCandidate(plan.runId, candidate, instances),
      loadPlan: proofLoadPlan(plan.loadPlan, targetTps, plan.prove.workers),
    },
  };
}

/**
 * The count to try after a proof that did not hold: at least one more instance, and as many more as
 * the target is above what was served (⌈n × target ÷ served⌉), at most the account's quota for the
 * type; `undefined` when no larger count is possible (the quota is reached).
 */
export function correctedInstances(
  request: Pick<ProofRequest, 'instances' | 'targetTps'>,
  servedTps: number | undefined,
  quota: number | undefined,
): number | undefined {
  const byRate =
    servedTps === undefined || servedTps <= 0
      ? request.instances + 1
      : Math.ceil((request.instances * request.targetTps) / servedTps);
  const wanted = Math.max(request.instances + 1, byRate);
  const capped = quota === undefined ? wanted : Math.min(wanted, quota);
  return capped > request.instances ? capped : undefined;
}

/** The corrected proof: the same winner, load and target with `instances`, as attempt 2. */
export function correctedRequest(runId: string, request: ProofRequest, instances: number): ProofRequest {
  const winner = { ...request.candidate, id: request.candidate.proofOf ?? request.candidate.id };
  const attempt = (request.attempt ?? 1) + 1;
  return {
    ...request,
    instances,
    attempt,
    candidate: proofCandidate(runId, winner, instances, attempt),
  };
}
