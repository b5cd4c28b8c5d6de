/**
 * Byte chunks to text lines and to Server-Sent Events. SageMaker hands the container's bytes over
 * in payload parts cut wherever the network and the container's flushes cut them: a line, an event
 * or a multi-byte UTF-8 character may span several parts, and one part may hold several of each.
 * Both decoders keep the unfinished tail between chunks.
 */

/**
 * The longest line (or SSE event) kept while waiting for its end. A token event is well under a
 * kilobyte; a container that never sends a line break must not grow a worker's memory without
 * bound, so past this the stream is read as malformed.
 */
export const MAX_EVENT_CHARS = 1_048_576;

export interface DecodedLines {
  readonly lines: readonly string[];
  /** Set when the bytes cannot be read as lines (invalid UTF-8, a line past MAX_EVENT_CHARS). */
  readonly problem?: string;
}

/**
 * Splits UTF-8 bytes into lines ended by LF, CRLF or a lone CR (the three line ends of the SSE
 * grammar, https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream;
 * JSON Lines uses LF, https://jsonlines.org/). A CR at the end of a chunk ends its line at once and
 * an LF opening the next chunk is then skipped, so CRLF split across two parts is one line end.
 */
export class LineDecoder {
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true });
  private partial = '';
  private skipLeadingLf = false;

  constructor(private readonly maxLineChars: number = MAX_EVENT_CHARS) {}

  push(chunk: Uint8Array): DecodedLines {
    let text: string;
    try {
      text = this.utf8.decode(chunk, { stream: true });
    } catch {
      return { lines: [], problem: 'the response is not valid UTF-8' };
    }
    return this.split(text);
  }

  /** The body ended: the last line, if it had no line end. */
  end(): DecodedLines {
    let text: string;
    try {
      text = this.utf8.decode();
    } catch {
      return { lines: [], problem: 'the response ends inside a UTF-8 character' };
    }
    const decoded = this.split(text);
    if (decoded.problem !== undefined || this.partial === '') return decoded;
    const last = this.partial;
    this.partial = '';
    return { lines: [...decoded.lines, last] };
  }

  private split(text: string): DecodedLines {
    const lines: string[] = [];
    let start = 0;
    if (this.skipLeadingLf && text.length > 0) {
      if (text.charCodeAt(0) === LF) start = 1;
      this.skipLeadingLf = false;
    }
    for (let index = start; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (code !== LF && code !== CR) continue;
      lines.push(this.partial + text.slice(start, index));
      this.partial = '';
      if (code === CR) {
        if (index + 1 === text.length) this.skipLeadingLf = true;
        else if (text.charCodeAt(index + 1) === LF) index++;
      }
      start = index + 1;
    }
    this.partial += text.slice(start);
    if (this.partial.length > this.maxLineChars) {
      return { lines, problem: `a line is longer than ${this.maxLineChars} characters` };
    }
    return { lines };
  }
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * The `data` of Server-Sent Events, from lines (WHATWG HTML, "Interpreting an event stream",
 * https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
 * a blank line dispatches the event unless its data is empty; `data:` lines append their value
 * (one leading space removed) joined by LF; lines opening with `:` are comments (keep-alives); `event`, `id` and `retry` do
 * not matter to a token stream and are ignored. Unlike a browser, `end()` also hands over an event
 * the body ended inside: a container that wrote its terminal event and closed without the blank
 * line did finish, and reading it avoids a false "truncated".
 */
export class SseDecoder {
  private data: string[] = [];
  private chars = 0;

  constructor(private readonly maxEventChars: number = MAX_EVENT_CHARS) {}

  /** Feeds lines; returns the `data` of each event they complete, or the problem found. */
  push(lines: readonly string[]): { readonly events: readonly string[]; readonly problem?: string } {
    const events: string[] = [];
    for (const line of lines) {
      if (line === '') {
        const data = this.data.join('\n');
        if (data !== '') events.push(data);
        this.data = [];
        this.chars = 0;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      if (field !== 'data') continue;
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      this.data.push(value);
      this.chars += value.length;
      if (this.chars > this.maxEventChars) {
        return { events, problem: `an event is longer than ${this.maxEventChars} characters` };
      }
    }
    return { events };
  }

  /** The body ended: the data of an event not closed by a blank line, if any. */
  end(): readonly string[] {
    const data = this.data.join('\n');
    const pending = data === '' ? [] : [data];
    this.data = [];
    this.chars = 0;
    return pending;
  }
}
