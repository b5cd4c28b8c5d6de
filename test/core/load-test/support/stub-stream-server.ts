import type { Clock, InvokeOutcome, InvokeRequest } from '../../../../core/load-test/ports.js';
import type { StreamInvokeTransport } from '../../../../core/load-test/streaming/stream-transport.js';

export interface TokenScript {
  /** From the start of serving to the first token. */
  readonly ttftUs: number;
  /** Between consecutive tokens. */
  readonly gapUs: number;
  readonly tokens: number;
  /** The last event carries TGI's `details.generated_tokens` (the server's count). @default true */
  readonly reportsCount?: boolean;
  /** An error event replaces the token of this index (from 0): the stream fails there. */
  readonly errorAtToken?: number;
}

const encoder = new TextEncoder();

function tgiEvent(index: number, script: TokenScript): string {
  if (index === script.errorAtToken) {
    return 'data:{"error":"CUDA error: out of memory","error_type":"generation"}\n\n';
  }
  const last = index === script.tokens - 1;
  return `data:${JSON.stringify({
    token: { id: index, text: ` t${index}`, logprob: -0.1, special: false },
    generated_text: last ? 'text' : null,
    details:
      last && script.reportsCount !== false
        ? { finish_reason: 'length', generated_tokens: script.tokens }
        : null,
  })}\n\n`;
}

/**
 * A TGI streaming server with `slots` sequences served at once, first come first served: each
 * request holds a slot from its start of serving until its last token, sent as one piece per
 * token (`ttftUs` after the start, then every `gapUs`). Like `SlotServer`, a slot is free again on
 * the server's own schedule, so a late timer never lowers the capacity.
 */
export class TokenStreamServer implements StreamInvokeTransport {
  private readonly freeAtUs: number[];

  constructor(
    private readonly clock: Clock,
    slots: number,
    private readonly script: TokenScript,
  ) {
    this.freeAtUs = new Array<number>(slots).fill(0);
  }

  async invokeStream(
    _request: InvokeRequest,
    signal: AbortSignal,
    onPart: (bytes: Uint8Array) => void,
  ): Promise<InvokeOutcome> {
    let slot = 0;
    for (let index = 1; index < this.freeAtUs.length; index++) {
      if ((this.freeAtUs[index] ?? 0) < (this.freeAtUs[slot] ?? 0)) slot = index;
    }
    const startUs = Math.max(this.clock.nowUs(), this.freeAtUs[slot] ?? 0);
    const { ttftUs, gapUs, tokens, errorAtToken } = this.script;
    const sent = errorAtToken === undefined ? tokens : Math.min(tokens, errorAtToken + 1);
    this.freeAtUs[slot] = startUs + ttftUs + (sent - 1) * gapUs;
    for (let index = 0; index < sent; index++) {
      await this.clock.sleepUntil(startUs + ttftUs + index * gapUs, signal);
      if (signal.aborted) return { kind: 'timeout', message: 'aborted' };
      onPart(encoder.encode(tgiEvent(index, this.script)));
    }
    return { kind: 'ok' };
  }
}
