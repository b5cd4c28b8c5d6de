import type { StepStall } from './results.js';

/**
 * Stalls: stretches of a step in which the endpoint stopped answering. A closed model hides one:
 * its users wait on the stuck requests and send nothing else, so the stretch adds a handful of
 * samples (or none, until they time out) to the histogram and the error rate, and the step can
 * still look met. The open model's arrivals go on and time the stretch, but a stretch as long as
 * the request timeout ends in timeouts and dropped arrivals, whose cause the figures do not name.
 * So each worker watches for silence: time during which at least one request was outstanding and
 * none settled (no answer of any kind, success or error). It looks at requests in flight, never at
 * requests sent, so a closed model that sends less cannot hide a stall from it.
 *
 * Any silence is explained by the latency of the requests outstanding at its start (each settles
 * at or after its end), so on a healthy endpoint it is never longer than its slow requests. A
 * silence is a stall when it lasts at least `stallThresholdUs`:
 * - STALL_MIN_SILENCE_MS (5 s) at least: longer than the pauses a healthy server or the network
 *   has (a garbage collection, a scheduling hiccup, a retransmission: well under a second or two);
 * - STALL_MEDIAN_MULTIPLE (20) × the median latency of the step's successful requests at least:
 *   a model whose requests take seconds (generation) is silent for as long between answers at low
 *   concurrency, and a tail of 20 × the median is beyond what ordinary noise makes; the median is
 *   the statistic the stuck requests move least (they are few, or they are not successes);
 * - the request timeout at most: no healthy request is outstanding that long, it would time out.
 * A silence counts from the measured window's start at the earliest (a stall that began in the
 * warm-up is this step's too) and must begin before the window's end; it runs until the first
 * answer, which may come after the window (the step waits for its requests to settle).
 */
export const STALL_MIN_SILENCE_MS = 5000;
export const STALL_MEDIAN_MULTIPLE = 20;

/** How long a silence must last to be a stall, given the step's median successful latency. */
export function stallThresholdUs(medianOkLatencyUs: number, requestTimeoutUs: number): number {
  return Math.min(
    requestTimeoutUs,
    Math.max(STALL_MIN_SILENCE_MS * 1000, STALL_MEDIAN_MULTIPLE * medianOkLatencyUs),
  );
}

/** A stretch without any answer, on the monotonic clock. */
export interface Silence {
  readonly fromUs: number;
  readonly toUs: number;
}

/**
 * The longest silence of a step inside its measured window. `sent` is told of every request as it
 * leaves, with the requests in flight before it; `answered` of every settled request, with those
 * still in flight after it. Two comparisons per request; nothing allocated but the longest.
 */
export class SilenceTracker {
  /** Start of the current silence; NaN while nothing is outstanding. */
  private quietSinceUs = Number.NaN;
  private longest: Silence | undefined;

  constructor(private readonly window: { readonly activeFromUs: number; readonly activeToUs: number }) {}

  sent(atUs: number, inFlightBefore: number): void {
    if (inFlightBefore === 0) this.quietSinceUs = atUs;
  }

  answered(atUs: number, inFlightAfter: number): void {
    const since = this.quietSinceUs;
    this.quietSinceUs = inFlightAfter > 0 ? atUs : Number.NaN;
    if (Number.isNaN(since)) return;
    const fromUs = Math.max(since, this.window.activeFromUs);
    if (fromUs >= this.window.activeToUs || atUs <= fromUs) return;
    if (this.longest === undefined || atUs - fromUs > this.longest.toUs - this.longest.fromUs) {
      this.longest = { fromUs, toUs: atUs };
    }
  }

  /**
   * The longest silence that began inside the window as it finally is (a request cap may have
   * closed it early, after the silence was kept: a silence from after the close is left out).
   */
  longestSilence(): Silence | undefined {
    const longest = this.longest;
    if (longest === undefined || longest.fromUs >= this.window.activeToUs) return undefined;
    return longest;
  }
}

/** Of parts of one step (workers, segments), the longest stall; nothing when none stalled. */
export function longestStall(stalls: readonly (StepStall | undefined)[]): StepStall | undefined {
  let longest: StepStall | undefined;
  for (const stall of stalls) {
    if (stall !== undefined && (longest === undefined || stall.durationMs > longest.durationMs)) {
      longest = stall;
    }
  }
  return longest;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** "no answer for 17.0 s from 1.0 s into the window while requests were outstanding" */
export function describeStall(stall: StepStall): string {
  return `endpoint stalled: no answer for ${seconds(stall.durationMs)} from ${seconds(stall.atMs)} into the window while requests were outstanding`;
}

/** "endpoint stalled at 1.0 s into step 3 (2 in flight) for 17.0 s" */
export function describeStallAt(stall: StepStall, where: string): string {
  return `endpoint stalled at ${seconds(stall.atMs)} into ${where} for ${seconds(stall.durationMs)}`;
}
