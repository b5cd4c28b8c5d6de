import type {
  AsyncBenchmarkFigures,
  AsyncGenerativeFigures,
  AsyncRunOutcome,
  AsyncRunPlan,
  AsyncRunSummary,
  Distribution,
  ItemResult,
  ItemStatus,
} from '../contracts/index.js';
import { AsyncRunOutcomes, ItemStatuses } from '../contracts/index.js';
import type { BacklogSample, ScalingActivity } from '../ports/index.js';

/**
 * The async run's report document (`async/report.json`), from which `async/report.html` is
 * rendered: the outcome and per-input counts, the money (instance-hours from the recorded instance
 * count, at the instance type's listed price), and what happened over time: inputs awaiting their
 * result and the endpoint's backlog, the instances, the cumulative completions, and each input's
 * time. Built from what the run recorded (the batches' results, the endpoint's scaling activities
 * and its backlog), nothing else, so the page tells the same story as summary.json.
 */

export const ASYNC_REPORT_KIND = 'async-inference';

/** A point of a count over time, in seconds from the timeline's origin. */
export interface CountPoint {
  readonly atSeconds: number;
  readonly count: number;
}

export interface AsyncTimeline {
  /** The first invocation: second 0 of every series. Null when no input was invoked. */
  readonly originEpochMs: number | null;
  /** The summary's time, where the series end. */
  readonly endSeconds: number;
  /** Inputs invoked whose result had not come back: the workflow's own record, exact. */
  readonly awaiting: readonly CountPoint[];
  /**
   * The endpoint's `ApproximateBacklogSize` (requests queued or being processed) as the observer
   * recorded it; null when it recorded nothing (e.g. CloudWatch had not published yet).
   */
  readonly backlog: readonly CountPoint[] | null;
  /** Instances, a step at each completed scaling activity; null when no count was recorded. */
  readonly instances: readonly CountPoint[] | null;
  /** Cumulative results: completed, and failed or timed out. */
  readonly completions: readonly {
    readonly atSeconds: number;
    readonly completed: number;
    readonly failed: number;
  }[];
}

/** One input as the latency chart draws it. */
export interface AsyncInputPoint {
  readonly itemIndex: number;
  readonly status: ItemStatus;
  /** Invocation → result (the workflow's own clock); null when not recorded. */
  readonly totalMs: number | null;
  /** Time in SageMaker (queue + processing), from the result's own timestamps. */
  readonly timeInSageMakerMs: number | null;
}

export interface AsyncRunMoney {
  /** The integral of the instance count over the timeline; null without a recorded count. */
  readonly instanceHours: number | null;
  /** The instance type's listed price per instance-hour; null when it has none. */
  readonly usdPerInstanceHour: number | null;
  readonly costUsd: number | null;
  /** What the figures cover and where the price comes from. */
  readonly basis: string;
  /** The plan's upper bound, for comparison. */
  readonly estimatedUsd: number | null;
}

export interface AsyncReport {
  readonly kind: typeof ASYNC_REPORT_KIND;
  readonly runId: string;
  readonly name?: string;
  readonly generatedAt: string;
  readonly measuredLocally: boolean;
  readonly outcome: AsyncRunOutcome;
  readonly outcomeText: string;
  readonly endpoint: {
    readonly name: string;
    readonly action: 'reuse' | 'deploy';
    readonly instanceType?: string;
    readonly maxInstanceCount?: number;
    readonly targetBacklogPerInstance?: number;
  };
  readonly counts: {
    readonly inputs: number;
    readonly completed: number;
    readonly failed: number;
    readonly timedOut: number;
  };
  readonly money: AsyncRunMoney;
  readonly figures: {
    readonly makespanMs: number | null;
    readonly drainRatePerMinute: number | null;
    readonly totalMs: Distribution | null;
    readonly timeInSageMakerMs: Distribution | null;
  };
  readonly timeline: AsyncTimeline;
  readonly inputs: readonly AsyncInputPoint[];
  readonly benchmark?: AsyncBenchmarkFigures;
  readonly generative?: AsyncGenerativeFigures;
  /** What the report could not show, and why. */
  readonly notes: readonly string[];
  readonly files: { readonly summaryJson: string; readonly summaryMarkdown: string };
}

/** What the run recorded, gathered by "Summarize async run". */
export interface AsyncReportInput {
  readonly plan: AsyncRunPlan;
  readonly summary: AsyncRunSummary;
  readonly items: readonly ItemResult[];
  /** The variant's scaling activities since the run was planned, any status. */
  readonly activities: readonly ScalingActivity[];
  /** Instances when the invocations started, when the endpoint loop read it. */
  readonly instancesAtStart: number | null;
  readonly backlog: readonly BacklogSample[];
  readonly nowEpochMs: number;
  readonly measuredLocally: boolean;
}

const HOUR_MS = 3_600_000;

/** The report document of an async run (see `AsyncReport`). */
export function buildAsyncReport(input: AsyncReportInput): AsyncReport {
  const { plan, summary, items } = input;
  const invoked = finite(items.map((item) => item.invokedAtEpochMs));
  const originEpochMs = invoked.length === 0 ? null : Math.min(...invoked);
  const endEpochMs = Math.max(input.nowEpochMs, ...finite(items.map((item) => item.finishedAtEpochMs)));
  const notes: string[] = [];
  const timeline = timelineOf(input, originEpochMs, endEpochMs, notes);
  const deploy = plan.endpoint.deploy;
  return {
    kind: ASYNC_REPORT_KIND,
    runId: summary.runId,
    ...(summary.name === undefined ? {} : { name: summary.name }),
    generatedAt: new Date(input.nowEpochMs).toISOString(),
    measuredLocally: input.measuredLocally,
    outcome: summary.outcome,
    outcomeText: outcomeText(summary),
    endpoint: {
      name: plan.endpoint.endpointName,
      action: plan.endpoint.action,
      ...(deploy === undefined
        ? {}
        : {
            instanceType: deploy.instanceType,
            maxInstanceCount: deploy.maxInstanceCount,
            targetBacklogPerInstance: deploy.targetBacklogPerInstance,
          }),
    },
    counts: {
      inputs: summary.inputs,
      completed: summary.completed,
      failed: summary.failed,
      timedOut: summary.timedOut,
    },
    money: moneyOf(plan, timeline, input.measuredLocally),
    figures: {
      makespanMs: summary.makespanMs,
      drainRatePerMinute: summary.drainRatePerMinute,
      totalMs: summary.totalMs,
      timeInSageMakerMs: summary.timeInSageMakerMs,
    },
    timeline,
    inputs: items.map((item) => ({
      itemIndex: item.itemIndex,
      status: item.status,
      totalMs: item.totalMs,
      timeInSageMakerMs: item.timeInSageMakerMs,
    })),
    ...(summary.benchmark === undefined ? {} : { benchmark: summary.benchmark }),
    ...(summary.generative === undefined ? {} : { generative: summary.generative }),
    notes: [...notes, ...(summary.warnings ?? [])],
    files: { summaryJson: summary.summaryUri, summaryMarkdown: summary.summaryMarkdownUri },
  };
}

/** The headline: how the run ended, in a sentence. */
export function outcomeText(summary: Pick<AsyncRunSummary, 'outcome' | 'inputs' | 'completed'>): string {
  const of = `${summary.completed} of ${summary.inputs} input${summary.inputs === 1 ? '' : 's'}`;
  if (summary.outcome === AsyncRunOutcomes.completed) return `Every input completed (${of})`;
  if (summary.outcome === AsyncRunOutcomes.partial) return `Partial: ${of} completed`;
  return `No input completed (0 of ${summary.inputs})`;
}

function timelineOf(
  input: AsyncReportInput,
  originEpochMs: number | null,
  endEpochMs: number,
  notes: string[],
): AsyncTimeline {
  if (originEpochMs === null) {
    notes.push('no input was invoked: nothing to draw over time');
    return { originEpochMs, endSeconds: 0, awaiting: [], backlog: null, instances: null, completions: [] };
  }
  const at = (epochMs: number): number => round3((epochMs - originEpochMs) / 1000);
  const endSeconds = at(endEpochMs);
  const backlog = backlogPoints(input.backlog, originEpochMs, endEpochMs, at);
  if (backlog === null) {
    notes.push(
      input.measuredLocally
        ? 'the endpoint recorded no backlog during the run'
        : 'ApproximateBacklogSize had no data points yet (CloudWatch publishes with a delay of a few minutes)',
    );
  }
  const instances = instancePoints(input, originEpochMs, endEpochMs, at);
  if (instances === null) {
    notes.push(
      'the instance count was not recorded (no count when the invocations started and no completed scaling activity): instance-hours are unknown',
    );
  }
  return {
    originEpochMs,
    endSeconds,
    awaiting: awaitingPoints(input.items, endEpochMs, at),
    backlog,
    instances,
    completions: completionPoints(input.items, at),
  };
}

/** +1 at each invocation, −1 at each result, as a step series (ties: results first). */
function awaitingPoints(
  items: readonly ItemResult[],
  endEpochMs: number,
  at: (epochMs: number) => number,
): CountPoint[] {
  const events = items.flatMap((item) =>
    item.invokedAtEpochMs === undefined
      ? []
      : [
          { epochMs: item.invokedAtEpochMs, delta: 1 },
          ...(item.finishedAtEpochMs === undefined ? [] : [{ epochMs: item.finishedAtEpochMs, delta: -1 }]),
        ],
  );
  return stepSeries(events, endEpochMs, at);
}

function completionPoints(
  items: readonly ItemResult[],
  at: (epochMs: number) => number,
): AsyncTimeline['completions'] {
  const finished = items
    .filter((item) => item.finishedAtEpochMs !== undefined)
    .sort((a, b) => (a.finishedAtEpochMs ?? 0) - (b.finishedAtEpochMs ?? 0));
  let completed = 0;
  let failed = 0;
  const points: { atSeconds: number; completed: number; failed: number }[] = [
    { atSeconds: 0, completed: 0, failed: 0 },
  ];
  for (const item of finished) {
    if (item.status === ItemStatuses.completed) completed += 1;
    else failed += 1;
    const atSeconds = at(item.finishedAtEpochMs ?? 0);
    const last = points[points.length - 1];
    if (last !== undefined && last.atSeconds === atSeconds) points.pop();
    points.push({ atSeconds, completed, failed });
  }
  return points;
}

/** The backlog from the origin on: the size in effect at the origin, then each later sample. */
function backlogPoints(
  samples: readonly BacklogSample[],
  originEpochMs: number,
  endEpochMs: number,
  at: (epochMs: number) => number,
): CountPoint[] | null {
  const sorted = [...samples].sort((a, b) => a.atEpochMs - b.atEpochMs);
  const before = sorted.filter((sample) => sample.atEpochMs <= originEpochMs).at(-1);
  const inside = sorted.filter(
    (sample) => sample.atEpochMs > originEpochMs && sample.atEpochMs <= endEpochMs,
  );
  if (before === undefined && inside.length === 0) return null;
  const points: CountPoint[] = [];
  for (const point of [
    ...(before === undefined ? [] : [{ atSeconds: 0, count: before.size }]),
    ...inside.map((sample) => ({ atSeconds: at(sample.atEpochMs), count: sample.size })),
  ]) {
    // Changes within the same millisecond: the last one holds.
    if (points[points.length - 1]?.atSeconds === point.atSeconds) points.pop();
    points.push(point);
  }
  return withEnd(points, at(endEpochMs));
}

/**
 * The instances: the count at the origin (read by the endpoint loop, or set by the last scaling
 * activity that completed before it), then a step where each later activity completed. A failed or
 * unfinished activity changed nothing (Application Auto Scaling, DescribeScalingActivities
 * `StatusCode`: https://docs.aws.amazon.com/autoscaling/application/APIReference/API_ScalingActivity.html).
 */
function instancePoints(
  input: AsyncReportInput,
  originEpochMs: number,
  endEpochMs: number,
  at: (epochMs: number) => number,
): CountPoint[] | null {
  const completed = input.activities
    .filter(
      (activity): activity is ScalingActivity & { endEpochMs: number; toInstanceCount: number } =>
        activity.status === 'Successful' &&
        activity.endEpochMs !== undefined &&
        activity.toInstanceCount !== undefined,
    )
    .sort((a, b) => a.endEpochMs - b.endEpochMs);
  const before = completed.filter((activity) => activity.endEpochMs <= originEpochMs).at(-1);
  const atOrigin = input.instancesAtStart ?? before?.toInstanceCount;
  const later = completed
    .filter((activity) => activity.endEpochMs > originEpochMs && activity.endEpochMs <= endEpochMs)
    .map((activity) => ({ atSeconds: at(activity.endEpochMs), count: activity.toInstanceCount }));
  if (atOrigin === undefined && later.length === 0) return null;
  const points = [...(atOrigin === undefined ? [] : [{ atSeconds: 0, count: atOrigin }]), ...later];
  return withEnd(
    points.filter((point, index) => point.count !== points[index - 1]?.count),
    at(endEpochMs),
  );
}

/** A step series of running sums of `delta`, one point per distinct time, ending at `endEpochMs`. */
function stepSeries(
  events: readonly { epochMs: number; delta: number }[],
  endEpochMs: number,
  at: (epochMs: number) => number,
): CountPoint[] {
  const sorted = [...events].sort((a, b) => a.epochMs - b.epochMs || a.delta - b.delta);
  const points: CountPoint[] = [];
  let count = 0;
  for (const event of sorted) {
    count += event.delta;
    const atSeconds = at(event.epochMs);
    if (points[points.length - 1]?.atSeconds === atSeconds) points.pop();
    points.push({ atSeconds, count });
  }
  return withEnd(points, at(endEpochMs));
}

/** The last count again at the end, so a step line reaches it. */
function withEnd(points: CountPoint[], endSeconds: number): CountPoint[] {
  const last = points[points.length - 1];
  return last === undefined || last.atSeconds >= endSeconds
    ? points
    : [...points, { ...last, atSeconds: endSeconds }];
}

/** Instance-hours under the instance step line, from the origin to the summary. */
export function instanceHoursOf(instances: readonly CountPoint[]): number {
  let seconds = 0;
  instances.forEach((point, index) => {
    const next = instances[index + 1];
    if (next !== undefined) seconds += point.count * (next.atSeconds - point.atSeconds);
  });
  return (seconds * 1000) / HOUR_MS;
}

function moneyOf(plan: AsyncRunPlan, timeline: AsyncTimeline, measuredLocally: boolean): AsyncRunMoney {
  const instanceHours = timeline.instances === null ? null : round6(instanceHoursOf(timeline.instances));
  const usdPerInstanceHour = plan.estimate?.usdPerHour ?? null;
  const costUsd =
    instanceHours === null || usdPerInstanceHour === null ? null : round6(instanceHours * usdPerInstanceHour);
  const instanceType = plan.endpoint.deploy?.instanceType;
  const price =
    usdPerInstanceHour === null
      ? `no listed price${instanceType === undefined ? ' (a reused endpoint: its instance type is not in the plan)' : ` for ${instanceType}`}`
      : `${instanceType ?? 'the instance type'} at $${usdPerInstanceHour}/h${plan.estimate?.priceTable === undefined ? '' : ` (${plan.estimate.priceTable.region}, ${plan.estimate.priceTable.kind}, recorded ${plan.estimate.priceTable.recordedOn})`}`;
  return {
    instanceHours,
    usdPerInstanceHour,
    costUsd,
    basis:
      `Instances in service from the first invocation to the summary, ${price}` +
      (measuredLocally
        ? '; locally the instances are model server processes, priced as the instance type would be'
        : '') +
      '. Endpoint creation and deletion are not included.',
    estimatedUsd: plan.estimate?.totalUsd ?? null,
  };
}

function finite(values: readonly (number | undefined)[]): number[] {
  return values.filter((value): value is number => value !== undefined && Number.isFinite(value));
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
