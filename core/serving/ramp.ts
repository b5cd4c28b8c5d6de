import type { TimelineBucket } from '../load-test/index.js';
import { slaBreaches } from '../load-test/index.js';
import type { LatencySla } from '../contracts/index.js';

/**
 * The ramp test's arithmetic: from a ramp step's merged timeline (the offered
 * rate, latency and errors per bucket, load-test/timeline.ts) and the endpoint's instance counts
 * over the same time, how long the SLA was broken, how long each scale-out took from the moment the
 * policy's metric passed its target, what the ramp cost, and, when the SLA broke, which headroom
 * would have held. Pure: the workflow (or the local runner) gathers the series and calls it.
 */

/** The endpoint's instances from one moment on (local: the front's series; AWS: scaling activities). */
export interface InstanceCountPoint {
  readonly atEpochMs: number;
  /** Taking traffic. */
  readonly inService: number;
  /** Launched, not yet in service: billed, not serving. @default 0 */
  readonly starting?: number;
}

export interface RampInput {
  /** The ramp step's timeline, merged over workers (`StepResult.timeline`). */
  readonly timeline: readonly TimelineBucket[];
  /** Where the ramp (the step's measurement window) started. */
  readonly rampStartEpochMs: number;
  /** The ramp's rates (the plan's `ramp.fromTps` and its step), requests/s. */
  readonly fromTps: number;
  readonly toTps: number;
  readonly sla: LatencySla;
  /** The instance counts, oldest first; the first at or before the ramp's start. */
  readonly instances: readonly InstanceCountPoint[];
  /** One instance's price. */
  readonly usdPerInstanceHour: number;
  /** The policy's figures: one instance's sustainable rate and the headroom of its target. */
  readonly perInstanceTps: number;
  readonly headroom: number;
  /** The policy's minimum: the count the ramp starts from. */
  readonly minInstances: number;
}

/** Consecutive buckets that broke the SLA. */
export interface RampBreach {
  readonly fromSeconds: number;
  readonly toSeconds: number;
  /** The first bucket's reasons, as a step's (`slaBreaches`). */
  readonly reasons: readonly string[];
}

export interface RampScaleOut {
  /** When the added instances were in service, seconds from the ramp's start. */
  readonly atSeconds: number;
  readonly fromInstances: number;
  readonly toInstances: number;
  /**
   * The start of the first bucket (since the previous scale-out) whose offered rate per instance in
   * service passed the policy's target (perInstanceTps × headroom); null when none did.
   */
  readonly triggerSeconds: number | null;
  /** atSeconds − triggerSeconds: metric, alarm, launch and model load together. */
  readonly secondsToScaleOut: number | null;
}

/** One point of the ramp's chart: a bucket's figures and the instances in service at its start. */
export interface RampChartPoint {
  readonly fromSeconds: number;
  readonly offeredTps: number;
  readonly tps: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly errorRate: number;
  readonly inService: number;
  readonly meetsSla: boolean;
}

export interface RampHeadroom {
  readonly current: number;
  /** The largest headroom (in steps of 0.05) that would have held; null when none would. */
  readonly wouldHold: number | null;
  /** The slowest scale-out measured, the lag the headroom must cover. */
  readonly scaleOutLagSeconds: number | null;
  /** When no headroom holds: the minimum that would, at the current headroom. */
  readonly minInstancesThatHold?: number;
  /** What to change, in one sentence. */
  readonly note: string;
}

export interface RampOutcome {
  readonly seconds: number;
  readonly slaBrokenSeconds: number;
  readonly slaBrokenMinutes: number;
  readonly held: boolean;
  readonly breaches: readonly RampBreach[];
  readonly scaleOuts: readonly RampScaleOut[];
  /** Instances billed (in service or starting) × seconds, over the ramp. */
  readonly instanceSeconds: number;
  readonly costUsd: number;
  readonly chart: readonly RampChartPoint[];
  /** Present when the SLA broke. */
  readonly headroom?: RampHeadroom;
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** The instances at `epochMs`: the last point at or before it (the first point before any). */
function countAt(points: readonly InstanceCountPoint[], epochMs: number): InstanceCountPoint | undefined {
  let found = points[0];
  for (const point of points) {
    if (point.atEpochMs > epochMs) break;
    found = point;
  }
  return found;
}

/** Billed instance-seconds in [fromMs, toMs): the step function of the points, integrated. */
function instanceSecondsWithin(points: readonly InstanceCountPoint[], fromMs: number, toMs: number): number {
  const billed = (point: InstanceCountPoint | undefined): number =>
    point === undefined ? 0 : point.inService + (point.starting ?? 0);
  let total = 0;
  let cursor = fromMs;
  let current = billed(countAt(points, fromMs));
  for (const point of points) {
    if (point.atEpochMs <= fromMs) continue;
    if (point.atEpochMs >= toMs) break;
    total += current * (point.atEpochMs - cursor);
    cursor = point.atEpochMs;
    current = billed(point);
  }
  return (total + current * (toMs - cursor)) / 1000;
}

function scaleOutsOf(input: RampInput, endMs: number): RampScaleOut[] {
  const targetPerInstance = input.perInstanceTps * input.headroom;
  const scaleOuts: RampScaleOut[] = [];
  let previous = countAt(input.instances, input.rampStartEpochMs)?.inService ?? 0;
  let searchFromSeconds = 0;
  for (const point of input.instances) {
    if (point.atEpochMs <= input.rampStartEpochMs) continue;
    if (point.atEpochMs > endMs) break;
    if (point.inService > previous) {
      const atSeconds = (point.atEpochMs - input.rampStartEpochMs) / 1000;
      const trigger = input.timeline.find(
        (bucket) =>
          bucket.fromSeconds >= searchFromSeconds &&
          bucket.fromSeconds < atSeconds &&
          bucket.offeredTps / Math.max(1, previous) > targetPerInstance,
      );
      scaleOuts.push({
        atSeconds: round(atSeconds, 3),
        fromInstances: previous,
        toInstances: point.inService,
        triggerSeconds: trigger?.fromSeconds ?? null,
        secondsToScaleOut: trigger === undefined ? null : round(atSeconds - trigger.fromSeconds, 3),
      });
      searchFromSeconds = atSeconds;
    }
    previous = point.inService;
  }
  return scaleOuts;
}

/**
 * The headroom that would have held. Target tracking holds each instance at perInstanceTps (P) ×
 * headroom (h), so the policy fires when the offered rate passes n × P × h, with n instances in
 * service. Until the added instances are in service, L seconds later (the slowest scale-out
 * measured), the rate keeps rising at the ramp's slope s (TPS per second), and the n instances
 * carry n·P·h + s·L, which holds the SLA only while it is at most their capacity n·P:
 *
 *   n·P·h + s·L ≤ n·P   ⇔   h ≤ 1 − s·L ÷ (n·P)
 *
 * The tightest case is the fewest instances, the minimum the ramp starts from. When even h → 0
 * fails (s·L ≥ n·P: the lag's growth alone exceeds the minimum's capacity), no headroom holds and
 * the minimum must rise to ⌈s·L ÷ (P·(1 − h))⌉ at the current headroom. A result at or above the
 * current headroom means the lag was not the cause (a capacity below the measured one, or the
 * maximum reached): the note says so.
 */
function headroomThatHolds(
  input: RampInput,
  seconds: number,
  scaleOuts: readonly RampScaleOut[],
): RampHeadroom {
  const lags = scaleOuts.flatMap((scaleOut) =>
    scaleOut.secondsToScaleOut === null ? [] : [scaleOut.secondsToScaleOut],
  );
  const current = input.headroom;
  if (lags.length === 0) {
    return {
      current,
      wouldHold: null,
      scaleOutLagSeconds: null,
      note: 'no scale-out followed the metric passing its target during the ramp, so its lag is unknown: check the maximum capacity and that the policy was attached',
    };
  }
  const lag = Math.max(...lags);
  const slope = (input.toTps - input.fromTps) / seconds;
  const capacity = input.minInstances * input.perInstanceTps;
  const bound = 1 - (slope * lag) / capacity;
  const wouldHold = Math.floor(round(bound * 20, 9)) / 20;
  if (wouldHold <= 0) {
    const minimum = Math.ceil((slope * lag) / (input.perInstanceTps * (1 - current)));
    return {
      current,
      wouldHold: null,
      scaleOutLagSeconds: lag,
      minInstancesThatHold: minimum,
      note: `no headroom holds: the ramp adds ${round(slope * lag, 2)} TPS in the ${lag} s a scale-out takes, more than ${input.minInstances} instance(s) carry (${round(capacity, 2)} TPS); raise the minimum to ${minimum} at headroom ${current}, or ramp more slowly`,
    };
  }
  if (wouldHold >= current) {
    return {
      current,
      wouldHold,
      scaleOutLagSeconds: lag,
      note: `the scale-out lag (${lag} s) fits headroom ${current}: the breach has another cause (instances slower than ${input.perInstanceTps} TPS each, or the maximum capacity reached)`,
    };
  }
  return {
    current,
    wouldHold,
    scaleOutLagSeconds: lag,
    note: `headroom ${wouldHold} would have held: 1 − ${round(slope, 3)} TPS/s × ${lag} s ÷ (${input.minInstances} × ${input.perInstanceTps} TPS) = ${round(bound, 3)}`,
  };
}

/** How long the SLA was broken, as the sentences say it: seconds below a minute, else minutes. */
export function brokenTimeText(outcome: Pick<RampOutcome, 'slaBrokenSeconds' | 'slaBrokenMinutes'>): string {
  return outcome.slaBrokenSeconds < 60
    ? `${round(outcome.slaBrokenSeconds, 1)} s`
    : `${outcome.slaBrokenMinutes} min`;
}

/** The ramp's outcome; see the module's comment. */
export function rampOutcome(input: RampInput): RampOutcome {
  const seconds = round(
    input.timeline.reduce((sum, bucket) => sum + bucket.seconds, 0),
    3,
  );
  const endMs = input.rampStartEpochMs + seconds * 1000;
  const judged = input.timeline.map((bucket) => ({
    bucket,
    reasons: slaBreaches(
      {
        requests: bucket.requests,
        dropped: bucket.dropped,
        errorRate: bucket.errorRate,
        latencyMs: bucket.latencyMs,
        windowSeconds: bucket.seconds,
      },
      input.sla,
    ),
  }));
  // A bucket the ramp offered nothing in (a ramp from 0) has nothing to judge: not a breach.
  const broken = judged.map(({ bucket, reasons }) => reasons.length > 0 && bucket.offeredTps > 0);
  const breaches: RampBreach[] = [];
  judged.forEach(({ bucket, reasons }, index) => {
    if (broken[index] !== true) return;
    const last = breaches[breaches.length - 1];
    if (last !== undefined && broken[index - 1] === true) {
      breaches[breaches.length - 1] = { ...last, toSeconds: round(bucket.fromSeconds + bucket.seconds, 3) };
    } else {
      breaches.push({
        fromSeconds: bucket.fromSeconds,
        toSeconds: round(bucket.fromSeconds + bucket.seconds, 3),
        reasons,
      });
    }
  });
  const slaBrokenSeconds = round(
    judged.reduce((sum, { bucket }, index) => sum + (broken[index] === true ? bucket.seconds : 0), 0),
    3,
  );
  const scaleOuts = scaleOutsOf(input, endMs);
  const instanceSeconds = round(instanceSecondsWithin(input.instances, input.rampStartEpochMs, endMs), 3);
  const chart = judged.map(({ bucket }, index) => ({
    fromSeconds: bucket.fromSeconds,
    offeredTps: bucket.offeredTps,
    tps: bucket.tps,
    p95Ms: bucket.latencyMs.p95,
    p99Ms: bucket.latencyMs.p99,
    errorRate: bucket.errorRate,
    inService: countAt(input.instances, input.rampStartEpochMs + bucket.fromSeconds * 1000)?.inService ?? 0,
    meetsSla: broken[index] !== true,
  }));
  const held = slaBrokenSeconds === 0;
  return {
    seconds,
    slaBrokenSeconds,
    slaBrokenMinutes: round(slaBrokenSeconds / 60, 2),
    held,
    breaches,
    scaleOuts,
    instanceSeconds,
    costUsd: round((instanceSeconds * input.usdPerInstanceHour) / 3600, 6),
    chart,
    ...(held ? {} : { headroom: headroomThatHolds(input, seconds, scaleOuts) }),
  };
}
