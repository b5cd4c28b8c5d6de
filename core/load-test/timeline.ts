import { LoadTestAbortedError } from '../contracts/index.js';
import {
  LatencyRecorder,
  encodeHistogram,
  latencyPercentilesMs,
  mergeEncodedHistograms,
} from './histogram.js';
import type { TimelineBucket, TimelineWorkerBucket, WorkerStep } from './results.js';

/**
 * A ramp step's timeline: the window cut into the recorder's buckets, each arrival counted in the
 * bucket of its scheduled start (the rate the ramp offered then), with what became of it. Latency
 * is kept per bucket as a histogram, so workers and segments add exactly and each bucket's p95 and
 * p99 are those of all its samples (never averaged percentiles). Only ramp steps carry one: a
 * histogram per bucket is the size of a step's figures again, twenty times.
 */
export class TimelineRecorder {
  private readonly buckets: {
    offered: number;
    ok: number;
    errors: number;
    dropped: number;
    readonly latencies: LatencyRecorder;
  }[];

  constructor(count: number) {
    this.buckets = Array.from({ length: count }, () => ({
      offered: 0,
      ok: 0,
      errors: 0,
      dropped: 0,
      latencies: new LatencyRecorder(),
    }));
  }

  offer(bucket: number): void {
    const own = this.buckets[bucket];
    if (own !== undefined) own.offered++;
  }

  ok(bucket: number, latencyUs: number): void {
    const own = this.buckets[bucket];
    if (own === undefined) return;
    own.ok++;
    own.latencies.record(latencyUs);
  }

  error(bucket: number): void {
    const own = this.buckets[bucket];
    if (own !== undefined) own.errors++;
  }

  drop(bucket: number): void {
    const own = this.buckets[bucket];
    if (own !== undefined) own.dropped++;
  }

  /** The latency of an arrival that got no answer (step-recorder.ts `Unanswered`), counted elsewhere. */
  latency(bucket: number, latencyUs: number): void {
    this.buckets[bucket]?.latencies.record(latencyUs);
  }

  toWorkerBuckets(): TimelineWorkerBucket[] {
    return this.buckets.map(({ offered, ok, errors, dropped, latencies }) => ({
      offered,
      ok,
      errors,
      dropped,
      histogram: encodeHistogram(latencies.toHistogram()),
      maxLatencyUs: latencies.maxUs,
    }));
  }
}

/**
 * Timelines of parts of one step (workers', or one worker's segments) added bucket by bucket;
 * absent when no part has one. Parts with timelines of different lengths come from different plans.
 */
export function addTimelines(parts: readonly WorkerStep[]): TimelineWorkerBucket[] | undefined {
  const timelines = parts.flatMap((part) => (part.timeline === undefined ? [] : [part.timeline]));
  const first = timelines[0];
  if (first === undefined) return undefined;
  if (timelines.length !== parts.length || timelines.some((timeline) => timeline.length !== first.length)) {
    throw new LoadTestAbortedError(
      `cannot add ramp timelines of different shapes: expected ${parts.length} timelines of ${first.length} buckets, got lengths [${parts.map((part) => part.timeline?.length ?? 'none').join(', ')}]`,
    );
  }
  return first.map((_, index) => {
    const own = timelines.flatMap((timeline) => {
      const bucket = timeline[index];
      return bucket === undefined ? [] : [bucket];
    });
    const sum = (value: (bucket: TimelineWorkerBucket) => number): number =>
      own.reduce((total, bucket) => total + value(bucket), 0);
    return {
      offered: sum((bucket) => bucket.offered),
      ok: sum((bucket) => bucket.ok),
      errors: sum((bucket) => bucket.errors),
      dropped: sum((bucket) => bucket.dropped),
      histogram: encodeHistogram(mergeEncodedHistograms(own.map((bucket) => bucket.histogram))),
      maxLatencyUs: Math.max(0, ...own.map((bucket) => bucket.maxLatencyUs)),
    };
  });
}

function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

/**
 * A ramp step's timeline over all workers: per bucket, the offered and served rates, the errors and
 * the latency percentiles of the added histograms. Completions are counted where they end (as the
 * step's throughput), arrivals where they were scheduled. Absent for a constant step.
 */
export function mergeTimeline(parts: readonly WorkerStep[]): TimelineBucket[] | undefined {
  const added = addTimelines(parts);
  const first = parts[0];
  if (added === undefined || first === undefined) return undefined;
  const seconds = first.bucketMs / 1000;
  return added.map((bucket, index) => {
    const completions = parts.reduce((sum, part) => sum + (part.okPerBucket[index] ?? 0), 0);
    const requests = bucket.ok + bucket.errors;
    const attempted = requests + bucket.dropped;
    return {
      fromSeconds: round(index * seconds, 3),
      seconds: round(seconds, 3),
      offeredTps: round(bucket.offered / seconds, 3),
      tps: round(completions / seconds, 3),
      requests,
      errors: bucket.errors,
      dropped: bucket.dropped,
      errorRate: attempted === 0 ? 0 : round((bucket.errors + bucket.dropped) / attempted, 6),
      latencyMs: latencyPercentilesMs(mergeEncodedHistograms([bucket.histogram]), bucket.maxLatencyUs),
    };
  });
}
