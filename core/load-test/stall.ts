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
 * - STALL_INTERVAL_MULTIPLE (20) × the step's mean interval between answers at least (from its
 *   first request to its last answer, over its answers; timeouts are no answers): one user of a
 *   model whose requests take seconds (generation) waits that long between answers, and 20 such
 *   intervals without any is beyond what ordinary noise makes. A stall moves this mean little: it
 *   adds its length but no answer, so the mean stays the healthy part's unless the stall takes
 *   nearly all of the step; with no answer at all, the floor alone applies. (A latency statistic
 *   would not do: the open model times the arrivals a stall held from their schedule, so a long
 *   stall becomes the step's typical latency itself.)
 * - the request timeout at most: no healthy request is outstanding that long, it would time out.
 * A silence is the step's when it reaches into the measured window (one that began in the warm-up
 * counts, and is judged on its whole length) and began before the window's end; it runs until the
 * first answer, which may come after the window (the step waits for its requests to settle). A
 * timeout does not end it: a request that timed out got no answer either.
 */
export const STALL_MIN_SILENCE_MS = 5000;
export const STALL_INTERVAL_MULTIPLE = 20;

/**
 * How long a silence must last to be a stall, given the step's mean interval between answers (its
 * 0 when nothing answered) and the request timeout, both µs.
 */
export function stallThresholdUs(meanAnswerIntervalUs: number, requestTimeoutUs: number): number {
  return Math.min(
    requestTimeoutUs,
    Math.max(STALL_MIN_SILENCE_MS * 1000, STALL_INTERVAL_MULTIPLE * meanAnswerIntervalUs),
  );
}

/** A stretch without any answer while requests were outstanding, on the monotonic clock. */
export interface Silence {
  /** Where it began, perhaps in the warm-up. */
  readonly sinceUs: number;
  /** Where it began in the measured window: `sinceUs`, or the window's start if later. */
  readonly fromUs: number;
  readonly toUs: number;
}

/**
 * The longest silence of a step that touched its measured window. `sent` is told of every request
 * as it leaves, with the requests in flight before it; `settled` of every settled request, with
 * those still in flight after it and whether it was an answer (a success or an error response) or
 * not (a timeout, a request cut short). Only an answer ends a silence, or nothing being
 * outstanding any more. A few comparisons per request; nothing allocated but the longest.
 */
export class SilenceTracker {
  /** Start of the current silence; NaN while nothing is outstanding. */
  private quietSinceUs = Number.NaN;
  private longest: Silence | undefined;
  /** The step's first request and last answer, and its answers, for the mean interval. */
  private firstSentUs = Number.NaN;
  private lastAnswerUs = Number.NaN;
  private answers = 0;

  constructor(private readonly window: { readonly activeFromUs: number; readonly activeToUs: number }) {}

  sent(atUs: number, inFlightBefore: number): void {
    if (Number.isNaN(this.firstSentUs)) this.firstSentUs = atUs;
    if (inFlightBefore === 0 && Number.isNaN(this.quietSinceUs)) this.quietSinceUs = atUs;
  }

  settled(atUs: number, inFlightAfter: number, answer: boolean): void {
    if (answer) {
      this.answers++;
      this.lastAnswerUs = atUs;
    } else if (inFlightAfter > 0) {
      return;
    }
    const sinceUs = this.quietSinceUs;
    this.quietSinceUs = inFlightAfter > 0 ? atUs : Number.NaN;
    if (Number.isNaN(sinceUs) || atUs <= this.window.activeFromUs) return;
    const fromUs = Math.max(sinceUs, this.window.activeFromUs);
    if (fromUs >= this.window.activeToUs) return;
    if (this.longest === undefined || atUs - sinceUs > this.longest.toUs - this.longest.sinceUs) {
      this.longest = { sinceUs, fromUs, toUs: atUs };
    }
  }

  /**
   * From the step's first request to its last answer, over its answers (warm-up and drain
   * included: the same load); 0 when nothing answered, which leaves the floor as the threshold.
   */
  meanAnswerIntervalUs(): number {
    return this.answers === 0 ? 0 : (this.lastAnswerUs - this.firstSentUs) / this.answers;
  }

  /** The longest silence if it is a stall (`stallThresholdUs`), judged on its whole length. */
  stall(requestTimeoutUs: number): Silence | undefined {
    const silence = this.longestSilence();
    if (silence === undefined) return undefined;
    const thresholdUs = stallThresholdUs(this.meanAnswerIntervalUs(), requestTimeoutUs);
    return silence.toUs - silence.sinceUs >= thresholdUs ? silence : undefined;
  }

  /**
   * The longest silence that touched the window as it finally is (a request cap may have closed
   * it early, after the silence was kept: a silence from after the close is left out).
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
