import { isAscii } from 'node:buffer';

/**
 * framing.ts's line and SSE decoding done on the bytes: the same lines, the same events and the
 * same problems, without decoding each payload part to a string or cutting a string per line. An
 * event that lies whole in one part is handed over as a range of that part's bytes; only a line or
 * an event spanning parts is copied (into buffers kept for the stream's life).
 *
 * The rules are framing.ts's: lines end at LF, CRLF or a lone CR (also across two parts); SSE per
 * WHATWG HTML "Interpreting an event stream"; the UTF-8 checks of a fatal `TextDecoder` in
 * streaming mode (WHATWG Encoding, "UTF-8 decoder": a part with an invalid sequence fails whole,
 * a sequence may span parts, a body ending inside one fails); the limits in UTF-16 code units, as
 * the string decoders count them. The one thing not done here, dropping a byte order mark, is why
 * a stream whose first byte may open one is read by the string decoders instead (stream-parser.ts).
 */

/**
 * How a format's events are framed:
 * - `sse`: Server-Sent Events, an event per blank line (framing.ts);
 * - `lines`: JSON Lines, a non-blank line per event;
 * - `data-lines`: SSE whose every `data:` line is a whole event (LMI's sse formatter, whose
 *   documented output has no blank lines between events: waiting for one would stamp every token
 *   with the end of the body); comment and other field lines are skipped.
 */
export type Framing = 'sse' | 'lines' | 'data-lines';

/** Where the framer hands each event's payload; each returns false when the stream has failed. */
export interface PayloadReader {
  /** A payload as bytes [start, end) of `bytes` (valid UTF-8), good until this call returns. */
  bytes(bytes: Uint8Array, start: number, end: number): boolean;
  /** A payload only the string rules could cut (a line opening with non-ASCII whitespace). */
  text(payload: string): boolean;
}

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const COLON = 0x3a;
const DATA = [0x64, 0x61, 0x74, 0x61];

/** What `String.prototype.trim` removes that is ASCII: tab, LF, VT, FF, CR, space. */
const isAsciiSpace = (byte: number): boolean => byte === SPACE || (byte >= 0x09 && byte <= 0x0d);

const NO_BYTES = new Uint8Array(0);

/** A growable byte buffer, kept for the stream's life; nothing allocated until it is used. */
class Bytes {
  data = NO_BYTES;
  length = 0;

  append(source: Uint8Array, start: number, end: number): void {
    const needed = this.length + (end - start);
    if (needed > this.data.length) {
      const grown = new Uint8Array(Math.max(needed, this.data.length * 2, 256));
      grown.set(this.data.subarray(0, this.length));
      this.data = grown;
    }
    const { data } = this;
    let at = this.length;
    for (let index = start; index < end; index++) data[at++] = source[index] ?? 0;
    this.length = needed;
  }

  appendByte(byte: number): void {
    if (this.length === this.data.length) {
      const grown = new Uint8Array(Math.max(this.data.length * 2, 256));
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = byte;
  }
}

/** UTF-16 code units of the UTF-8 bytes [start, end): one per code point, two above U+FFFF. */
function utf16Length(bytes: Uint8Array, start: number, end: number): number {
  let units = 0;
  for (let index = start; index < end; index++) {
    const byte = bytes[index] ?? 0;
    if ((byte & 0xc0) !== 0x80) units += byte >= 0xf0 ? 2 : 1;
  }
  return units;
}

// Decodes a range of a stream that is already checked: a U+FEFF there is text, not a byte order mark.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

export class ByteFramer {
  /** The unfinished line of the previous parts. */
  private readonly carry = new Bytes();
  /** SSE: the data of the event being read, when it has been copied (more than one line, or parts). */
  private readonly data = new Bytes();
  /** SSE: the event's data still in the part being read, one line's value: [dataStart, dataEnd). */
  private dataSource: Uint8Array | undefined;
  private dataStart = 0;
  private dataEnd = 0;
  private dataLines = 0;
  /** SSE: bytes of the event's data values (their joins left out), an upper bound of its chars. */
  private dataValueBytes = 0;
  private skipLeadingLf = false;
  private sseProblem: string | undefined;
  // The UTF-8 decoder's state between parts: bytes still needed by a sequence, bytes seen of it,
  // and the bounds of the next continuation byte.
  private needed = 0;
  private seen = 0;
  private lower = 0x80;
  private upper = 0xbf;

  constructor(
    private readonly framing: Framing,
    private readonly maxEventChars: number,
  ) {}

  /** Reads one part; returns the problem found (as framing.ts words it), if any. */
  push(chunk: Uint8Array, reader: PayloadReader): string | undefined {
    if (!this.validUtf8(chunk)) return 'the response is not valid UTF-8';
    const length = chunk.length;
    let position = 0;
    if (this.skipLeadingLf && length > 0) {
      if (chunk[0] === LF) position = 1;
      this.skipLeadingLf = false;
    }
    const hasCr = chunk.indexOf(CR, position) >= 0;
    let reading = true;
    while (position < length) {
      const lineEnd = hasCr ? nextLineEnd(chunk, position) : chunk.indexOf(LF, position);
      if (lineEnd < 0) break;
      if (reading) {
        if (this.carry.length > 0) {
          this.carry.append(chunk, position, lineEnd);
          reading = this.line(this.carry.data, 0, this.carry.length, reader);
        } else {
          reading = this.line(chunk, position, lineEnd, reader);
        }
        // A failure read in an event ends the part: nothing after it is read or reported.
        if (!reading && this.sseProblem === undefined) return undefined;
      }
      this.carry.length = 0;
      let next = lineEnd + 1;
      if (chunk[lineEnd] === CR) {
        if (next === length) this.skipLeadingLf = true;
        else if (chunk[next] === LF) next++;
      }
      position = next;
    }
    this.carry.append(chunk, position, length);
    this.keepData(chunk);
    if (this.carry.length > this.maxEventChars) {
      // The unfinished line's characters, leaving out a character still incomplete (the decoder holds it).
      const chars = utf16Length(this.carry.data, 0, this.carry.length - this.seen);
      if (chars > this.maxEventChars) return `a line is longer than ${this.maxEventChars} characters`;
    }
    return this.sseProblem;
  }

  /** The body ended: reads the last line, if it had no line end, and (`sse`) an unclosed event. */
  end(reader: PayloadReader): string | undefined {
    if (this.needed > 0) return 'the response ends inside a UTF-8 character';
    if (this.carry.length > 0) {
      const reading = this.line(this.carry.data, 0, this.carry.length, reader);
      this.carry.length = 0;
      if (!reading) return this.sseProblem;
    }
    if (this.framing === 'sse' && this.dataLines > 0) this.dispatch(reader);
    return undefined;
  }

  /** One line (without its end); false when reading stops (a failure, or an SSE problem). */
  private line(bytes: Uint8Array, start: number, end: number, reader: PayloadReader): boolean {
    switch (this.framing) {
      case 'lines':
        return this.jsonLine(bytes, start, end, reader);
      case 'data-lines':
        return this.dataLine(bytes, start, end, reader);
      case 'sse':
        return this.sseLine(bytes, start, end, reader);
    }
  }

  /** JSON Lines: a line that is not blank (`line.trim() !== ''`) is an event. */
  private jsonLine(bytes: Uint8Array, start: number, end: number, reader: PayloadReader): boolean {
    let at = start;
    while (at < end && isAsciiSpace(bytes[at] ?? 0)) at++;
    if (at === end) return true;
    if ((bytes[at] ?? 0) >= 0x80) {
      const line = utf8.decode(bytes.subarray(start, end));
      return line.trim() === '' ? true : reader.text(line);
    }
    return reader.bytes(bytes, start, end);
  }

  /** LMI's sse: a `data:` line's value, leading whitespace removed (`trimStart`), is an event. */
  private dataLine(bytes: Uint8Array, start: number, end: number, reader: PayloadReader): boolean {
    if (end - start < 5 || !startsWithData(bytes, start, end) || bytes[start + 4] !== COLON) return true;
    let at = start + 5;
    while (at < end && isAsciiSpace(bytes[at] ?? 0)) at++;
    if (at < end && (bytes[at] ?? 0) >= 0x80) {
      return reader.text(utf8.decode(bytes.subarray(start + 5, end)).trimStart());
    }
    return reader.bytes(bytes, at, end);
  }

  /** SSE: a blank line dispatches; `data` lines add their value; comments and other fields are skipped. */
  private sseLine(bytes: Uint8Array, start: number, end: number, reader: PayloadReader): boolean {
    if (start === end) return this.dispatch(reader);
    if (!startsWithData(bytes, start, end)) return true;
    let valueStart: number;
    if (end - start === 4) valueStart = end;
    else if (bytes[start + 4] === COLON) valueStart = bytes[start + 5] === SPACE ? start + 6 : start + 5;
    else return true;
    if (valueStart > end) valueStart = end;
    if (this.dataLines === 0 && bytes !== this.carry.data) {
      this.dataSource = bytes;
      this.dataStart = valueStart;
      this.dataEnd = end;
    } else {
      this.copyData();
      if (this.dataLines > 0) this.data.appendByte(LF);
      this.data.append(bytes, valueStart, end);
    }
    this.dataLines++;
    this.dataValueBytes += end - valueStart;
    if (this.dataValueBytes > this.maxEventChars) {
      this.copyData();
      const chars = utf16Length(this.data.data, 0, this.data.length) - (this.dataLines - 1);
      if (chars > this.maxEventChars) {
        this.sseProblem = `an event is longer than ${this.maxEventChars} characters`;
        return false;
      }
    }
    return true;
  }

  /** The event's data, when not empty (data lines joined by LF), to the reader; then a new event. */
  private dispatch(reader: PayloadReader): boolean {
    const lines = this.dataLines;
    const source = this.dataSource;
    this.dataLines = 0;
    this.dataValueBytes = 0;
    this.dataSource = undefined;
    if (lines === 0) return true;
    if (source !== undefined) {
      return this.dataEnd === this.dataStart ? true : reader.bytes(source, this.dataStart, this.dataEnd);
    }
    const length = this.data.length;
    this.data.length = 0;
    return length === 0 ? true : reader.bytes(this.data.data, 0, length);
  }

  /** The event's data moved into its own buffer, out of the part it was read from. */
  private copyData(): void {
    const source = this.dataSource;
    if (source === undefined) return;
    this.dataSource = undefined;
    this.data.length = 0;
    this.data.append(source, this.dataStart, this.dataEnd);
  }

  /** At the end of a part: an event's data still in it is copied, the part being the caller's. */
  private keepData(chunk: Uint8Array): void {
    if (this.dataSource === chunk) this.copyData();
  }

  /**
   * Whether the part is valid UTF-8, continuing a sequence the last part left open (WHATWG
   * Encoding, "UTF-8 decoder", with the fatal error mode).
   */
  private validUtf8(chunk: Uint8Array): boolean {
    if (this.needed === 0 && isAscii(chunk)) return true;
    let { needed, seen, lower, upper } = this;
    for (const byte of chunk) {
      if (needed === 0) {
        if (byte <= 0x7f) continue;
        if (byte >= 0xc2 && byte <= 0xdf) needed = 1;
        else if (byte >= 0xe0 && byte <= 0xef) {
          if (byte === 0xe0) lower = 0xa0;
          if (byte === 0xed) upper = 0x9f;
          needed = 2;
        } else if (byte >= 0xf0 && byte <= 0xf4) {
          if (byte === 0xf0) lower = 0x90;
          if (byte === 0xf4) upper = 0x8f;
          needed = 3;
        } else return false;
        seen = 1;
        continue;
      }
      if (byte < lower || byte > upper) return false;
      lower = 0x80;
      upper = 0xbf;
      seen++;
      if (seen === needed + 1) {
        needed = 0;
        seen = 0;
      }
    }
    this.needed = needed;
    this.seen = seen;
    this.lower = lower;
    this.upper = upper;
    return true;
  }
}

function startsWithData(bytes: Uint8Array, start: number, end: number): boolean {
  if (end - start < 4) return false;
  for (let index = 0; index < 4; index++) if (bytes[start + index] !== DATA[index]) return false;
  return true;
}

/** The first LF or CR at or after `from`, or -1. */
function nextLineEnd(bytes: Uint8Array, from: number): number {
  for (let index = from; index < bytes.length; index++) {
    const byte = bytes[index];
    if (byte === LF || byte === CR) return index;
  }
  return -1;
}
