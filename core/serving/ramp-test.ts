import type {
  PlannedCandidate,
  RampRequest,
  RampStatus,
  RampTestPlan,
  RunPlan,
  LoadPlan,
  RealtimeScalingRequests,
} from '../contracts/index.js';
import { proofWorkers, redeployedCandidate } from './prove-target.js';
import type { RampOutcome } from './ramp.js';
import {
  invocationsPolicyName,
  type ScalingPolicy,
  scalingPolicyFor,
  variantResourceId,
} from './scaling-policy.js';
import { VARIANT_NAME } from '../contracts/index.js';

/**
 * "Ramp test": after the proof, the candidate that serves the target is
 * deployed once more at the recommended policy's minimum, the policy attached as the report states
 * it, and an open-model arrival rate ramps from what the minimum carries at the policy's target to
 * the peak. `ramp.ts` turns the merged timeline and the instance counts into the outcome; this
 * module holds what is deployed and run, and the report's vocabulary.
 */

/**
 * The suffix of the ramp's candidate id and resource names: `<winner>-ramp`. Its own name: the
 * proof's endpoint may still be deleting, and SageMaker keeps a name until the endpoint is gone.
 */
export const RAMP_ID_SUFFIX = '-ramp';

/** report.json's `serveTarget.ramp`. */
export interface ServeTargetRamp {
  readonly status: RampStatus;
  /** The candidate ramped (the winner's id) and its instance type. */
  readonly candidateId?: string;
  readonly instanceType?: string;
  readonly fromTps?: number;
  readonly toTps?: number;
  readonly minInstances?: number;
  readonly maxInstances?: number;
  readonly targetInvocationsPerInstance?: number;
  /** The arithmetic over the measured timeline and instance counts; absent when none was measured. */
  readonly outcome?: RampOutcome;
  /** Where the instance counts came from (the local front, or scaling activities on AWS). */
  readonly instancesNote?: string;
  /** One sentence: held, or for how long the SLA broke and what to change. */
  readonly note: string;
  /** The ramp before this one, when this one re-tests it at the advised headroom. */
  readonly previous?: Omit<ServeTargetRamp, 'previous'>;
}

/**
 * The ramp's load: the plan's warm-up (at `fromTps`), timeouts and connections; one open-model
 * step rising from `fromTps` to `toTps` over `seconds`; no request caps, extension, plateau stop
 * or rounds (a ramp is one measurement, and a cap would end it before the top).
 */
export function rampLoadPlan(
  loadPlan: LoadPlan,
  ramp: {
    readonly fromTps: number;
    readonly toTps: number;
    readonly seconds: number;
    readonly workers: number;
  },
): LoadPlan {
  const {
    extendUntilSaturated: _extend,
    maxLoad: _maxLoad,
    maxRequestsPerStep: _perStep,
    maxTotalRequests: _total,
    interleaveRepeats: _interleave,
    ...rest
  } = loadPlan;
  return {
    ...rest,
    model: 'open',
    steps: [ramp.toTps],
    ramp: { fromTps: ramp.fromTps },
    stepDurationSeconds: ramp.seconds,
    maxTotalSeconds: loadPlan.warmupSeconds + ramp.seconds,
    workers: ramp.workers,
    stopAtPlateau: false,
    kneeProbes: 0,
    repeats: 1,
  };
}

/** The winner as the ramp deploys it: `instances` of its type, under names of its own. */
export function rampCandidate(
  runId: string,
  winner: PlannedCandidate,
  instances: number,
  attempt = 1,
): PlannedCandidate {
  return redeployedCandidate(
    runId,
    winner,
    instances,
    `${RAMP_ID_SUFFIX}${attempt === 1 ? '' : `-${attempt}`}`,
  );
}

/** The policy's two requests aimed at another endpoint (the ramp's), figures unchanged. */
export function scalingRequestsFor(
  policy: Pick<ScalingPolicy, 'registerScalableTarget' | 'putScalingPolicy'>,
  endpointName: string,
  variantName: string,
): RealtimeScalingRequests {
  const resourceId = variantResourceId(endpointName, variantName);
  return {
    registerScalableTarget: { ...policy.registerScalableTarget, ResourceId: resourceId },
    putScalingPolicy: {
      ...policy.putScalingPolicy,
      ResourceId: resourceId,
      PolicyName: invocationsPolicyName(endpointName),
    },
  };
}

/**
 * What the ramp phase does: run (the request), skip (why: asked for, but nothing to ramp), or
 * nothing at all when it was not asked for (off by default: the report then says nothing of it). Only a real-time candidate the run
 * created, with a policy, is ramped; the ramp starts at the rate the minimum carries at the
 * policy's target (minimum × per-instance TPS × headroom), so the metric is at its target from the
 * first second and any rise is the policy's to follow, and ends at the peak.
 */
export function rampDecision(
  plan: Pick<RunPlan, 'runId' | 'loadPlan' | 'sla'> & {
    readonly rampTest?: RampTestPlan;
    readonly scaling?: { readonly peakTps?: number };
  },
  chosen:
    | {
        readonly candidate: PlannedCandidate;
        readonly policy: ScalingPolicy | undefined;
        readonly perInstanceTps: number | undefined;
        readonly headroom: number;
      }
    | undefined,
): { readonly request: RampRequest } | { readonly skipped: string } | { readonly off: true } {
  const targetTps = plan.sla.targetTps;
  if (targetTps === undefined) return { off: true };
  const ramp = plan.rampTest;
  if (ramp === undefined || !ramp.enabled) return { off: true };
  if (chosen === undefined) return { skipped: 'no candidate that met the SLA can carry the target' };
  const { candidate, policy, perInstanceTps } = chosen;
  if (candidate.kind === 'existing') {
    return { skipped: `${candidate.id} is your endpoint: the run does not attach a policy to it` };
  }
  if (candidate.kind === 'serverless' || policy === undefined || perInstanceTps === undefined) {
    return { skipped: `${candidate.id} has no instance-count policy to ramp (serverless scales itself)` };
  }
  const toTps = plan.scaling?.peakTps ?? targetTps;
  const fromTps = round(policy.minCapacity * perInstanceTps * chosen.headroom);
  if (fromTps >= toTps) {
    return {
      skipped:
        `the minimum (${policy.minCapacity} instances) carries the peak (${toTps} TPS) at the policy's ` +
        `target (${fromTps} TPS): a ramp would not scale out`,
    };
  }
  const rampCandidateOf = rampCandidate(plan.runId, candidate, policy.minCapacity);
  return {
    request: {
      candidate: rampCandidateOf,
      loadPlan: rampLoadPlan(plan.loadPlan, { fromTps, toTps, seconds: ramp.seconds, workers: ramp.workers }),
      fromTps,
      toTps,
      perInstanceTps,
      headroom: chosen.headroom,
      minInstances: policy.minCapacity,
      maxInstances: policy.maxCapacity,
      targetInvocationsPerInstance: policy.targetInvocationsPerInstance,
      scaling: scalingRequestsFor(policy, rampCandidateOf.endpointName, VARIANT_NAME),
    },
  };
}

/** Workers of a ramp to `peakTps` (the proof's sizing: one worker signs so many requests). */
export function rampWorkers(loadPlan: Pick<LoadPlan, 'workers'>, peakTps: number): number {
  return proofWorkers(loadPlan, peakTps);
}

/** Two decimals: a rate as the sentences and the plan show it. */
function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/**
 * The ramp once more after one that broke the SLA, with what its arithmetic advised
 * (ramp.ts `RampHeadroom`): the headroom that would have held, or, when none would, the minimum that
 * would at the current headroom. The policy is recomputed with it (its target, and the maximum for
 * the peak, within the account's quota), the ramp starts from the new minimum's share, and the
 * endpoint gets a name of its own (`<winner>-ramp-2`: the first may still be deleting). Undefined
 * when the advice is no change (the lag was not the cause, or unknown), or when the new minimum
 * carries the peak (nothing would scale out).
 */
export function retestRequest(
  runId: string,
  request: RampRequest,
  advice: { readonly wouldHold: number | null; readonly minInstancesThatHold?: number },
  instanceQuota: number | undefined,
): RampRequest | undefined {
  const headroom = advice.wouldHold ?? request.headroom;
  const minInstances = advice.wouldHold === null ? advice.minInstancesThatHold : request.minInstances;
  if (minInstances === undefined) return undefined;
  if (headroom >= request.headroom && minInstances <= request.minInstances) return undefined;
  const winner = { ...request.candidate, id: request.candidate.proofOf ?? request.candidate.id };
  const attempt = (request.attempt ?? 1) + 1;
  const candidate = rampCandidate(runId, winner, minInstances, attempt);
  const cooldowns = request.scaling.putScalingPolicy.TargetTrackingScalingPolicyConfiguration;
  const policy = scalingPolicyFor({
    endpointName: candidate.endpointName,
    variantName: VARIANT_NAME,
    perInstanceTps: request.perInstanceTps,
    headroom,
    minInstances,
    peakTps: request.toTps,
    scaleInCooldownSeconds: cooldowns.ScaleInCooldown,
    scaleOutCooldownSeconds: cooldowns.ScaleOutCooldown,
    ...(instanceQuota === undefined ? {} : { instanceQuota }),
  });
  const fromTps = round(policy.minCapacity * request.perInstanceTps * headroom);
  if (fromTps >= request.toTps) return undefined;
  return {
    ...request,
    attempt,
    candidate: { ...candidate, initialInstanceCount: policy.minCapacity },
    loadPlan: { ...request.loadPlan, ramp: { fromTps } },
    fromTps,
    headroom,
    minInstances: policy.minCapacity,
    maxInstances: policy.maxCapacity,
    targetInvocationsPerInstance: policy.targetInvocationsPerInstance,
    scaling: {
      registerScalableTarget: policy.registerScalableTarget,
      putScalingPolicy: policy.putScalingPolicy,
    },
  };
}
