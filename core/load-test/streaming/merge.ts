import { LoadTestAbortedError } from '../../contracts/index.js';
import {
  encodeHistogram,
  type LatencyHistogram,
  latencyPercentilesMs,
  mergeEncodedHistograms,
} from '../histogram.js';
import type { WorkerStep } from '../results.js';
import type { OutputTokenSourceSummary, StreamStepResult, StreamWorkerFigures } from './stream-figures.js';

function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

interface AddedStreamFigures {
  readonly figures: StreamWorkerFigures;
  readonly ttft: LatencyHistogram;
  readonly itl: LatencyHistogram;
  /** Undefined when a part's figures predate it: a TPOT of some parts only would mislead. */
  readonly tpot: LatencyHistogram | undefined;
}

/**
 * The streamed figures of parts of one step (workers' steps, or one worker's segments) added up:
 * histograms by HdrHistogram addition, counts by sum, maxima by max. Undefined when no part
 * streamed; parts read with different formats come from different runs and are refused.
 */
export function addStreamFigures(parts: readonly WorkerStep[]): AddedStreamFigures | undefined {
  const streamed = parts.flatMap((part) => (part.stream === undefined ? [] : [part.stream]));
  const first = streamed[0];
  if (first === undefined) return undefined;
  if (streamed.length !== parts.length || streamed.some((figures) => figures.format !== first.format)) {
    throw new LoadTestAbortedError(
      `cannot merge streamed figures of different runs: expected every part of step ${parts[0]?.stepIndex ?? '?'} read as '${first.format}', got [${parts.map((part) => part.stream?.format ?? 'not streamed').join(', ')}]`,
    );
  }
  const sum = (value: (figures: StreamWorkerFigures) => number): number =>
    streamed.reduce((total, figures) => total + value(figures), 0);
  const ttft = mergeEncodedHistograms(streamed.map((figures) => figures.ttftHistogram));
  const itl = mergeEncodedHistograms(streamed.map((figures) => figures.itlHistogram));
  const tpotParts = streamed.flatMap((figures) =>
    figures.tpotHistogram === undefined || figures.maxTpotUs === undefined
      ? []
      : [{ histogram: figures.tpotHistogram, maxUs: figures.maxTpotUs }],
  );
  const tpot =
    tpotParts.length === streamed.length
      ? mergeEncodedHistograms(tpotParts.map((part) => part.histogram))
      : undefined;
  return {
    ttft,
    itl,
    tpot,
    figures: {
      format: first.format,
      ttftHistogram: encodeHistogram(ttft),
      maxTtftUs: Math.max(...streamed.map((figures) => figures.maxTtftUs)),
      itlHistogram: encodeHistogram(itl),
      maxItlUs: Math.max(...streamed.map((figures) => figures.maxItlUs)),
      ...(tpot === undefined
        ? {}
        : {
            tpotHistogram: encodeHistogram(tpot),
            maxTpotUs: Math.max(...tpotParts.map((part) => part.maxUs)),
          }),
      outputTokens: sum((figures) => figures.outputTokens),
      outputTokenSources: {
        server: sum((figures) => figures.outputTokenSources.server),
        counted: sum((figures) => figures.outputTokenSources.counted),
      },
      withoutToken: sum((figures) => figures.withoutToken),
    },
  };
}

/** The parts' streamed figures as one part's (segments.ts `mergeStepParts`); nothing if not streamed. */
export function streamOfParts(parts: readonly WorkerStep[]): Pick<WorkerStep, 'stream'> {
  const added = addStreamFigures(parts);
  return added === undefined ? {} : { stream: added.figures };
}

function sourceOf(sources: StreamWorkerFigures['outputTokenSources']): OutputTokenSourceSummary {
  if (sources.server > 0) return sources.counted > 0 ? 'mixed' : 'server';
  return sources.counted > 0 ? 'counted' : 'none';
}

/**
 * A streamed step over all workers: TTFT and ITL percentiles from the merged histograms only
 * (never averaged), output tokens added, and output tokens per second as the step's throughput
 * (`tps`, merged as for any step) × the mean output tokens per successful request, so it merges as
 * exactly as its two factors do. Undefined when the step was not streamed.
 */
export function mergeStreamStep(parts: readonly WorkerStep[], tps: number): StreamStepResult | undefined {
  const added = addStreamFigures(parts);
  if (added === undefined) return undefined;
  const { figures } = added;
  const recorded = figures.outputTokenSources.server + figures.outputTokenSources.counted;
  const perRequest = recorded === 0 ? 0 : figures.outputTokens / recorded;
  return {
    format: figures.format,
    ttftMs: latencyPercentilesMs(added.ttft, figures.maxTtftUs),
    itlMs: latencyPercentilesMs(added.itl, figures.maxItlUs),
    tpotMs:
      added.tpot === undefined || added.tpot.totalCount === 0
        ? null
        : latencyPercentilesMs(added.tpot, figures.maxTpotUs),
    outputTokens: figures.outputTokens,
    outputTokensPerSecond: round(tps * perRequest, 3),
    outputTokensPerRequest: round(perRequest, 3),
    outputTokenSource: sourceOf(figures.outputTokenSources),
    withoutToken: figures.withoutToken,
    ttftHistogram: figures.ttftHistogram,
    itlHistogram: figures.itlHistogram,
  };
}
