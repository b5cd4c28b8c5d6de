/**
 * Local autoscaling of async endpoint variants: `LocalScalingRegistry` keeps each variant's policy
 * (what Application Auto Scaling holds on AWS), and `decideScaling` is the rule a local async
 * endpoint applies to its backlog, emulating the two policies the AWS adapter registers
 * (SageMaker developer guide, "Autoscale an asynchronous endpoint"):
 *
 * - step scaling on `HasBacklogWithoutCapacity`: from zero instances, one instance as soon as a
 *   request waits (target tracking cannot leave zero: there is no per-instance backlog);
 * - target tracking on `ApproximateBacklogSizePerInstance`: out to ⌈backlog ÷ target⌉ while the
 *   backlog per instance is above the target, once the scale-out cooldown has passed since the
 *   last scale-out completed;
 * - in, down to the minimum, once the backlog has been empty for the scale-in cooldown.
 *
 * Cooldowns are multiplied by a time scale (`cooldownTimeScale`, default 0.01 in local mode: the
 * async workflow's 600 s scale-in cooldown lasts 6 s), so a local run shows a scale-in without
 * waiting ten minutes. Starting an instance is not scaled: it is a real process start, and that is
 * the local scale-out delay. As on SageMaker, where the endpoint is `Updating` until a change
 * completes, an endpoint decides nothing new while one of its activities is in progress.
 */
import type { AsyncScalingPolicy, ScalingRegistry } from '../../core/ports/index.js';

export class LocalScalingRegistry implements ScalingRegistry {
  private readonly policies = new Map<string, AsyncScalingPolicy>();

  configureAsyncScaling(
    endpointName: string,
    variantName: string,
    policy: AsyncScalingPolicy,
  ): Promise<void> {
    const problem = policyProblem(policy);
    if (problem !== undefined) {
      return Promise.reject(new RangeError(`Autoscaling of ${endpointName}/${variantName}: ${problem}`));
    }
    this.policies.set(key(endpointName, variantName), { ...policy });
    return Promise.resolve();
  }

  deregisterEndpointVariant(endpointName: string, variantName: string): Promise<boolean> {
    return Promise.resolve(this.policies.delete(key(endpointName, variantName)));
  }

  /** The variant's policy; `undefined` when none is registered (the instance count stays as it is). */
  policyOf(endpointName: string, variantName: string): AsyncScalingPolicy | undefined {
    return this.policies.get(key(endpointName, variantName));
  }
}

/** Application Auto Scaling's resource id of a variant (`endpoint/<name>/variant/<variant>`). */
function key(endpointName: string, variantName: string): string {
  return `endpoint/${endpointName}/variant/${variantName}`;
}

function policyProblem(policy: AsyncScalingPolicy): string | undefined {
  const counts: [string, number][] = [
    ['minInstanceCount', policy.minInstanceCount],
    ['maxInstanceCount', policy.maxInstanceCount],
  ];
  for (const [name, value] of counts) {
    if (!Number.isInteger(value) || value < 0)
      return `${name}: got ${value}, expected an integer of at least 0`;
  }
  if (policy.maxInstanceCount < policy.minInstanceCount) {
    return `maxInstanceCount: got ${policy.maxInstanceCount}, expected at least minInstanceCount (${policy.minInstanceCount})`;
  }
  if (!(policy.targetBacklogPerInstance > 0)) {
    return `targetBacklogPerInstance: got ${policy.targetBacklogPerInstance}, expected a number above 0`;
  }
  const cooldowns: [string, number][] = [
    ['scaleInCooldownSeconds', policy.scaleInCooldownSeconds],
    ['scaleOutCooldownSeconds', policy.scaleOutCooldownSeconds],
  ];
  for (const [name, value] of cooldowns) {
    if (!(value >= 0)) return `${name}: got ${value}, expected a number of seconds of at least 0`;
  }
  return undefined;
}

export interface ScalingState {
  /** Instances wanted now (starting or in service). */
  readonly desired: number;
  /** `ApproximateBacklogSize`: requests queued or being processed. */
  readonly backlog: number;
  /** How long the backlog has been empty (0 while it is not). */
  readonly idleForMs: number;
  /** Time since the last scale-out completed; `Infinity` when there was none. */
  readonly sinceScaleOutMs: number;
}

export interface ScalingDecision {
  readonly to: number;
  readonly cause: string;
}

/** The next desired instance count, or `undefined` to keep it. */
export function decideScaling(
  policy: AsyncScalingPolicy,
  state: ScalingState,
  cooldownTimeScale: number,
): ScalingDecision | undefined {
  const { minInstanceCount: min, maxInstanceCount: max } = policy;
  const { desired, backlog } = state;
  if (desired < min) return { to: min, cause: `below the minimum instance count (${min})` };
  if (desired > max) return { to: max, cause: `above the maximum instance count (${max})` };
  if (desired === 0) {
    return backlog > 0 && max > 0
      ? { to: 1, cause: `HasBacklogWithoutCapacity: ${backlog} request(s) waiting and no instance` }
      : undefined;
  }
  const perInstance = backlog / desired;
  const outCooldownMs = policy.scaleOutCooldownSeconds * 1000 * cooldownTimeScale;
  if (
    perInstance > policy.targetBacklogPerInstance &&
    desired < max &&
    state.sinceScaleOutMs >= outCooldownMs
  ) {
    const wanted = trackedCount(backlog, policy.targetBacklogPerInstance, max);
    if (wanted > desired) {
      return {
        to: wanted,
        cause: `ApproximateBacklogSizePerInstance ${round(perInstance)} above the target ${policy.targetBacklogPerInstance}`,
      };
    }
  }
  const inCooldownMs = policy.scaleInCooldownSeconds * 1000 * cooldownTimeScale;
  if (backlog === 0 && desired > min && state.idleForMs >= inCooldownMs) {
    return {
      to: min,
      cause: `no backlog for ${round(state.idleForMs / 1000)} s (scale-in cooldown ${policy.scaleInCooldownSeconds} s × time scale ${cooldownTimeScale})`,
    };
  }
  return undefined;
}

/**
 * Target tracking's count: the instances that bring a per-instance metric back to its target, the
 * metric's total over all instances ÷ the target, rounded up, at most `max`. Both local policies
 * use it: the async backlog per instance and the real-time invocations per instance.
 */
export function trackedCount(total: number, targetPerInstance: number, max: number): number {
  return Math.min(max, Math.ceil(total / targetPerInstance));
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
