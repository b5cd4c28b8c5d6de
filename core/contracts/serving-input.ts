import { z } from 'zod';
import { MAX_ENDPOINT_INSTANCE_COUNT } from './endpoint-limits.js';

/**
 * The run input's serving settings: how many instances the recommended configuration keeps at
 * least (`availability`) and how its autoscaling policy is sized (`scaling`). Both read only with
 * `sla.targetTps` (core/serving/target-sizing.ts, scaling-policy.ts).
 */

/**
 * Two instances by default: SageMaker's hosting best practices recommend more than one instance
 * per production endpoint, which it spreads over Availability Zones so that one zone's outage
 * leaves the endpoint serving (Best practices for deploying models on SageMaker AI Hosting
 * Services, https://docs.aws.amazon.com/sagemaker/latest/dg/deployment-best-practices.html). AWS
 * Config's managed rule sagemaker-endpoint-config-prod-instance-count flags a production variant
 * whose InitialInstanceCount is 1 for the same reason
 * (https://docs.aws.amazon.com/config/latest/developerguide/sagemaker-endpoint-config-prod-instance-count.html).
 */
export const DEFAULT_MIN_INSTANCES = 2;

/**
 * The share of a measured instance's sustainable TPS the sizing and the policy plan to use. The
 * margin absorbs uneven balancing and the minutes a scale-out takes (instance start plus model
 * load). SageMaker's load-testing guide multiplies the measured maximum by a safety factor for the
 * same reason (it suggests 0.5; Load testing your auto scaling configuration,
 * https://docs.aws.amazon.com/sagemaker/latest/dg/endpoint-scaling-loadtest.html); 0.7 is this
 * project's default for an SLA that already bounds p95 at the sustainable step.
 */
export const DEFAULT_HEADROOM = 0.7;

/**
 * Scale-in waits the Application Auto Scaling default for SageMaker variants, 300 s
 * (Target tracking scaling policies, "Cooldown period",
 * https://docs.aws.amazon.com/autoscaling/application/userguide/target-tracking-scaling-policy-overview.html);
 * scale-out waits less, 60 s: a scale-out in cooldown still counts the capacity being added, so a
 * short one does not add twice, and a slow one leaves the SLA broken longer under a rising load.
 */
export const DEFAULT_SCALE_IN_COOLDOWN_SECONDS = 300;
export const DEFAULT_SCALE_OUT_COOLDOWN_SECONDS = 60;

export const availabilitySchema = z
  .strictObject({
    /** Instances a real-time recommendation keeps at least; 1 is allowed with a warning. */
    minInstances: z
      .int()
      .min(1)
      .max(MAX_ENDPOINT_INSTANCE_COUNT, {
        message:
          `at most ${MAX_ENDPOINT_INSTANCE_COUNT}: the largest instance count CreateEndpointConfig's ` +
          "InitialInstanceCount can carry (a 32-bit integer); the account's quota of the instance type " +
          '("<type> for endpoint usage" in Service Quotas) is lower and is checked when the run plans on AWS',
      })
      .default(DEFAULT_MIN_INSTANCES),
  })
  .default({ minInstances: DEFAULT_MIN_INSTANCES });

export const scalingSchema = z
  .strictObject({
    /** Share (0–1] of a measured instance's sustainable TPS to plan for. */
    headroom: z.number().gt(0).max(1).default(DEFAULT_HEADROOM),
    /** The highest rate to scale out to: the policy's maximum. @default sla.targetTps */
    peakTps: z.number().positive().optional(),
    scaleInCooldownSeconds: z.int().min(0).default(DEFAULT_SCALE_IN_COOLDOWN_SECONDS),
    scaleOutCooldownSeconds: z.int().min(0).default(DEFAULT_SCALE_OUT_COOLDOWN_SECONDS),
  })
  .default({
    headroom: DEFAULT_HEADROOM,
    scaleInCooldownSeconds: DEFAULT_SCALE_IN_COOLDOWN_SECONDS,
    scaleOutCooldownSeconds: DEFAULT_SCALE_OUT_COOLDOWN_SECONDS,
  });

/**
 * Whether "Prove the target" runs after "Recommend": the recommended configuration deployed with
 * its computed count and load tested at the target rate (core/serving/prove-target.ts). On by
 * default with a target; `false` skips it (the section then says "not proven"). Read only with
 * `sla.targetTps`.
 */
export const proveSchema = z.strictObject({ enabled: z.boolean().default(true) }).default({ enabled: true });

/**
 * The ramp's default length on AWS. Target tracking scales out once its alarm has seen the metric
 * above the target for 3 consecutive one-minute periods (Application Auto Scaling user guide,
 * "How target tracking scaling works"), and a new SageMaker instance then starts and loads the model
 * (minutes); 20 minutes leaves room for a scale-out or two to be measured, but the ramp must fit
 * one load worker invocation (about 13 minutes), which the plan's default stays within. Local runs
 * set it shorter (local scaling is time-scaled).
 */
export const DEFAULT_RAMP_SECONDS = 1200;
/**
 * The shortest ramp: one second, for tests and time-scaled local runs. On AWS a scale-out needs its
 * metric above the target for minutes first, so a short ramp measures the minimum alone (the plan
 * warns under RAMP_SECONDS_TO_SCALE_ON_AWS).
 */
export const MIN_RAMP_SECONDS = 1;
/** Three one-minute alarm periods and an instance's start: below 10 minutes, no scale-out is likely seen. */
export const RAMP_SECONDS_TO_SCALE_ON_AWS = 600;
/** The longest ramp: two hours of the peak's instances is already the run's largest single cost. */
export const MAX_RAMP_SECONDS = 7200;

/**
 * Whether "Ramp test" runs after the proof (core/serving/ramp-test.ts): the recommended
 * configuration at the policy's minimum with the policy attached, under an arrival rate rising to
 * the peak over `seconds`. Off by default (it bills the peak's instances for the ramp); read only
 * with `sla.targetTps`.
 */
export const rampTestSchema = z
  .strictObject({
    enabled: z.boolean().default(false),
    /**
     * The ramp's length. It runs in one load worker invocation ("Validate and plan" refuses a longer
     * one, naming the longest that fits). @default the longest that fits, at most DEFAULT_RAMP_SECONDS
     */
    seconds: z.number().min(MIN_RAMP_SECONDS).max(MAX_RAMP_SECONDS).optional(),
  })
  .default({ enabled: false });

export type AvailabilitySettings = z.output<typeof availabilitySchema>;
export type ScalingSettings = z.output<typeof scalingSchema>;
export type ProveSettings = z.output<typeof proveSchema>;
export type RampTestSettings = z.output<typeof rampTestSchema>;

export interface ServingInputIssue {
  readonly path: PropertyKey[];
  readonly message: string;
  readonly given: unknown;
}

/** What the serving settings need from the rest of the input: a target to size for. */
export function servingInputIssues(input: {
  readonly objective?: string | undefined;
  readonly sla: { readonly targetTps?: number | undefined };
  readonly scaling: ScalingSettings;
  readonly rampTest?: RampTestSettings;
}): ServingInputIssue[] {
  const target = input.sla.targetTps;
  const issues: ServingInputIssue[] = [];
  if (input.objective === 'lowest-cost-at-target' && target === undefined) {
    issues.push({
      path: ['sla', 'targetTps'],
      message: 'a target TPS, which the objective lowest-cost-at-target sizes every candidate for',
      given: undefined,
    });
  }
  const peak = input.scaling.peakTps;
  if (peak !== undefined && target === undefined) {
    issues.push({
      path: ['scaling', 'peakTps'],
      message: 'no peakTps without sla.targetTps: the policy is sized from the target; set both',
      given: peak,
    });
  } else if (peak !== undefined && target !== undefined && peak < target) {
    issues.push({
      path: ['scaling', 'peakTps'],
      message: `at least sla.targetTps (${target}): the peak is the highest rate the endpoint scales out to`,
      given: peak,
    });
  }
  if (input.rampTest?.enabled === true && target === undefined) {
    issues.push({
      path: ['rampTest', 'enabled'],
      message: 'no ramp test without sla.targetTps: the ramp tests the policy sized for the target; set both',
      given: true,
    });
  }
  return issues;
}
