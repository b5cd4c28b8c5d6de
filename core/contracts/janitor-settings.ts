import { ASYNC_RUN_TIMEOUT_HOURS, OPTIMIZATION_RUN_TIMEOUT_HOURS } from './run-timeouts.js';

/**
 * The janitor's settings, their defaults and the ranges they are accepted in: one table read by the
 * safety net at synth (infra/constructs/safety-net.ts), the config file's schema
 * (infra/optimizer-config.ts) and the janitor Lambda (lambdas/janitor.ts). Plain numbers, so that a
 * Lambda bundle imports them without aws-cdk-lib.
 *
 * The bound they hold: a deletable endpoint of a run that has ended lives at most `boundMinutes`
 * after the end. The janitor sweeps a resource once its run's execution has been over for
 * `graceMinutes`; the first sweep after that comes within one interval, and runs for at most
 * `sweepTimeoutMinutes`. The largest accepted grace and interval keep that sum within the bound.
 */
export const JANITOR_LIMITS = {
  /** What the sums below must stay within: an hour of a deletable endpoint after its run ends. */
  boundMinutes: 60,
  /**
   * Minutes between sweeps (`rate(N minutes)`). At least 5: each sweep lists the project's
   * resources with a ListTags call per resource against SageMaker's throttled control plane.
   */
  intervalMinutes: { default: 15, min: 5, max: 20 },
  /**
   * Minutes after a run's execution ended before its resources are swept. At least 5, and never
   * below the failed-run clean-up's in-flight wait (checked at synth): a step Lambda running when
   * the execution ended may still create an endpoint until its timeout.
   */
  graceMinutes: { default: 15, min: 5, max: 30 },
  /** The janitor Lambda's timeout: a sweep ends within it. */
  sweepTimeoutMinutes: 5,
  /**
   * Hours after which a resource whose run cannot be found (or that has no run id) is swept by age
   * alone. At most 90 days, so a typo in hours cannot switch the janitor off for good; at least
   * one hour past the longest execution timeout of the watched state machines (derived at synth).
   */
  maxAgeHours: { max: 90 * 24 },
} as const;

/** The janitor's default maximum age: one hour past the longer of the two default workflow timeouts. */
export const DEFAULT_JANITOR_MAX_AGE_HOURS =
  Math.max(OPTIMIZATION_RUN_TIMEOUT_HOURS, ASYNC_RUN_TIMEOUT_HOURS) + 1;

/** The worst case after a run ends with the given settings, in minutes (see JANITOR_LIMITS). */
export function janitorBoundMinutes(settings: {
  readonly graceMinutes: number;
  readonly intervalMinutes: number;
}): number {
  return settings.graceMinutes + settings.intervalMinutes + JANITOR_LIMITS.sweepTimeoutMinutes;
}
