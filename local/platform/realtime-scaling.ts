/**
 * Local autoscaling of a real-time endpoint: the target tracking policy the report recommends
 * (`core/serving/scaling-policy.ts`) on `SageMakerVariantInvocationsPerInstance`, applied to a
 * local front's instance count. The arithmetic is the local async endpoint's (`scaling.ts`
 * `trackedCount`): out to ⌈invocations per minute over all instances ÷ target⌉ once the scale-out
 * cooldown has passed since the last scale-out completed; in, to that count, once it has stayed
 * below the instances for the scale-in cooldown; nothing new while an activity is in progress (the
 * endpoint is `Updating`). Cooldowns are multiplied by a time scale, as the async endpoint's are.
 *
 * Application Auto Scaling's cooldowns, as this follows them (TargetTrackingScalingPolicyConfiguration,
 * https://docs.aws.amazon.com/autoscaling/application/APIReference/API_TargetTrackingScalingPolicyConfiguration.html):
 * ScaleOutCooldown is "the amount of time, in seconds, after a scale-out activity completes before
 * another scale-out activity can start"; scale-in is conservative and a scale-out is not held back
 * by it. The metric is "the number of invocations sent to a model, normalized by InstanceCount in
 * each ProductionVariant" (SageMaker API reference, ScalingPolicyMetric,
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ScalingPolicyMetric.html), and the
 * policy's target is per minute (scaling-policy.ts); locally it is the front's invocation count
 * over a sliding window ÷ the instances in service, per minute.
 *
 * Not emulated: CloudWatch's one-minute periods and the alarms' datapoints to alarm. The local
 * metric window (`metricWindowMs`) stands for them; the scale-out delay that matters most here, the
 * instance start and model load, is real (`LocalRealtimeEndpoint`'s `instanceStartDelayMs`).
 */
import type { ScalingPolicy } from '../../core/serving/index.js';
import { type ScalingDecision, trackedCount } from './scaling.js';

export interface RealtimeScalingPolicy {
  readonly minInstanceCount: number;
  readonly maxInstanceCount: number;
  /** Target of `SageMakerVariantInvocationsPerInstance`: invocations per instance per minute. */
  readonly targetInvocationsPerInstance: number;
  readonly scaleInCooldownSeconds: number;
  readonly scaleOutCooldownSeconds: number;
}

/** The local policy of the report's recommended one: the same figures as its two requests. */
export function realtimePolicyOf(policy: ScalingPolicy): RealtimeScalingPolicy {
  const configuration = policy.putScalingPolicy.TargetTrackingScalingPolicyConfiguration;
  return {
    minInstanceCount: policy.registerScalableTarget.MinCapacity,
    maxInstanceCount: policy.registerScalableTarget.MaxCapacity,
    targetInvocationsPerInstance: configuration.TargetValue,
    scaleInCooldownSeconds: configuration.ScaleInCooldown,
    scaleOutCooldownSeconds: configuration.ScaleOutCooldown,
  };
}

/** What is wrong with a policy, in one sentence; `undefined` when nothing is. */
export function realtimePolicyProblem(policy: RealtimeScalingPolicy): string | undefined {
  const { minInstanceCount: min, maxInstanceCount: max } = policy;
  // A real-time variant cannot go to zero instances; only async and serverless ones do.
  if (!Number.isInteger(min) || min < 1)
    return `minInstanceCount: got ${min}, expected an integer of at least 1`;
  if (!Number.isInteger(max) || max < min) {
    return `maxInstanceCount: got ${max}, expected an integer of at least minInstanceCount (${min})`;
  }
  if (!(policy.targetInvocationsPerInstance > 0)) {
    return `targetInvocationsPerInstance: got ${policy.targetInvocationsPerInstance}, expected invocations per instance per minute above 0`;
  }
  for (const name of ['scaleInCooldownSeconds', 'scaleOutCooldownSeconds'] as const) {
    if (!(policy[name] >= 0))
      return `${name}: got ${policy[name]}, expected a number of seconds of at least 0`;
  }
  return undefined;
}

export interface RealtimeScalingState {
  /** Instances wanted now (starting or in service). */
  readonly desired: number;
  /** `SageMakerVariantInvocationsPerInstance` now: invocations per instance per minute. */
  readonly invocationsPerInstance: number;
  /** Instances the metric was divided by (in service). */
  readonly inService: number;
  /** Time since the last scale-out completed; `Infinity` when there was none. */
  readonly sinceScaleOutMs: number;
  /** How long the tracked count has been below `desired` (0 while it is not). */
  readonly belowForMs: number;
}

/** The count the policy tracks to: the metric's total ÷ the target, within min and max. */
export function trackedRealtimeCount(
  policy: RealtimeScalingPolicy,
  invocationsPerInstance: number,
  inService: number,
): number {
  const total = invocationsPerInstance * inService;
  return Math.max(
    policy.minInstanceCount,
    trackedCount(total, policy.targetInvocationsPerInstance, policy.maxInstanceCount),
  );
}

/** The next desired instance count, or `undefined` to keep it. */
export function decideRealtimeScaling(
  policy: RealtimeScalingPolicy,
  state: RealtimeScalingState,
  cooldownTimeScale: number,
): ScalingDecision | undefined {
  const { minInstanceCount: min, maxInstanceCount: max, targetInvocationsPerInstance: target } = policy;
  const { desired } = state;
  if (desired < min) return { to: min, cause: `below the minimum instance count (${min})` };
  if (desired > max) return { to: max, cause: `above the maximum instance count (${max})` };
  const wanted = trackedRealtimeCount(policy, state.invocationsPerInstance, state.inService);
  const metric = `InvocationsPerInstance ${round(state.invocationsPerInstance)}/min`;
  const outCooldownMs = policy.scaleOutCooldownSeconds * 1000 * cooldownTimeScale;
  if (wanted > desired && state.sinceScaleOutMs >= outCooldownMs) {
    return { to: wanted, cause: `${metric} above the target ${target}` };
  }
  const inCooldownMs = policy.scaleInCooldownSeconds * 1000 * cooldownTimeScale;
  if (wanted < desired && state.belowForMs >= inCooldownMs) {
    return {
      to: wanted,
      cause: `${metric} below the target ${target} for ${round(state.belowForMs / 1000)} s (scale-in cooldown ${policy.scaleInCooldownSeconds} s × time scale ${cooldownTimeScale})`,
    };
  }
  return undefined;
}

/** What the autoscaler needs of an endpoint (`LocalRealtimeEndpoint` has it). */
export interface ScalableRealtimeEndpoint {
  /** Instances in service (taking traffic). */
  readonly currentInstanceCount: number;
  /** Instances wanted: in service or starting. */
  readonly desiredInstanceCount: number;
  /** Invocations the front has sent to any instance since it started. */
  totalInvocations(): number;
  /** Resolves once the new instances are in service (or the removed ones stopped). */
  setDesiredInstanceCount(count: number): Promise<void>;
}

/** One scaling activity, as DescribeScalingActivities reports one. */
export interface RealtimeScalingActivity {
  readonly startEpochMs: number;
  /** Absent while in progress. */
  endEpochMs?: number;
  readonly fromInstanceCount: number;
  readonly toInstanceCount: number;
  readonly cause: string;
  /** Why the change failed, when it did. */
  failure?: string;
}

export interface LocalRealtimeAutoscalerOptions {
  readonly endpoint: ScalableRealtimeEndpoint;
  readonly policy: RealtimeScalingPolicy;
  /** Multiplies the policy's cooldowns (0.01: a 300 s cooldown lasts 3 s). */
  readonly cooldownTimeScale: number;
  /** The window the invocation rate is measured over (CloudWatch's minute, scaled). */
  readonly metricWindowMs: number;
  /** @default Date.now */
  readonly now?: () => number;
}

/**
 * Runs the policy on an endpoint: each `tick` measures the invocation rate over the window, decides
 * and starts the change, which completes when the endpoint has the instances in service. The
 * caller ticks it (`start` ticks on a timer); tests tick it on their own clock.
 */
export class LocalRealtimeAutoscaler {
  private readonly now: () => number;
  private readonly samples: { atMs: number; invocations: number }[] = [];
  private readonly log: RealtimeScalingActivity[] = [];
  private lastScaleOutEndMs = Number.NEGATIVE_INFINITY;
  private belowSinceMs: number | undefined;
  private inProgress: Promise<void> | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly options: LocalRealtimeAutoscalerOptions) {
    const problem = realtimePolicyProblem(options.policy);
    if (problem !== undefined) throw new RangeError(`Local real-time autoscaling: ${problem}`);
    if (!(options.metricWindowMs > 0)) {
      throw new RangeError(
        `Local real-time autoscaling: metricWindowMs got ${options.metricWindowMs}, expected above 0`,
      );
    }
    this.now = options.now ?? Date.now;
  }

  /** The activities so far, oldest first. */
  activities(): readonly RealtimeScalingActivity[] {
    return this.log.map((activity) => ({ ...activity }));
  }

  /** Samples the front's count; the metric over the window ending now, per instance per minute. */
  private sampleMetric(nowMs: number): number {
    const invocations = this.options.endpoint.totalInvocations();
    this.samples.push({ atMs: nowMs, invocations });
    while ((this.samples[1]?.atMs ?? Number.POSITIVE_INFINITY) <= nowMs - this.options.metricWindowMs) {
      this.samples.shift();
    }
    const oldest = this.samples[0];
    const inService = this.options.endpoint.currentInstanceCount;
    if (oldest === undefined || oldest.atMs >= nowMs || inService === 0) return 0;
    return (((invocations - oldest.invocations) / (nowMs - oldest.atMs)) * 60_000) / inService;
  }

  /** Measures, decides and starts a change; the decision, or `undefined` when none was made. */
  tick(): ScalingDecision | undefined {
    const nowMs = this.now();
    const endpoint = this.options.endpoint;
    const metric = this.sampleMetric(nowMs);
    if (this.inProgress !== undefined) return undefined;
    const desired = endpoint.desiredInstanceCount;
    const wanted = trackedRealtimeCount(this.options.policy, metric, endpoint.currentInstanceCount);
    if (wanted < desired) this.belowSinceMs ??= nowMs;
    else this.belowSinceMs = undefined;
    const decision = decideRealtimeScaling(
      this.options.policy,
      {
        desired,
        invocationsPerInstance: metric,
        inService: endpoint.currentInstanceCount,
        sinceScaleOutMs: nowMs - this.lastScaleOutEndMs,
        belowForMs: this.belowSinceMs === undefined ? 0 : nowMs - this.belowSinceMs,
      },
      this.options.cooldownTimeScale,
    );
    if (decision === undefined) return undefined;
    const activity: RealtimeScalingActivity = {
      startEpochMs: nowMs,
      fromInstanceCount: desired,
      toInstanceCount: decision.to,
      cause: decision.cause,
    };
    this.log.push(activity);
    this.belowSinceMs = undefined;
    this.inProgress = endpoint.setDesiredInstanceCount(decision.to).then(
      () => {
        activity.endEpochMs = this.now();
        if (decision.to > desired) this.lastScaleOutEndMs = activity.endEpochMs;
        this.inProgress = undefined;
      },
      (error: unknown) => {
        activity.endEpochMs = this.now();
        activity.failure = error instanceof Error ? error.message : String(error);
        this.inProgress = undefined;
      },
    );
    return decision;
  }

  /** Ticks every `intervalMs` until `stop`. */
  start(intervalMs: number): void {
    this.timer ??= setInterval(() => {
      this.tick();
    }, intervalMs);
  }

  /** Stops ticking and waits for a change in progress to complete. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.inProgress;
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
