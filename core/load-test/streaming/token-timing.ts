import type { StreamEvent } from './stream-events.js';

/** Where a request's output token count came from. */
export type OutputTokenSource = 'server' | 'counted';

/** One streamed request's timing, in microseconds on the engine's monotonic clock (`Clock.nowUs`). */
export interface RequestTokenTiming {
  /** From the request's start to the end of its stream, or to its failure. */
  readonly e2eUs: number;
  /** Time to first token: from the start to the first visible token; absent when none came. */
  readonly ttftUs?: number;
  /**
   * Inter-token latency: the gap before each visible token after the first, in arrival order. Tokens
   * that arrive in one payload part share its arrival time, so their gaps are 0: the network or the
   * container delivered them together, and that is what a client sees.
   */
  readonly interTokenUs: readonly number[];
  /** The server's count when it reported one (`usage`, `details.generated_tokens`), else counted. */
  readonly outputTokens: number;
  readonly outputTokenSource: OutputTokenSource;
  /** Token events read: one per token for TGI and LMI, one per non-empty chunk for OpenAI streams. */
  readonly countedTokens: number;
  readonly inputTokens?: number;
  readonly finishReason?: string;
}

/**
 * Turns a request's stream events, stamped with their arrival time, into its token timing.
 * A visible token is one with text that is not flagged special: whitespace counts (the server
 * generated it and a client shows it), an empty text or an end-of-sequence token does not. TTFT and
 * inter-token gaps are measured between visible tokens (as vLLM's serving benchmark does between
 * chunks that carry text); every token event counts towards the counted output tokens.
 */
export class TokenTimingRecorder {
  private firstVisibleUs: number | undefined;
  private lastVisibleUs: number | undefined;
  private readonly gaps: number[] = [];
  private counted = 0;
  private serverOutputTokens: number | undefined;
  private inputTokens: number | undefined;
  private finishReason: string | undefined;

  constructor(private readonly startUs: number) {}

  record(atUs: number, event: StreamEvent): void {
    switch (event.kind) {
      case 'token':
        this.recordToken(atUs, event.text !== '' && !event.special);
        return;
      case 'usage':
        this.serverOutputTokens = event.outputTokens;
        if (event.inputTokens !== undefined) this.inputTokens = event.inputTokens;
        return;
      case 'done':
        if (event.finishReason !== undefined) this.finishReason = event.finishReason;
        return;
      case 'failure':
        return;
    }
  }

  /** One token event, without the event: `visible` when its text is not empty and not special. */
  recordToken(atUs: number, visible: boolean): void {
    this.counted++;
    if (!visible) return;
    if (this.lastVisibleUs === undefined) this.firstVisibleUs = atUs;
    else this.gaps.push(atUs - this.lastVisibleUs);
    this.lastVisibleUs = atUs;
  }

  finish(atUs: number): RequestTokenTiming {
    const server = this.serverOutputTokens;
    return {
      e2eUs: atUs - this.startUs,
      ...(this.firstVisibleUs === undefined ? {} : { ttftUs: this.firstVisibleUs - this.startUs }),
      interTokenUs: [...this.gaps],
      outputTokens: server ?? this.counted,
      outputTokenSource: server === undefined ? 'counted' : 'server',
      countedTokens: this.counted,
      ...(this.inputTokens === undefined ? {} : { inputTokens: this.inputTokens }),
      ...(this.finishReason === undefined ? {} : { finishReason: this.finishReason }),
    };
  }
}
