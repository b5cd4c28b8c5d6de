import type { ApplicationAutoScalingClient } from '@aws-sdk/client-application-auto-scaling';
import type { EndpointInstanceSeriesReader, ScalingActivity } from '../../core/ports/index.js';
import type { InstanceCountPoint } from '../../core/serving/index.js';
import { variantResourceId } from './application-autoscaling-registry.js';
import { readScalingActivities } from './scaling-activities.js';

/**
 * `ScalingActivityStatusCode` (same model): Pending | InProgress | Successful | Overridden |
 * Unfulfilled | Failed. Only a successful activity changed the count; a pending or running one has
 * launched (billed) instances at most; the other three changed nothing.
 */
const COMPLETED = 'Successful';
const RUNNING: ReadonlySet<string> = new Set(['Pending', 'InProgress']);

/** The project's real-time endpoints have one variant (DeployCandidate). */
const DEFAULT_VARIANT = 'AllTraffic';

export interface SeriesWindow {
  readonly fromEpochMs: number;
  readonly toEpochMs: number;
  /**
   * Instances in service before the first activity (the policy's minimum, as the ramp deployed
   * the endpoint). Without it the count before the first activity is unknown: the series then has
   * no point before that activity's end, and a scale-out's starting instances are counted only
   * from the second activity on.
   */
  readonly initialInService?: number;
}

interface ActivityEvent {
  readonly atEpochMs: number;
  readonly kind: 'launch' | 'done';
  readonly index: number;
  readonly desired: number;
}

/**
 * A variant's instances over time from its scaling activities, in the port's shape
 * (`EndpointInstanceSeriesReader`): the count at `fromEpochMs` as a point at `fromEpochMs`, then
 * every change up to `toEpochMs`, oldest first. Pure, so the caller that knows the starting count
 * (the ramp's Lambda, with the policy's minimum) passes it here.
 *
 * Each activity sets a desired count (`toInstanceCount`, read from its description; an activity
 * without one is skipped, not guessed). A successful scale-out launches the added instances at its
 * start (billed, not serving: `starting`) and has them in service at its end; a successful
 * scale-in counts the removed instances as billed until its end (conservative: the activity does not
 * say when each one stopped). A running activity (Pending, InProgress) adds only its starting
 * instances; Failed, Unfulfilled and Overridden ones change nothing. Activities are ordered by
 * their times, so the input's order does not matter and overlapping ones add up.
 */
export function seriesFromActivities(
  activities: readonly ScalingActivity[],
  window: SeriesWindow,
): InstanceCountPoint[] {
  assertValidWindow(window);
  const points = pointsOf(eventsOf(activities), window.initialInService);
  const atFrom = points.findLast((point) => point.atEpochMs <= window.fromEpochMs);
  const inWindow = points.filter(
    (point) => point.atEpochMs > window.fromEpochMs && point.atEpochMs <= window.toEpochMs,
  );
  return atFrom === undefined ? inWindow : [{ ...atFrom, atEpochMs: window.fromEpochMs }, ...inWindow];
}

function assertValidWindow(window: SeriesWindow): void {
  const problems: string[] = [];
  if (!Number.isFinite(window.fromEpochMs) || !(window.toEpochMs >= window.fromEpochMs)) {
    problems.push(
      `fromEpochMs ${window.fromEpochMs} and toEpochMs ${window.toEpochMs}: expected finite epoch milliseconds, ` +
        'toEpochMs at or after fromEpochMs',
    );
  }
  const initial = window.initialInService;
  if (initial !== undefined && !(Number.isInteger(initial) && initial >= 0)) {
    problems.push(`initialInService: got ${initial}, expected a whole number ≥ 0 (the policy's minimum)`);
  }
  if (problems.length > 0) throw new RangeError(`Instance series window: ${problems.join('; ')}`);
}

function eventsOf(activities: readonly ScalingActivity[]): ActivityEvent[] {
  const events: ActivityEvent[] = [];
  activities.forEach((activity, index) => {
    const desired = activity.toInstanceCount;
    if (desired === undefined) return;
    // A successful activity has ended, so it carries `EndTime`; one without it is not counted.
    const completedAt = activity.status === COMPLETED ? activity.endEpochMs : undefined;
    if (completedAt === undefined && !RUNNING.has(activity.status)) return;
    events.push({ atEpochMs: activity.startEpochMs, kind: 'launch', index, desired });
    if (completedAt !== undefined) events.push({ atEpochMs: completedAt, kind: 'done', index, desired });
  });
  // At the same instant an activity ends before the next one starts from its count.
  return events.sort(
    (a, b) => a.atEpochMs - b.atEpochMs || Number(a.kind === 'launch') - Number(b.kind === 'launch'),
  );
}

/**
 * Walks the events from the starting count (unknown when undefined), one point per change; the
 * starting count is a point before any time.
 */
function pointsOf(
  events: readonly ActivityEvent[],
  initialInService: number | undefined,
): InstanceCountPoint[] {
  const points: InstanceCountPoint[] =
    initialInService === undefined
      ? []
      : [{ atEpochMs: Number.NEGATIVE_INFINITY, inService: initialInService, starting: 0 }];
  let inService = initialInService;
  // The desired counts of the scale-outs under way, by activity: their instances are starting.
  const launching = new Map<number, number>();
  const push = (atEpochMs: number, count: number): void => {
    const starting = Math.max(0, ...[...launching.values()].map((desired) => desired - count));
    const last = points.at(-1);
    // A change that changes nothing (an activity setting the count it found) is no point.
    if (last?.inService === count && last.starting === starting) return;
    points.push({ atEpochMs, inService: count, starting });
  };
  for (const event of events) {
    if (event.kind === 'launch') {
      if (inService === undefined || event.desired <= inService) continue;
      launching.set(event.index, event.desired);
      push(event.atEpochMs, inService);
    } else {
      launching.delete(event.index);
      inService = event.desired;
      push(event.atEpochMs, inService);
    }
  }
  return points;
}

export interface ApplicationAutoScalingInstanceSeriesOptions {
  readonly autoScaling: ApplicationAutoScalingClient;
  /** @default 'AllTraffic' */
  readonly variantName?: string;
}

/**
 * `EndpointInstanceSeriesReader` over Application Auto Scaling: the variant's scaling activities
 * (DescribeScalingActivities on `endpoint/<name>/variant/<variant>`, namespace `sagemaker`,
 * dimension `sagemaker:variant:DesiredInstanceCount`), turned into counts by
 * `seriesFromActivities`. Application Auto Scaling keeps six weeks of activities (API reference,
 * DescribeScalingActivities); a ramp endpoint lives for one run, so every page is read.
 */
export class ApplicationAutoScalingInstanceSeries implements EndpointInstanceSeriesReader {
  private readonly autoScaling: ApplicationAutoScalingClient;
  private readonly variantName: string;

  constructor(options: ApplicationAutoScalingInstanceSeriesOptions) {
    this.autoScaling = options.autoScaling;
    this.variantName = options.variantName ?? DEFAULT_VARIANT;
  }

  /**
   * The port: what the activities show. Activities do not say the count before the first one, so
   * pass `initialInService` (the policy's minimum) for the point at `fromEpochMs` when no activity
   * completed before it; without it, a variant with no activity gives an empty series.
   */
  async instanceSeries(
    endpointName: string,
    fromEpochMs: number,
    toEpochMs: number,
    options: { readonly initialInService?: number } = {},
  ): Promise<readonly InstanceCountPoint[]> {
    const activities = await this.scalingActivities(endpointName);
    return seriesFromActivities(activities, { fromEpochMs, toEpochMs, ...options });
  }

  /** Every activity of the variant, oldest first, in the port's `ScalingActivity` shape. */
  scalingActivities(endpointName: string): Promise<ScalingActivity[]> {
    return readScalingActivities(this.autoScaling, variantResourceId(endpointName, this.variantName), 0);
  }
}
