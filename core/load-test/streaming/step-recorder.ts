import { LatencyRecorder, encodeHistogram } from '../histogram.js';
import type { InvokeOutcome, InvokeTransport, Clock } from '../ports.js';
import type { StreamWorkerFigures } from './stream-figures.js';
import { createStreamParser } from './stream-parser.js';
import { invokeStreamed } from './stream-transport.js';
import type { StreamInvokeTransport } from './stream-transport.js';
import type { RequestTokenTiming } from './token-timing.js';
import type { StreamFormat } from '../../contracts/index.js';

/** A streamed request's timing, with the instant it was sent (monotonic µs). */
export interface StreamedTiming {
  readonly sentUs: number;
  readonly timing: RequestTokenTiming;
}

/** An invocation's outcome as the streaming invoker gives it: with the request's token timing. */
export type StreamedOutcome = InvokeOutcome & { readonly streamed?: StreamedTiming };

/**
 * The engine's `InvokeTransport` in streaming mode: each invocation goes through the stream
 * transport with a fresh parser of the plan's format (a parser keeps the unfinished tail of the
 * previous piece, so it serves one request), and its outcome carries the token timing, which the
 * step driver hands to the step's `StreamStepRecorder` with the request's start. The load models
 * and the step recorder stay as they are: end-to-end latency is the engine's own, from the
 * (scheduled) start to the stream's end.
 */
export function createStreamingInvoker(
  transport: StreamInvokeTransport,
  format: StreamFormat,
  clock: Clock,
): InvokeTransport {
  return {
    invoke: async (request, signal): Promise<StreamedOutcome> => {
      const sentUs = clock.nowUs();
      const { outcome, timing } = await invokeStreamed(
        transport,
        request,
        signal,
        createStreamParser(format),
        clock,
      );
      return { ...outcome, streamed: { sentUs, timing } };
    },
  };
}

/**
 * What one worker measures of one streamed step, beside its `StepRecorder`: for each measured
 * request that succeeded, the time to first token from the request's start (the scheduled start in
 * the open model: `sentUs − startUs` is the time the request waited to be sent, added as the
 * engine adds it to latency), each inter-token gap, and its output tokens; for each measured
 * request without an answer, its time to first token (`recordUnanswered`).
 */
export class StreamStepRecorder {
  private readonly ttft = new LatencyRecorder();
  private readonly itl = new LatencyRecorder();
  private readonly tpot = new LatencyRecorder();
  private outputTokens = 0;
  private fromServer = 0;
  private counted = 0;
  private withoutToken = 0;

  constructor(readonly format: StreamFormat) {}

  /** One measured request; `startUs` as the step recorder times it. Failed requests are not kept. */
  record(startUs: number, outcome: StreamedOutcome): void {
    const streamed = outcome.streamed;
    if (outcome.kind !== 'ok' || streamed === undefined) return;
    const { timing } = streamed;
    if (timing.ttftUs === undefined) this.withoutToken++;
    else this.ttft.record(streamed.sentUs + timing.ttftUs - startUs);
    let decodeUs = 0;
    for (const gap of timing.interTokenUs) {
      this.itl.record(gap);
      decodeUs += gap;
    }
    // The server's count spreads a piece of several tokens (speculative decoding) over its tokens.
    if (timing.outputTokens >= 2 && timing.interTokenUs.length > 0) {
      this.tpot.record(decodeUs / (timing.outputTokens - 1));
    }
    this.outputTokens += timing.outputTokens;
    if (timing.outputTokenSource === 'server') this.fromServer++;
    else this.counted++;
  }

  /**
   * A measured request that got no answer (a timeout, or cut short: step-recorder.ts
   * `Unanswered`), `latencyUs` as the step recorded it. Its TTFT is kept too: the measured one when
   * a token came, else the latency, which its first token would have taken at least. Leaving it
   * out would let a server that stopped streaming lower the TTFT percentiles.
   */
  recordUnanswered(startUs: number, latencyUs: number, outcome: StreamedOutcome): void {
    const streamed = outcome.streamed;
    const ttftUs = streamed?.timing.ttftUs;
    this.ttft.record(
      streamed === undefined || ttftUs === undefined ? latencyUs : streamed.sentUs + ttftUs - startUs,
    );
  }

  /** The figures so far, for progress events: p95s in µs and the output tokens counted. */
  live(): { readonly ttftP95Us: number; readonly itlP95Us: number; readonly outputTokens: number } {
    return {
      ttftP95Us: this.ttft.valueAtPercentileUs(95),
      itlP95Us: this.itl.valueAtPercentileUs(95),
      outputTokens: this.outputTokens,
    };
  }

  toFigures(): StreamWorkerFigures {
    return {
      format: this.format,
      ttftHistogram: encodeHistogram(this.ttft.toHistogram()),
      maxTtftUs: this.ttft.maxUs,
      itlHistogram: encodeHistogram(this.itl.toHistogram()),
      maxItlUs: this.itl.maxUs,
      tpotHistogram: encodeHistogram(this.tpot.toHistogram()),
      maxTpotUs: this.tpot.maxUs,
      outputTokens: this.outputTokens,
      outputTokenSources: { server: this.fromServer, counted: this.counted },
      withoutToken: this.withoutToken,
    };
  }
}
