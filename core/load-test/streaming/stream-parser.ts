import { LineDecoder, MAX_EVENT_CHARS, SseDecoder } from './framing.js';
import type { DecodedLines } from './framing.js';
import { FORMAT_LABELS } from './json-event.js';
import { interpretLmiEvent } from './lmi-stream.js';
import { interpretOpenAiEvent } from './openai-stream.js';
import type { StreamFormat } from '../../contracts/index.js';
import type { StreamEvent } from './stream-events.js';
import { ByteFramer } from './byte-framing.js';
import type { Framing, PayloadReader } from './byte-framing.js';
import { interpretTgiEvent } from './tgi-stream.js';
import { createTokenScan } from './token-scan.js';
import type { TokenScan, TokenSink } from './token-scan.js';

/**
 * Reads one streamed response, chunk by chunk, as the bytes arrive. Contract:
 * - `push` takes the bytes of one payload part (cut anywhere) and returns the events they complete,
 *   in order; `end` is called once the body ended normally and returns the rest, closed by a
 *   `truncated` failure when the format's terminal event never came;
 * - `read` and `finish` are `push` and `end` handing the events to a sink instead: a plain token
 *   event goes to `sink.token` as the bytes of its text, without an event object or a
 *   `JSON.parse` (token-scan.ts), every other event to `sink.event`;
 * - none throws: whatever the bytes, the outcome is an event, so the request keeps the figures
 *   it measured before the problem;
 * - after the first `failure` event the parser returns nothing more: the request has failed, and
 *   what follows a broken event cannot be trusted.
 * One parser per request: it keeps the unfinished tail of the previous chunk.
 */
export interface StreamParser {
  readonly format: StreamFormat;
  push(chunk: Uint8Array): readonly StreamEvent[];
  end(): readonly StreamEvent[];
  read(chunk: Uint8Array, sink: StreamEventSink): void;
  finish(sink: StreamEventSink): void;
}

/** Where `read` hands what it reads: tokens as bytes (`TokenSink`), every other event as itself. */
export interface StreamEventSink extends TokenSink {
  event(event: StreamEvent): void;
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
  return new ScanningStreamParser(format, framingOf(format), interpreterOf(format), maxEventChars);
}

/**
 * The parser on decoded text (framing.ts's string decoders, `JSON.parse` per event): what the
 * scanning parser reads a stream with byte order mark with, and the reference its events match.
 */
export function createFramedStreamParser(
  format: StreamFormat,
  maxEventChars: number = MAX_EVENT_CHARS,
): StreamParser {
  return new FramedStreamParser(format, framingOf(format), interpreterOf(format), maxEventChars);
}

function framingOf(format: StreamFormat): Framing {
  if (format === 'lmi-jsonlines') return 'lines';
  return format === 'lmi-sse' ? 'data-lines' : 'sse';
}

function interpreterOf(format: StreamFormat): Interpret {
  switch (format) {
    case 'openai':
      return interpretOpenAiEvent;
    case 'tgi':
      return interpretTgiEvent;
    case 'lmi-jsonlines':
    case 'lmi-sse':
      return (data) => interpretLmiEvent(format, data);
  }
}

type Interpret = (data: string) => readonly StreamEvent[];

function truncatedMessage(format: StreamFormat): string {
  return (
    `the ${FORMAT_LABELS[format]} stream ended without its terminal event ` +
    `(${TERMINAL_EVENTS[format]}): the container closed the response before finishing`
  );
}

/**
 * Lines or SSE events read from decoded text, each handed to the format's interpreter; terminal and
 * failure tracked here. The scanning parser hands a stream over to this one when its first byte may
 * open a byte order mark, which the UTF-8 decoder drops (WHATWG Encoding, "UTF-8 decode").
 */
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

  read(chunk: Uint8Array, sink: StreamEventSink): void {
    for (const event of this.push(chunk)) sink.event(event);
  }

  finish(sink: StreamEventSink): void {
    for (const event of this.end()) sink.event(event);
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
          message: truncatedMessage(this.format),
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

/** The byte that opens a UTF-8 byte order mark (EF BB BF), which the string decoders drop. */
const BOM_FIRST_BYTE = 0xef;

/**
 * The parser every request gets: lines and events found on the bytes (byte-framing.ts), a plain
 * token event read by the format's scan (token-scan.ts) and handed over as its text's bytes, every
 * other event given as text to the format's interpreter, as `FramedStreamParser` does. The events
 * are the same as that parser's for any bytes cut anywhere (the parser suites hold both to it).
 */
class ScanningStreamParser implements StreamParser, PayloadReader {
  private readonly framer: ByteFramer;
  private readonly scan: TokenScan;
  private readonly utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
  /** Set when the stream's first byte may open a byte order mark: that parser reads it all. */
  private strings: FramedStreamParser | undefined;
  private started = false;
  private stopped = false;
  private done = false;
  private sink: StreamEventSink = IGNORE;

  constructor(
    readonly format: StreamFormat,
    private readonly framing: Framing,
    private readonly interpret: Interpret,
    private readonly maxEventChars: number,
  ) {
    this.framer = new ByteFramer(framing, maxEventChars);
    this.scan = createTokenScan(format);
  }

  push(chunk: Uint8Array): readonly StreamEvent[] {
    const events = new CollectedEvents();
    this.read(chunk, events);
    return events.events;
  }

  end(): readonly StreamEvent[] {
    const events = new CollectedEvents();
    this.finish(events);
    return events.events;
  }

  read(chunk: Uint8Array, sink: StreamEventSink): void {
    if (!this.started && chunk.length > 0) {
      this.started = true;
      if (chunk[0] === BOM_FIRST_BYTE) {
        this.strings = new FramedStreamParser(this.format, this.framing, this.interpret, this.maxEventChars);
      }
    }
    if (this.strings !== undefined) {
      this.strings.read(chunk, sink);
      return;
    }
    if (this.stopped) return;
    this.sink = sink;
    const problem = this.framer.push(chunk, this);
    if (problem !== undefined && !this.failed()) this.fail(problem);
    this.sink = IGNORE;
  }

  finish(sink: StreamEventSink): void {
    if (this.strings !== undefined) {
      this.strings.finish(sink);
      return;
    }
    if (this.stopped) return;
    this.sink = sink;
    const problem = this.framer.end(this);
    if (problem !== undefined && !this.failed()) this.fail(problem);
    if (!this.failed() && !this.done) {
      sink.event({
        kind: 'failure',
        failure: { reason: 'truncated', message: truncatedMessage(this.format) },
      });
    }
    this.stopped = true;
    this.sink = IGNORE;
  }

  /** PayloadReader: a token event by the scan, any other through the interpreter. */
  bytes(bytes: Uint8Array, start: number, end: number): boolean {
    if (this.scan.scan(bytes, start, end, this.sink)) return true;
    return this.text(this.utf8.decode(bytes.subarray(start, end)));
  }

  text(payload: string): boolean {
    for (const event of this.interpret(payload)) {
      if (event.kind === 'done') {
        if (this.done) continue;
        this.done = true;
      }
      this.sink.event(event);
      if (event.kind === 'failure') {
        this.stopped = true;
        return false;
      }
    }
    return true;
  }

  /** Whether a failure was read (the framer's reads call `text`, which may set it). */
  private failed(): boolean {
    return this.stopped;
  }

  private fail(problem: string): void {
    this.stopped = true;
    this.sink.event({
      kind: 'failure',
      failure: {
        reason: 'malformed',
        message: `unreadable ${FORMAT_LABELS[this.format]} stream: ${problem}`,
      },
    });
  }
}

/** `push` and `end`: the events collected, each token given its text. */
class CollectedEvents implements StreamEventSink {
  readonly events: StreamEvent[] = [];

  token(bytes: Uint8Array, textStart: number, textEnd: number, special: boolean): void {
    // The string with its quotes, unescaped as JSON.parse would (the scan checked its escapes).
    const text: unknown = JSON.parse(textDecoder.decode(bytes.subarray(textStart - 1, textEnd + 1)));
    this.events.push({ kind: 'token', text: typeof text === 'string' ? text : '', special });
  }

  event(event: StreamEvent): void {
    this.events.push(event);
  }
}

const textDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

const IGNORE: StreamEventSink = { token: () => undefined, event: () => undefined };
