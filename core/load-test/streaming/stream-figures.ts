import type { StreamFormat, LatencyPercentilesMs } from '../../contracts/index.js';

/**
 * What one worker measured of a streamed step (or of a part of it, with segments): histograms and
 * counts only, so that workers and segments add up exactly (streaming/merge.ts). Figures are of
 * the measured requests that succeeded, as the step's latency histogram is.
 */
export interface StreamWorkerFigures {
  readonly format: StreamFormat;
  /**
   * Base64 HdrHistogram of the time to first token, in µs, from each request's start: in the open
   * model its scheduled start, so that a request held back by a stall carries the wait in its TTFT
   * as in its latency (coordinated omission corrected).
   */
  readonly ttftHistogram: string;
  /** The exact largest TTFT recorded, in µs. */
  readonly maxTtftUs: number;
  /**
   * Base64 HdrHistogram of every gap between consecutive visible tokens, in µs (a gap of 0, tokens
   * that came in one piece, is recorded as the histogram's lowest value, 1 µs).
   */
  readonly itlHistogram: string;
  readonly maxItlUs: number;
  /**
   * Base64 HdrHistogram of each request's time per output token after the first, in µs: its first
   * to last token ÷ (output tokens − 1), the request's own decode speed (its inverse, in tokens/s).
   * Requests of fewer than two tokens have none. Absent from figures of earlier versions.
   */
  readonly tpotHistogram?: string;
  readonly maxTpotUs?: number;
  /** Output tokens of the successful requests: the server's figure where it gave one, else counted. */
  readonly outputTokens: number;
  /** How many successful requests' output tokens came from the server, and how many were counted. */
  readonly outputTokenSources: { readonly server: number; readonly counted: number };
  /** Successful requests whose stream held no visible token: they have no TTFT. */
  readonly withoutToken: number;
}

/**
 * Where a step's output token figures come from: the server's usage figures for every request,
 * the token events counted for every request (one per TGI/LMI token, one per non-empty OpenAI
 * chunk), a mix of both, or no successful request at all.
 */
export type OutputTokenSourceSummary = 'server' | 'counted' | 'mixed' | 'none';

/** A streamed step's figures merged over workers and segments. */
export interface StreamStepResult {
  readonly format: StreamFormat;
  /**
   * Time to first token; open model: from each request's scheduled start. Requests without an
   * answer count too, at what they took at least (`StreamStepRecorder.recordUnanswered`).
   */
  readonly ttftMs: LatencyPercentilesMs;
  /** Inter-token latency over every gap of every successful request. */
  readonly itlMs: LatencyPercentilesMs;
  /**
   * Time per output token, one value per request of two tokens or more (`tpotHistogram`): how fast
   * each request decoded, where ITL weighs long answers more. Null when no request had two tokens;
   * absent from results of earlier versions.
   */
  readonly tpotMs?: LatencyPercentilesMs | null;
  readonly outputTokens: number;
  /** The step's throughput × its mean output tokens per successful request. */
  readonly outputTokensPerSecond: number;
  /** Mean output tokens per successful request. */
  readonly outputTokensPerRequest: number;
  readonly outputTokenSource: OutputTokenSourceSummary;
  readonly withoutToken: number;
  /** Base64 HdrHistograms (µs) of the merged TTFT and ITL, for later merges and charts. */
  readonly ttftHistogram: string;
  readonly itlHistogram: string;
}
