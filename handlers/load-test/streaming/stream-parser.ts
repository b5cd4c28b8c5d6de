import { LineDecoder, MAX_EVENT_CHARS, SseDecoder } from './framing.js';
import type { DecodedLines } from './framing.js';
import { FORMAT_LABELS } from './json-event.js';
import { interpretLmiEvent } from './lmi-stream.js';
import { interpretOpenAiEvent } from './openai-stream.js';
import type { StreamEvent } from './stream-events.js';
import { interpretTgiEvent } from './tgi-stream.js';
import type { StreamFormat } from '../../contracts/stream-format.js';

/**
 * Reads one streamed response, chunk by chunk, as the bytes arrive. Contract:
 * - `push` takes the bytes of one payload part (cut anywhere) and returns the events they complete,
 *   in order; `end` is called once the body ended normally and returns the rest, closed by a
 *   `truncated` failure when the format's terminal event never came;
 * - neither throws: whatever the bytes, the outcome is an event, so the request keeps the figures
 *   it measured before the problem;
 * - after the first `failure` event the parser returns nothing more: the request has failed, and
 *   what follows a broken event cannot be trusted.
 * One parser per request: it keeps the unfinished tail of the previous chunk.
 */
export interface StreamParser {
  readonly format: StreamFormat;
  push(chunk: Uint8Array): readonly StreamEvent[];
  end(): readonly StreamEvent[];
}

/** What ends each format's stream, for the `truncated` message. */
const TERMINAL_EVENTS: Readonly<Record<StreamFormat, string>> = {
  openai: '"data: [DONE]" or a chunk with a finish_reason',
  tgi: 'an event with "generated_text"',
  'lmi-jsonlines': 'a line with "generated_text"',
  'lmi-sse': 'an event with "generated_text"',
};

export function createStreamParser(
  format: StreamFormat,
  maxEventChars: number = MAX_EVENT_CHARS,
): StreamParser {
  switch (format) {
    case 'openai':
      return new FramedStreamParser(format, 'sse', interpretOpenAiEvent, maxEventChars);
    case 'tgi':
      return new FramedStreamParser(format, 'sse', interpretTgiEvent, maxEventChars);
    case 'lmi-jsonlines':
    case 'lmi-sse':
      return new FramedStreamParser(
        format,
        format === 'lmi-sse' ? 'data-lines' : 'lines',
        (data) => interpretLmiEvent(format, data),
        maxEventChars,
      );
  }
}

type Interpret = (data: string) => readonly StreamEvent[];

/**
 * How a format's events are framed:
 * - `sse`: Server-Sent Events, an event per blank line (framing.ts);
 * - `lines`: JSON Lines, a non-blank line per event;
 * - `data-lines`: SSE whose every `data:` line is a whole event (LMI's sse formatter, whose
 *   documented output has no blank lines between events: waiting for one would stamp every token
 *   with the end of the body); comment and other field lines are skipped.
 */
type Framing = 'sse' | 'lines' | 'data-lines';

/** Lines or SSE events, each handed to the format's interpreter; terminal and failure tracked here. */
class FramedStreamParser implements StreamParser {
  private readonly lines: LineDecoder;
  private readonly sse: SseDecoder | undefined;
  private stopped = false;
  private done = false;

  constructor(
    readonly format: StreamFormat,
    private readonly framing: Framing,
    private readonly interpret: Interpret,
    maxEventChars: number,
  ) {
    this.lines = new LineDecoder(maxEventChars);
    this.sse = framing === 'sse' ? new SseDecoder(maxEventChars) : undefined;
  }

  push(chunk: Uint8Array): readonly StreamEvent[] {
    if (this.stopped) return [];
    return this.take(this.lines.push(chunk), false);
  }

  end(): readonly StreamEvent[] {
    if (this.stopped) return [];
    const events = [...this.take(this.lines.end(), true)];
    const failed = events.some((event) => event.kind === 'failure');
    if (!failed && !this.done) {
      events.push({
        kind: 'failure',
        failure: {
          reason: 'truncated',
          message:
            `the ${FORMAT_LABELS[this.format]} stream ended without its terminal event ` +
            `(${TERMINAL_EVENTS[this.format]}): the container closed the response before finishing`,
        },
      });
    }
    this.stopped = true;
    return events;
  }

  private take(decoded: DecodedLines, last: boolean): readonly StreamEvent[] {
    let payloads: readonly string[];
    let problem = decoded.problem;
    if (this.sse !== undefined) {
      const events = this.sse.push(decoded.lines);
      problem ??= events.problem;
      payloads = problem === undefined && last ? [...events.events, ...this.sse.end()] : events.events;
    } else if (this.framing === 'data-lines') {
      payloads = decoded.lines.flatMap((line) =>
        line.startsWith('data:') ? [line.slice(5).trimStart()] : [],
      );
    } else {
      payloads = decoded.lines.filter((line) => line.trim() !== '');
    }
    const out: StreamEvent[] = [];
    for (const payload of payloads) {
      for (const event of this.interpret(payload)) {
        if (event.kind === 'done') {
          if (this.done) continue;
          this.done = true;
        }
        out.push(event);
        if (event.kind === 'failure') {
          this.stopped = true;
          return out;
        }
      }
    }
    if (problem !== undefined) {
      this.stopped = true;
      out.push({
        kind: 'failure',
        failure: {
          reason: 'malformed',
          message: `unreadable ${FORMAT_LABELS[this.format]} stream: ${problem}`,
        },
      });
    }
    return out;
  }
}
