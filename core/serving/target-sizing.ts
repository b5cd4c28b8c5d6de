import { SERVERLESS_USD_PER_GB_SECOND } from '../catalog/index.js';
import {
  type EndpointInstanceLimit,
  endpointUsageQuotaName,
  MAX_ENDPOINT_INSTANCE_COUNT,
} from '../contracts/index.js';

/**
 * Sizing for a target load (`sla.targetTps`): how many instances of a candidate carry the target
 * with the planned headroom, and what that costs. Pure arithmetic over what the load test measured;
 * nothing here is proven under the target's load: "Prove the target" and the ramp test measure it.
 */

/**
 * The most concurrent invocations one serverless endpoint can be given: ServerlessConfig
 * MaxConcurrency "Minimum value of 1. Maximum value of 200" (SageMaker API reference,
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ProductionVariantServerlessConfig.html).
 */
export const SERVERLESS_MAX_CONCURRENCY_LIMIT = 200;

/** What sizing reads from a candidate that met the SLA. */
export interface SizingCandidate {
  readonly kind: 'realtime' | 'serverless' | 'existing';
  readonly instanceType?: string;
  /** Instances the candidate was measured with; its sustainable TPS is theirs together. */
  readonly measuredInstances: number;
  readonly sustainableTps: number;
  /** One instance's price. */
  readonly usdPerHour?: number;
  /** Mean latency at the sustainable step: a serverless request's billed duration. */
  readonly meanLatencyMs?: number | null;
  readonly serverless?: { readonly memorySizeMb: number; readonly maxConcurrency: number };
}

export interface SizingSettings {
  readonly targetTps: number;
  readonly minInstances: number;
  /** Share (0–1] of an instance's sustainable TPS planned for. */
  readonly headroom: number;
  /** Instances of a type the account may run on endpoints, by type, where known. */
  readonly instanceQuotas?: Readonly<Record<string, number>>;
  /** The most instances one endpoint can have where the run measures (locally: this machine's). */
  readonly endpointLimit?: EndpointInstanceLimit;
}

/** A candidate at the target load: the count (or serverless concurrency) and its cost. */
export interface CandidateAtTarget {
  readonly targetTps: number;
  /** False when it cannot carry the target (serverless concurrency, instance quota, no TPS). */
  readonly canServe: boolean;
  /** Instance-priced candidates: instances for the target, at least the availability minimum. */
  readonly instances?: number;
  /** Sustainable TPS ÷ the instances it was measured with. */
  readonly perInstanceTps?: number;
  /** Serverless: concurrent requests the target keeps in flight (target × mean latency). */
  readonly concurrency?: number;
  /** What running at the target costs per hour: instances × price, or serverless duration × memory. */
  readonly usdPerHour?: number;
  /** usdPerHour ÷ (target × 3600) × 10⁶. */
  readonly costPer1MUsd?: number;
  /** How the figures were reached, in one sentence. */
  readonly note: string;
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/**
 * ⌈value⌉ that ignores floating-point noise: 600 ÷ (120 × 0.7) is 7.14 → 8, but 84 ÷ (120 × 0.7)
 * must be 1, not 2, even when the product carries a trailing 1e-14.
 */
function ceilCount(value: number): number {
  return Math.ceil(value - 1e-9);
}

function costPer1M(usdPerHour: number, tps: number): number {
  return round((usdPerHour / (tps * 3600)) * 1e6, 4);
}

/** Instances of one measured instance's rate that carry `tps` with the headroom: at least 1. */
export function instancesFor(tps: number, perInstanceTps: number, headroom: number): number {
  return Math.max(1, ceilCount(tps / (perInstanceTps * headroom)));
}

function quotaName(c: SizingCandidate): string {
  return endpointUsageQuotaName(c.instanceType ?? '<instance type>');
}

function instanceCandidateAtTarget(c: SizingCandidate, settings: SizingSettings): CandidateAtTarget {
  const { targetTps, headroom, minInstances } = settings;
  const perInstanceTps = c.sustainableTps / Math.max(1, c.measuredInstances);
  const forLoad = instancesFor(targetTps, perInstanceTps, headroom);
  const needed = Math.max(minInstances, forLoad);
  const measuredOn =
    c.measuredInstances === 1
      ? `measured on 1 instance: ${round(perInstanceTps, 2)} TPS`
      : `measured on ${c.measuredInstances} instances: ${round(c.sustainableTps, 2)} TPS ÷ ${c.measuredInstances} = ${round(perInstanceTps, 2)} TPS per instance`;
  const sizing =
    `${measuredOn}; ⌈${targetTps} ÷ (${round(perInstanceTps, 2)} × ${headroom} headroom)⌉ = ${forLoad}` +
    (forLoad < minInstances ? `, raised to the availability minimum of ${minInstances}` : '');
  if (needed > MAX_ENDPOINT_INSTANCE_COUNT) {
    // Never a count that no CreateEndpointConfig request could carry, nor its price.
    return {
      targetTps,
      canServe: false,
      perInstanceTps: round(perInstanceTps, 2),
      note:
        `${sizing}: more instances than an endpoint can be given (InitialInstanceCount is at most ` +
        `${MAX_ENDPOINT_INSTANCE_COUNT}, a 32-bit integer, and the account's quota "${quotaName(c)}" far lower); ` +
        'lower the target, or serve it from several endpoints',
    };
  }
  const limit = settings.endpointLimit;
  if (limit !== undefined && needed > limit.instances) {
    return {
      targetTps,
      canServe: false,
      instances: limit.instances,
      perInstanceTps: round(perInstanceTps, 2),
      note:
        `${sizing}; more than the ${limit.instances} instances of ${limit.name}: the target needs ${needed}; ` +
        limit.fix,
    };
  }
  const quota = c.instanceType === undefined ? undefined : settings.instanceQuotas?.[c.instanceType];
  const instances = quota !== undefined && quota < needed ? quota : needed;
  const capped =
    instances < needed
      ? `; capped at the account's quota "${quotaName(c)}" of ${quota}: one endpoint cannot have more, and ` +
        `the target needs ${needed}; raise the quota in the Service Quotas console (Amazon SageMaker, ` +
        `"${quotaName(c)}", request-service-quota-increase)`
      : '';
  const usdPerHour = c.usdPerHour === undefined ? undefined : round(c.usdPerHour * instances, 4);
  return {
    targetTps,
    canServe: capped === '',
    instances,
    perInstanceTps: round(perInstanceTps, 2),
    ...(usdPerHour === undefined ? {} : { usdPerHour, costPer1MUsd: costPer1M(usdPerHour, targetTps) }),
    note: `${sizing}${capped}${usdPerHour === undefined ? '; no price for this type' : ''}`,
  };
}

/**
 * Serverless scales itself: the target keeps target × mean latency requests in flight (Little's
 * law), which its MaxConcurrency must allow; it bills each request's duration × memory.
 */
function serverlessAtTarget(c: SizingCandidate, targetTps: number): CandidateAtTarget {
  const config = c.serverless;
  if (config === undefined || c.meanLatencyMs == null) {
    return { targetTps, canServe: false, note: 'no mean latency measured: cannot size for the target' };
  }
  const concurrency = ceilCount((targetTps * c.meanLatencyMs) / 1000);
  const gb = config.memorySizeMb / 1024;
  const usdPerHour = round(
    targetTps * 3600 * (c.meanLatencyMs / 1000) * gb * SERVERLESS_USD_PER_GB_SECOND,
    4,
  );
  const inFlight = `${targetTps} TPS × ${round(c.meanLatencyMs, 2)} ms mean latency keeps ${concurrency} requests in flight`;
  let refusal = '';
  if (concurrency > SERVERLESS_MAX_CONCURRENCY_LIMIT) {
    refusal =
      `; more than the ${SERVERLESS_MAX_CONCURRENCY_LIMIT} concurrent invocations a serverless ` +
      'endpoint can be given: serve this target on instances';
  } else if (concurrency > config.maxConcurrency) {
    refusal = `; more than its maxConcurrency of ${config.maxConcurrency}: raise it to ${concurrency} and test again`;
  }
  return {
    targetTps,
    canServe: refusal === '',
    concurrency,
    usdPerHour,
    costPer1MUsd: costPer1M(usdPerHour, targetTps),
    note: `${inFlight}${refusal}`,
  };
}

/**
 * The candidate at the target load: an instance count for real-time and existing endpoints, the
 * requests in flight for serverless.
 */
export function candidateAtTarget(c: SizingCandidate, settings: SizingSettings): CandidateAtTarget {
  if (c.sustainableTps <= 0) {
    return { targetTps: settings.targetTps, canServe: false, note: 'no sustainable TPS to size from' };
  }
  return c.kind === 'serverless'
    ? serverlessAtTarget(c, settings.targetTps)
    : instanceCandidateAtTarget(c, settings);
}

/** The ranking key of the lowest-cost-at-target objective: $/h at the target, unservable last. */
export function costAtTargetKey(atTarget: CandidateAtTarget | undefined): number {
  if (atTarget === undefined || !atTarget.canServe || atTarget.usdPerHour === undefined) {
    return Number.POSITIVE_INFINITY;
  }
  return atTarget.usdPerHour;
}
