import { ErrorSampleKeeper, errorCountKey } from './error-samples.js';
import { LatencyRecorder, encodeHistogram } from './histogram.js';
import type { InvokeErrorKind } from './ports.js';
import { emptyErrorCounts, totalErrors } from './results.js';
import { TimelineRecorder } from './timeline.js';
import type { ErrorCounts, PayloadWorkerStep, WorkerStep } from './results.js';

/** Throughput buckets per window: enough to intersect workers' windows to within 5 % of it. */
export const BUCKETS_PER_WINDOW = 20;

/** Latest completions remembered for a request cap's close (far more than finish at one instant). */
const RECENT_COMPLETIONS = 256;

export interface StepWindow {
  readonly stepIndex: number;
  readonly load: number;
  readonly workerLoad: number;
  readonly windowStartEpochMs: number;
  readonly windowMs: number;
  /** The same window on the monotonic clock. */
  readonly windowStartUs: number;
  /** Measured requests this worker may start in the window (its share of maxRequestsPerStep). */
  readonly measuredCap: number;
  /**
   * Where this invocation's part of the step ends (its segment's end, on the monotonic clock),
   * when before the window's end: nothing starts from there on, and the next segment resumes the
   * window. @default the window's end
   */
  readonly partEndUs?: number;
  /** Payloads of the run's mix: with more than one, each gets its own figures. @default 1 */
  readonly payloads?: number;
  /** Record a timeline of the window's buckets (a ramp step, timeline.ts). @default false */
  readonly timeline?: boolean;
}

/** One payload's measured requests in a step (a run with a payload mix). */
class PayloadRecorder {
  readonly latencies = new LatencyRecorder();
  requests = 0;
  ok = 0;
  errors = 0;

  toWorkerStep(): PayloadWorkerStep {
    return {
      requests: this.requests,
      ok: this.ok,
      errors: this.errors,
      histogram: encodeHistogram(this.latencies.toHistogram()),
      maxLatencyUs: this.latencies.maxUs,
    };
  }
}

/**
 * Everything one worker measures in one step. The recording path (`recordOk`) is the hot path of
 * the engine: a latency record, two comparisons and a bucket increment, no allocation.
 */
export class StepRecorder {
  readonly latencies = new LatencyRecorder();
  readonly errors: ErrorCounts = emptyErrorCounts();
  requests = 0;
  ok = 0;
  late = 0;
  dropped = 0;
  /** Measured starts admitted so far, against `window.measuredCap`. */
  measuredStarts = 0;
  /** Successful completions counted for throughput (inside the active window). */
  countedCompletions = 0;
  /** The measured part of the window on the monotonic clock: [activeFromUs, activeToUs). */
  activeFromUs: number;
  activeToUs: number;
  /** Starts at or after this are not issued: the window's end, or this part's. */
  readonly issueEndUs: number;

  private readonly windowStartUs: number;
  /**
   * Completions are counted for throughput until here: the active end, or, in a part its segment
   * cut short, the window's end. A request in flight at the cut completes where it would have
   * in one long window; the next part starts with none in flight, so merged parts count as one
   * window would.
   */
  private countEndUs: number;
  private cut: boolean;
  private readonly bucketUs: number;
  private readonly okPerBucket: number[] = new Array<number>(BUCKETS_PER_WINDOW).fill(0);
  /** End times of the latest counted completions, to take back those at or after a cap's close. */
  private readonly recentEndsUs = new Float64Array(RECENT_COMPLETIONS);
  private recentCount = 0;
  private readonly samples = new ErrorSampleKeeper();
  /** Per payload of a mix; empty for a single payload (its figures are the step's). */
  private readonly byPayload: PayloadRecorder[];
  /** Per bucket of the window, by scheduled start; a ramp step's only. */
  private readonly timeline: TimelineRecorder | undefined;

  constructor(readonly window: StepWindow) {
    const payloads = window.payloads ?? 1;
    this.byPayload = payloads > 1 ? Array.from({ length: payloads }, () => new PayloadRecorder()) : [];
    this.windowStartUs = window.windowStartUs;
    const windowEndUs = window.windowStartUs + window.windowMs * 1000;
    this.issueEndUs = Math.min(windowEndUs, window.partEndUs ?? windowEndUs);
    this.cut = this.issueEndUs < windowEndUs;
    this.activeFromUs = window.windowStartUs;
    // A part that ends in the warm-up measures nothing: an empty active range at the window's start.
    this.activeToUs = Math.max(this.activeFromUs, this.issueEndUs);
    this.countEndUs = this.cut ? windowEndUs : this.activeToUs;
    this.bucketUs = (window.windowMs * 1000) / BUCKETS_PER_WINDOW;
    this.timeline = window.timeline === true ? new TimelineRecorder(BUCKETS_PER_WINDOW) : undefined;
  }

  /** A measured start was admitted at `startUs` (its scheduled time): the offered load. */
  offer(startUs: number): void {
    this.measuredStarts++;
    this.timeline?.offer(this.startBucketOf(startUs));
  }

  /** A measured arrival scheduled at `startUs` waited past the request timeout and was dropped. */
  recordDropped(startUs: number): void {
    this.dropped++;
    this.timeline?.drop(this.startBucketOf(startUs));
  }

  /** The worker started the step after its window had begun: measure from `us` on. */
  joinAt(us: number): void {
    if (us > this.activeFromUs) this.activeFromUs = Math.min(us, this.activeToUs);
  }

  /** A request cap ended the window early: nothing started at or after `us` is measured. */
  closeWindowAt(us: number): void {
    if (us >= this.activeToUs) return;
    this.activeToUs = Math.max(us, this.activeFromUs);
    this.countEndUs = this.activeToUs;
    this.cut = false;
    // Completions already counted at or after the new end (same instant, or while an open-model
    // dispatcher caught up) fall outside the window now.
    const kept = Math.min(this.recentCount, RECENT_COMPLETIONS);
    for (let offset = 1; offset <= kept; offset++) {
      const slot = (this.recentCount - offset) % RECENT_COMPLETIONS;
      const endUs = this.recentEndsUs[slot] ?? Number.NEGATIVE_INFINITY;
      if (endUs < this.activeToUs) break;
      this.recentEndsUs[slot] = Number.NEGATIVE_INFINITY;
      const index = this.bucketOf(endUs);
      this.okPerBucket[index] = (this.okPerBucket[index] ?? 1) - 1;
      this.countedCompletions--;
    }
  }

  /** `payload`: the index of the payload sent, in a run with a mix. `startUs`: its (scheduled) start. */
  recordOk(startUs: number, endUs: number, measured: boolean, payload?: number): void {
    if (measured) {
      this.requests++;
      this.ok++;
      this.latencies.record(endUs - startUs);
      this.timeline?.ok(this.startBucketOf(startUs), endUs - startUs);
      if (payload !== undefined) {
        const own = this.byPayload[payload];
        if (own !== undefined) {
          own.requests++;
          own.ok++;
          own.latencies.record(endUs - startUs);
        }
      }
    }
    this.countCompletion(endUs);
  }

  recordError(
    kind: InvokeErrorKind,
    statusCode: number | undefined,
    message: string,
    measured: boolean,
    payload?: number,
    startUs?: number,
  ): void {
    if (!measured) return;
    this.requests++;
    this.errors[errorCountKey(kind)]++;
    if (startUs !== undefined) this.timeline?.error(this.startBucketOf(startUs));
    if (payload !== undefined) {
      const own = this.byPayload[payload];
      if (own !== undefined) {
        own.requests++;
        own.errors++;
      }
    }
    this.samples.offer(statusCode === undefined ? { kind, message } : { kind, statusCode, message });
  }

  /** Errors so far, for progress events. */
  get errorTotal(): number {
    return totalErrors(this.errors);
  }

  toWorkerStep(): WorkerStep {
    const windowEndUs = this.windowStartUs + this.window.windowMs * 1000;
    const toWindowMs = (us: number): number =>
      Math.min(this.window.windowMs, Math.max(0, (Math.min(us, windowEndUs) - this.windowStartUs) / 1000));
    return {
      stepIndex: this.window.stepIndex,
      load: this.window.load,
      workerLoad: this.window.workerLoad,
      windowStartEpochMs: this.window.windowStartEpochMs,
      windowMs: this.window.windowMs,
      activeFromMs: toWindowMs(this.activeFromUs),
      activeToMs: toWindowMs(this.activeToUs),
      bucketMs: this.window.windowMs / BUCKETS_PER_WINDOW,
      okPerBucket: [...this.okPerBucket],
      requests: this.requests,
      ok: this.ok,
      errors: { ...this.errors },
      errorSamples: this.samples.samples(),
      late: this.late,
      dropped: this.dropped,
      histogram: encodeHistogram(this.latencies.toHistogram()),
      maxLatencyUs: this.latencies.maxUs,
      ...(this.cut ? { cutAtSegmentEnd: true as const } : {}),
      ...(this.byPayload.length === 0
        ? {}
        : { payloads: this.byPayload.map((payload) => payload.toWorkerStep()) }),
      ...(this.timeline === undefined ? {} : { timeline: this.timeline.toWorkerBuckets() }),
    };
  }

  private bucketOf(endUs: number): number {
    return Math.min(BUCKETS_PER_WINDOW - 1, Math.floor((endUs - this.windowStartUs) / this.bucketUs));
  }

  /** The bucket of a measured start: inside the window, so never before the first. */
  private startBucketOf(startUs: number): number {
    return Math.max(0, this.bucketOf(startUs));
  }

  private countCompletion(endUs: number): void {
    if (endUs < this.activeFromUs || endUs >= this.countEndUs) return;
    const index = this.bucketOf(endUs);
    this.okPerBucket[index] = (this.okPerBucket[index] ?? 0) + 1;
    this.countedCompletions++;
    this.recentEndsUs[this.recentCount % RECENT_COMPLETIONS] = endUs;
    this.recentCount++;
  }
}
