import type {
  EndpointInstanceLimit,
  PlannedCandidate,
  RunPlan,
  RampTestPlan,
  RoutingStrategy,
} from '../contracts/index.js';
import {
  DEFAULT_HEADROOM,
  DEFAULT_MIN_INSTANCES,
  DEFAULT_SCALE_IN_COOLDOWN_SECONDS,
  DEFAULT_SCALE_OUT_COOLDOWN_SECONDS,
} from '../contracts/index.js';
import { proofDecision, type ServeTargetProof } from './prove-target.js';
import { rampDecision, type ServeTargetRamp } from './ramp-test.js';
import { type ScalingPolicy, scalingPolicyFor } from './scaling-policy.js';
import { type CandidateAtTarget, candidateAtTarget } from './target-sizing.js';

/**
 * report.json's `serveTarget`: the answer to "serve X TPS" when the SLA names a target. The first
 * candidate of the ranking that can carry the target, its count and cost at the target, and the
 * autoscaling policy to apply. The figures are arithmetic over one measurement until "Prove the
 * target" (prove-target.ts) deploys that count and runs the target's load: `proof` says what it
 * came to, `proven` whether it held.
 */
export interface ServeTarget {
  readonly targetTps: number;
  readonly peakTps: number;
  readonly minInstances: number;
  readonly headroom: number;
  /** The candidate that serves the target; absent when none of those that met the SLA can. */
  readonly candidateId?: string;
  readonly kind?: PlannedCandidate['kind'];
  readonly instanceType?: string;
  readonly atTarget?: CandidateAtTarget;
  /**
   * How the instances at the target share the requests: the candidate's `routingStrategy`, when it
   * named one (absent: SageMaker's RANDOM). The deploy requests and the proof carry it.
   */
  readonly routingStrategy?: RoutingStrategy;
  readonly policy?: ScalingPolicy;
  /** Where the requests apply ("apply to …", "name …"): the endpoint and whether it still exists. */
  readonly endpointNote?: string;
  readonly proven: boolean;
  readonly provenNote: string;
  /**
   * The proof at the target (prove-target.ts): `skipped` from "Recommend" when it does not run,
   * set by "Record proof" when it ran; absent while it has yet to run.
   */
  readonly proof?: ServeTargetProof;
  /**
   * The ramp test of the policy (ramp-test.ts): `skipped` from "Recommend" when it does not run,
   * set by "Record ramp" when it ran (or failed); absent while it has yet to run.
   */
  readonly ramp?: ServeTargetRamp;
  /** Availability, saturation, locality and choice caveats, each one sentence. */
  readonly warnings: readonly string[];
}

export interface ServeTargetInput {
  readonly plan: Pick<
    RunPlan,
    'runId' | 'loadPlan' | 'prove' | 'sla' | 'availability' | 'scaling' | 'cleanupPolicy' | 'instanceQuotas'
  > & { readonly rampTest?: RampTestPlan };
  /** Candidates that met the SLA, best first under the run's objective. */
  readonly ranked: readonly {
    readonly candidate: PlannedCandidate;
    readonly atTarget?: CandidateAtTarget;
    /** False when the load test never found the capacity (every step met the SLA). */
    readonly saturated: boolean;
    /** The variant the load test reached (an existing endpoint's may not be AllTraffic). */
    readonly variantName: string;
  }[];
  readonly measuredLocally: boolean;
}

/** The availability minimum and headroom the plan asks for, or their defaults (older plans). */
export function servingSettingsOf(plan: Pick<RunPlan, 'availability' | 'scaling'>): {
  minInstances: number;
  headroom: number;
} {
  return {
    minInstances: plan.availability?.minInstances ?? DEFAULT_MIN_INSTANCES,
    headroom: plan.scaling?.headroom ?? DEFAULT_HEADROOM,
  };
}

const SINGLE_INSTANCE_WARNING =
  'availability.minInstances is 1: a single instance has no Availability Zone redundancy; SageMaker ' +
  'recommends more than one instance per production endpoint, spread over Availability Zones ' +
  '(https://docs.aws.amazon.com/sagemaker/latest/dg/deployment-best-practices.html)';

/**
 * The "Serve X TPS" section's data; `undefined` when the SLA names no target, or when no candidate
 * met the SLA (there is nothing to size, and the outcome already says so).
 */
export function serveTargetSection(input: ServeTargetInput): ServeTarget | undefined {
  const { plan } = input;
  const targetTps = plan.sla.targetTps;
  if (targetTps === undefined || input.ranked.length === 0) return undefined;
  const { minInstances, headroom } = servingSettingsOf(plan);
  const peakTps = plan.scaling?.peakTps ?? targetTps;
  const warnings: string[] = [];
  if (minInstances === 1) warnings.push(SINGLE_INSTANCE_WARNING);
  if (input.measuredLocally) {
    warnings.push('measured locally: this machine stands in for the instance type, so the count is for it');
  }
  const chosen = input.ranked.find((r) => r.atTarget?.canServe === true);
  const first = input.ranked[0];
  const base = {
    targetTps,
    peakTps,
    minInstances,
    headroom,
    proven: false,
  };
  if (chosen === undefined) {
    const reasons = input.ranked.map((r) => `${r.candidate.id}: ${r.atTarget?.note ?? 'not sized'}`);
    const proof = skippedProof(input.plan, undefined, targetTps);
    const ramp = skippedRamp(input.plan, undefined);
    return {
      ...base,
      provenNote: `nothing to prove: ${reasons.join('; ')}`,
      ...(proof === undefined ? {} : { proof }),
      ...(ramp === undefined ? {} : { ramp }),
      warnings,
    };
  }
  const { candidate, atTarget } = chosen;
  if (first !== undefined && first !== chosen) {
    warnings.push(
      `the recommended ${first.candidate.id} cannot carry the target (${first.atTarget?.note ?? 'not sized'}): ` +
        `${candidate.id} is the best ranked that can`,
    );
  }
  if (!chosen.saturated) {
    warnings.push(
      `${candidate.id} was not saturated: its per-instance TPS is a lower bound, so the count may be higher than needed`,
    );
  }
  const measured = candidate.initialInstanceCount;
  const provenNote =
    `not proven: measured on ${measured} instance${measured === 1 ? '' : 's'}; the count and the policy ` +
    'are arithmetic from that measurement, not yet tested at the target load';
  const perInstanceTps = atTarget?.perInstanceTps;
  const quota =
    candidate.instanceType === undefined ? undefined : plan.instanceQuotas?.[candidate.instanceType];
  const policy =
    candidate.kind === 'serverless' || perInstanceTps === undefined
      ? undefined
      : scalingPolicyFor({
          endpointName: candidate.endpointName,
          variantName: chosen.variantName,
          perInstanceTps,
          headroom,
          minInstances,
          peakTps,
          scaleInCooldownSeconds: plan.scaling?.scaleInCooldownSeconds ?? DEFAULT_SCALE_IN_COOLDOWN_SECONDS,
          scaleOutCooldownSeconds:
            plan.scaling?.scaleOutCooldownSeconds ?? DEFAULT_SCALE_OUT_COOLDOWN_SECONDS,
          ...(quota === undefined ? {} : { instanceQuota: quota }),
        });
  const proof = skippedProof(plan, { candidate, instances: atTarget?.instances }, targetTps);
  const ramp = skippedRamp(plan, { candidate, policy, perInstanceTps, headroom });
  return {
    ...base,
    candidateId: candidate.id,
    kind: candidate.kind,
    ...(candidate.instanceType === undefined ? {} : { instanceType: candidate.instanceType }),
    ...(atTarget === undefined ? {} : { atTarget }),
    ...(candidate.routingStrategy === undefined ? {} : { routingStrategy: candidate.routingStrategy }),
    ...(policy === undefined ? {} : { policy, endpointNote: endpointNote(candidate, plan.cleanupPolicy) }),
    provenNote,
    ...(proof === undefined ? {} : { proof }),
    ...(ramp === undefined ? {} : { ramp }),
    warnings,
  };
}

/** The section's ramp when "Ramp test" was asked for but will not run; undefined otherwise. */
function skippedRamp(
  plan: ServeTargetInput['plan'],
  chosen: Parameters<typeof rampDecision>[1],
): ServeTargetRamp | undefined {
  const decision = rampDecision(plan, chosen);
  if (!('skipped' in decision)) return undefined;
  return { status: 'skipped', note: decision.skipped };
}

/** The section's proof when "Prove the target" will not run; undefined when it will. */
function skippedProof(
  plan: ServeTargetInput['plan'],
  chosen: Parameters<typeof proofDecision>[1],
  targetTps: number,
): ServeTargetProof | undefined {
  const decision = proofDecision(plan, chosen);
  if ('request' in decision) return undefined;
  return { status: 'skipped', targetTps, note: `not proven: the proof was skipped: ${decision.skipped}` };
}

function endpointNote(candidate: PlannedCandidate, cleanupPolicy: RunPlan['cleanupPolicy']): string {
  if (candidate.kind === 'existing') return `apply to your endpoint ${candidate.endpointName} as it is`;
  if (cleanupPolicy === 'keep-recommended') {
    return `apply to ${candidate.endpointName}, kept by cleanup.policy keep-recommended`;
  }
  return (
    `name ${candidate.endpointName}, which the run deleted: deploy the configuration under that name, ` +
    'or replace it in ResourceId and PolicyName with your endpoint’s'
  );
}

/**
 * A measured candidate sized for the SLA's target (target-sizing.ts), with the plan's availability
 * minimum and headroom; `undefined` without a target or a sustainable TPS.
 */
export function candidateAtTargetOf(
  plan: Pick<RunPlan, 'sla' | 'availability' | 'scaling' | 'instanceQuotas'>,
  candidate: PlannedCandidate,
  sustainableTps: number | null,
  meanLatencyMs: number | null | undefined,
  endpointLimit?: EndpointInstanceLimit,
): CandidateAtTarget | undefined {
  const targetTps = plan.sla.targetTps;
  if (targetTps === undefined || sustainableTps === null) return undefined;
  return candidateAtTarget(
    {
      kind: candidate.kind,
      ...(candidate.instanceType === undefined ? {} : { instanceType: candidate.instanceType }),
      measuredInstances: candidate.initialInstanceCount,
      sustainableTps,
      ...(candidate.usdPerHour === undefined ? {} : { usdPerHour: candidate.usdPerHour }),
      ...(meanLatencyMs === undefined ? {} : { meanLatencyMs }),
      ...(candidate.serverless === undefined ? {} : { serverless: candidate.serverless }),
    },
    {
      targetTps,
      ...servingSettingsOf(plan),
      ...(plan.instanceQuotas === undefined ? {} : { instanceQuotas: plan.instanceQuotas }),
      ...(endpointLimit === undefined ? {} : { endpointLimit }),
    },
  );
}
