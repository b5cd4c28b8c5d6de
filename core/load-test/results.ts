import type { InvokeErrorKind } from './ports.js';
import type { StreamStepResult, StreamWorkerFigures } from './streaming/stream-figures.js';
import type { LatencyPercentilesMs, LoadModel } from '../contracts/index.js';

/** Why a run stopped stepping. */
export type StopReason =
  'completed' | 'sla-breached' | 'stalled' | 'plateau' | 'deadline' | 'request-cap' | 'aborted';

/**
 * Why one worker invocation returned: a stop reason, or `segment-end` when its segment of the
 * schedule ended before the schedule did and the next invocation resumes it (engine.ts).
 */
export type WorkerStopReason = StopReason | 'segment-end';

/**
 * Where a step's endpoint stopped answering (stall.ts): at least one request outstanding and none
 * settled, for longer than a healthy endpoint is silent. A step with one does not meet the SLA.
 */
export interface StepStall {
  /** Where the silence began, ms from the start of the step's measurement window. */
  readonly atMs: number;
  /** How long no request settled, ms (it may run past the window's end). */
  readonly durationMs: number;
}

export interface ErrorCounts {
  modelError: number;
  throttled: number;
  timeout: number;
  clientError: number;
}

/** One failed invocation kept as an example (the first few per kind per step, truncated). */
export interface ErrorSample {
  readonly kind: InvokeErrorKind;
  readonly statusCode?: number;
  readonly message: string;
}

/**
 * What one worker measured in one step: everything the aggregation needs to merge workers exactly
 * (histograms add, counts add, throughput over the part of the window all workers covered).
 */
export interface WorkerStep {
  readonly stepIndex: number;
  /** The step's total load (all workers), as in the plan. */
  readonly load: number;
  /** This worker's part of it. */
  readonly workerLoad: number;
  /** Scheduled measurement window, identical for every worker of a run. */
  readonly windowStartEpochMs: number;
  readonly windowMs: number;
  /**
   * The part of the window this worker actually covered, in ms from the window start: it starts
   * later when the worker joined late, ends earlier when a request cap closed the window.
   */
  readonly activeFromMs: number;
  readonly activeToMs: number;
  /** Successful completions per bucket of the window (bucketMs each), for throughput. */
  readonly bucketMs: number;
  readonly okPerBucket: readonly number[];
  /** Requests started (closed) or scheduled (open) in the active window that settled. */
  readonly requests: number;
  readonly ok: number;
  readonly errors: ErrorCounts;
  readonly errorSamples: readonly ErrorSample[];
  /** Open model: starts issued later than lateToleranceMs after their scheduled time. */
  readonly late: number;
  /** Open model: scheduled starts that could not be issued before the request timeout. */
  readonly dropped: number;
  /**
   * Base64 HdrHistogram of latency, in µs: of successful requests, and of requests that got no
   * answer, each at what it is known to be at least: a timeout at max(elapsed, request timeout), a
   * dropped arrival at max(its wait, request timeout), a request cut short by a deadline or a
   * cancellation at its elapsed time.
   */
  readonly histogram: string;
  /** The exact largest latency recorded, in µs (the histogram knows it only to within 0.1 %). */
  readonly maxLatencyUs: number;
  /** This worker saw the endpoint stall in the step (stall.ts); absent otherwise. */
  readonly stall?: StepStall;
  /**
   * This part of the step ended with its segment, before the window did: the next segment's
   * part of the same step continues it (`mergeStepParts` adds them up). Absent otherwise.
   */
  readonly cutAtSegmentEnd?: true;
  /** Per payload of a mix, by the payload's index; absent when the run sends one payload. */
  readonly payloads?: readonly PayloadWorkerStep[];
  /** TTFT, ITL and output tokens, when the plan streams responses (loadPlan.response). */
  readonly stream?: StreamWorkerFigures;
  /**
   * A ramp step's figures per bucket of the window (`bucketMs` each, as `okPerBucket`), each
   * arrival in the bucket of its scheduled start (timeline.ts). Absent for constant steps.
   */
  readonly timeline?: readonly TimelineWorkerBucket[];
}

/**
 * One worker's arrivals scheduled in one bucket of a ramp step's window (measured ones only), and
 * what became of them: everything adds across workers and segments, histograms included.
 */
export interface TimelineWorkerBucket {
  /** Measured arrivals scheduled in the bucket: the offered load. */
  readonly offered: number;
  readonly ok: number;
  readonly errors: number;
  /** Arrivals that could not be issued before the request timeout. */
  readonly dropped: number;
  /**
   * Base64 HdrHistogram of the arrivals' latency, in µs, from the scheduled start: successful ones,
   * and those without an answer as `WorkerStep.histogram` records them.
   */
  readonly histogram: string;
  readonly maxLatencyUs: number;
}

/** One bucket of a ramp step's timeline, merged over workers (timeline.ts `mergeTimeline`). */
export interface TimelineBucket {
  /** The bucket's start, seconds from the window's (the ramp's) start. */
  readonly fromSeconds: number;
  readonly seconds: number;
  /** Arrivals scheduled in the bucket per second: the ramp's rate there. */
  readonly offeredTps: number;
  /** Successful completions in the bucket per second (by completion time, as the step's tps). */
  readonly tps: number;
  /** Of the bucket's arrivals: settled (ok or failed), failed, dropped. */
  readonly requests: number;
  readonly errors: number;
  readonly dropped: number;
  /** (errors + dropped) / (requests + dropped), as the step's. */
  readonly errorRate: number;
  /** Of the bucket's arrivals, as `StepResult.latencyMs`, from the workers' added histograms. */
  readonly latencyMs: LatencyPercentilesMs;
}

/** What one worker measured in one step for one payload of the mix (measured requests only). */
export interface PayloadWorkerStep {
  readonly requests: number;
  readonly ok: number;
  readonly errors: number;
  /** Base64 HdrHistogram of this payload's latency, in µs, recorded as the step's is. */
  readonly histogram: string;
  readonly maxLatencyUs: number;
}

/** One payload's figures in a merged step: its share of the requests and its own latency. */
export interface PayloadStepResult {
  /** The payload's index in the plan's `payloads`. */
  readonly payload: number;
  readonly requests: number;
  readonly errors: number;
  /** Of this payload's requests, timed and chosen as the step's latency is. */
  readonly latencyMs: LatencyPercentilesMs;
  /** Base64 HdrHistogram of this payload's merged latency, in µs. */
  readonly histogram: string;
}

export interface WorkerResult {
  readonly schemaVersion: 1;
  readonly workerIndex: number;
  readonly workers: number;
  readonly model: LoadModel;
  /** The shared start all workers' schedules derive from (of this segment, when segmented). */
  readonly startEpochMs: number;
  readonly finishedEpochMs: number;
  /** The segment of the schedule this invocation ran (engine.ts `LoadSegment`). @default 0 */
  readonly segmentIndex?: number;
  /** Requests this invocation took from the `maxTotalRequests` allowance, warm-ups included. */
  readonly requestsIssued?: number;
  /** The steps, or with segments the parts of steps, this invocation measured. */
  readonly steps: readonly WorkerStep[];
  readonly stoppedBecause: WorkerStopReason;
  readonly stopDetail: string;
}

/** One step of the report, merged over all workers. */
export interface StepResult {
  readonly load: number;
  readonly loadKind: 'concurrency' | 'arrival-rate';
  /** Successful responses per second over the window all workers covered. */
  readonly tps: number;
  /** (errors + dropped) / (requests + dropped). */
  readonly errorRate: number;
  /**
   * Of successful requests and of those that got no answer (at least the request timeout, see
   * `WorkerStep.histogram`); open model: from each request's scheduled start.
   */
  readonly latencyMs: LatencyPercentilesMs;
  readonly requests: number;
  readonly errors: ErrorCounts;
  readonly errorSamples: readonly ErrorSample[];
  readonly late: number;
  readonly dropped: number;
  /** Length of the window all workers covered, over which tps is computed. */
  readonly windowSeconds: number;
  readonly workers: number;
  readonly meetsSla: boolean;
  /** Human-readable, e.g. "p95 812.000 ms > SLA 500 ms". */
  readonly slaBreaches: readonly string[];
  /** Base64 HdrHistogram of the merged latency, in µs. */
  readonly histogram: string;
  /** The longest stall any worker saw in the step (stall.ts); absent when none did. */
  readonly stall?: StepStall;
  /** Per payload of a mix (by index); absent when the run sends one payload. */
  readonly payloads?: readonly PayloadStepResult[];
  /** TTFT, ITL and output tokens, merged, when the plan streams responses (loadPlan.response). */
  readonly stream?: StreamStepResult;
  /** A ramp step's figures over time, per bucket of the window; absent for constant steps. */
  readonly timeline?: readonly TimelineBucket[];
}

/** The load test's result for one candidate; JSON-serializable, part of report.json. */
export interface LoadTestResult {
  readonly schemaVersion: 1;
  readonly model: LoadModel;
  readonly workers: number;
  readonly startEpochMs: number;
  readonly finishedEpochMs: number;
  readonly steps: readonly StepResult[];
  /** Throughput of the best step that met the SLA (before any breach), null if none did. */
  readonly sustainableTps: number | null;
  /** That step's load (concurrency or requests/s). */
  readonly sustainableStep: number | null;
  /** sustainableTps >= sla.targetTps; null when the SLA names no target. */
  readonly meetsTargetTps: boolean | null;
  readonly stoppedBecause: StopReason;
  readonly stopDetail: string;
  /**
   * Knee probes (rounds.ts), in the order run: one-step tests between the last step that met the
   * SLA and the first that breached it. Absent when none ran (and in results of older runs).
   */
  readonly probes?: readonly StepResult[];
  /** Repeated measurements of the sustainable load, the original not included. */
  readonly repeats?: readonly StepResult[];
  /** The sustainable load's measurements (original and repeats), when it was measured more than once. */
  readonly spread?: MeasuredSpread;
  /** Why the rounds ended early (a round's worker started late), when they did. */
  readonly roundsNote?: string;
}

/** The lowest, median and highest of a figure over repeated measurements. */
export interface SpreadFigures {
  readonly min: number;
  readonly median: number;
  readonly max: number;
}

/** How a repeatedly measured load's figures spread: `sustainableTps` is the median TPS. */
export interface MeasuredSpread {
  /** Measurements of the load, the original included. */
  readonly n: number;
  /** Of those, how many met the SLA. */
  readonly metSla: number;
  readonly tps: SpreadFigures;
  readonly p95Ms: SpreadFigures;
}

/** Sent about once a second while a worker runs. */
export interface LoadTestProgress {
  readonly workerIndex: number;
  readonly stepIndex: number;
  readonly load: number;
  readonly phase: 'warmup' | 'measure' | 'drain';
  /** Seconds since the step's window started (negative during warm-up). */
  readonly secondsIntoWindow: number;
  readonly requests: number;
  readonly tps: number;
  readonly p95Ms: number;
  readonly errors: number;
  readonly inFlight: number;
  readonly late: number;
  readonly dropped: number;
  /** Streamed steps: time to first token and inter-token latency p95, output tokens per second. */
  readonly stream?: {
    readonly ttftP95Ms: number;
    readonly itlP95Ms: number;
    readonly outputTokensPerSecond: number;
  };
}

export function emptyErrorCounts(): ErrorCounts {
  return { modelError: 0, throttled: 0, timeout: 0, clientError: 0 };
}

export function totalErrors(errors: ErrorCounts): number {
  return errors.modelError + errors.throttled + errors.timeout + errors.clientError;
}

export function addErrorCounts(into: ErrorCounts, from: ErrorCounts): void {
  into.modelError += from.modelError;
  into.throttled += from.throttled;
  into.timeout += from.timeout;
  into.clientError += from.clientError;
}
