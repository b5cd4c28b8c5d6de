import { ErrorSampleKeeper, errorCountKey } from './error-samples.js';
import { LatencyRecorder, encodeHistogram } from './histogram.js';
import type { InvokeErrorKind } from './ports.js';
import { emptyErrorCounts, totalErrors } from './results.js';
import { SilenceTracker } from './stall.js';
import { TimelineRecorder } from './timeline.js';
import type { ErrorCounts, PayloadWorkerStep, StepStall, WorkerStep } from './results.js';

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
   * The transport's request timeout (`requestTimeoutMs`), µs: a request that timed out, or an
   * arrival dropped after waiting this long, took at least this long.
   */
  readonly requestTimeoutUs: number;
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

/** A request or arrival that got no answer, recorded at the latency it is known to have at least. */
export interface Unanswered {
  /** Its (scheduled) start and when it was given up, on the monotonic clock. */
  readonly startUs: number;
  readonly endUs: number;
  /**
   * `timeout`: the request timeout passed without an answer (or an arrival waited that long for a
   * connection), so its latency is at least the timeout; `cut`: the step was cut short (deadline,
   * cancellation), so it is known only to be at least its elapsed time.
   */
  readonly cause: 'timeout' | 'cut';
}

/**
 * Everything one worker measures in one step. The recording path (`recordOk`) is the hot path of
 * the engine: a latency record, two comparisons and a bucket increment, no allocation.
 */
export class StepRecorder {
  /** Latencies of successful measured requests (the progress events' p95 is theirs). */
  readonly latencies = new LatencyRecorder();
  readonly errors: ErrorCounts = emptyErrorCounts();
  /** Stretches without an answer while requests were outstanding. */
  readonly silence: SilenceTracker;
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
  /** Latencies of measured requests that got no answer (`Unanswered`); made at the first. */
  private unanswered: LatencyRecorder | undefined;

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
    this.silence = new SilenceTracker(this);
  }

  /** A measured start was admitted at `startUs` (its scheduled time): the offered load. */
  offer(startUs: number): void {
    this.measuredStarts++;
    this.timeline?.offer(this.startBucketOf(startUs));
  }

  /**
   * A measured arrival scheduled at `startUs` was dropped at `endUs`: it waited past the request
   * timeout for a connection (`timeout`), or the step was cut short while it waited (`cut`).
   */
  recordDropped(startUs: number, endUs: number, cause: Unanswered['cause']): void {
    this.dropped++;
    this.timeline?.drop(this.startBucketOf(startUs));
    this.recordUnanswered({ startUs, endUs, cause });
  }

  /**
   * The latency of a measured request that got no answer (its error is counted by `recordError`):
   * in the step's histogram, its payload's and its timeline bucket's, at what it is at least.
   * Leaving it out would let a stuck request lower the percentiles it should raise. Returns the
   * latency recorded.
   */
  recordUnanswered(request: Unanswered, payload?: number): number {
    const elapsedUs = request.endUs - request.startUs;
    const latencyUs =
      request.cause === 'timeout' ? Math.max(elapsedUs, this.window.requestTimeoutUs) : elapsedUs;
    this.unanswered ??= new LatencyRecorder();
    this.unanswered.record(latencyUs);
    this.timeline?.latency(this.startBucketOf(request.startUs), latencyUs);
    if (payload !== undefined) this.byPayload[payload]?.latencies.record(latencyUs);
    return latencyUs;
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
    const histogram = this.latencies.toHistogram();
    if (this.unanswered !== undefined) histogram.add(this.unanswered.toHistogram());
    const stall = this.stall(toWindowMs);
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
      histogram: encodeHistogram(histogram),
      maxLatencyUs: Math.max(this.latencies.maxUs, this.unanswered?.maxUs ?? 0),
      ...(stall === undefined ? {} : { stall }),
      ...(this.cut ? { cutAtSegmentEnd: true as const } : {}),
      ...(this.byPayload.length === 0
        ? {}
        : { payloads: this.byPayload.map((payload) => payload.toWorkerStep()) }),
      ...(this.timeline === undefined ? {} : { timeline: this.timeline.toWorkerBuckets() }),
    };
  }

  /** The step's longest silence, when long enough to be a stall (stall.ts). */
  private stall(toWindowMs: (us: number) => number): StepStall | undefined {
    const silence = this.silence.stall(this.window.requestTimeoutUs);
    if (silence === undefined) return undefined;
    return {
      atMs: Math.round(toWindowMs(silence.fromUs)),
      durationMs: Math.round((silence.toUs - silence.fromUs) / 1000),
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
