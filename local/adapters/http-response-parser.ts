/**
 * What a `ResponseParser` reports, in order, per response: `onHead` once, `onBody` for each piece
 * of the body (framing removed; a view of the parsed buffer, valid only during the call), `onEnd`.
 * Interim 1xx responses are skipped.
 */
export interface ResponseSink {
  onHead(statusCode: number, keepAlive: boolean): void;
  onBody(buffer: Uint8Array, start: number, end: number): void;
  onEnd(): void;
}

/** A response the parser cannot read: the connection's framing can no longer be trusted. */
export class ResponseParseError extends Error {
  override readonly name = 'ResponseParseError';
}

/** Bytes of a response head (status line and headers) accepted, as http-parser-js's default. */
export const MAX_HEAD_BYTES = 80 * 1024;

const CR = 0x0d;
const LF = 0x0a;
const SP = 0x20;
const HTAB = 0x09;
const COMMA = 0x2c;
const COLON = 0x3a;

// Parser states: where the next byte belongs.
const STATUS_LINE = 0;
const HEADER_LINE_START = 1;
const HEADER_NAME = 2;
const HEADER_VALUE = 3;
const HEAD_END = 4; // a CR ending the head was read: LF expected
const BODY_SIZED = 5;
const BODY_UNTIL_CLOSE = 6;
const CHUNK_SIZE = 7;
const CHUNK_EXTENSION = 8;
const CHUNK_DATA = 9;
const CHUNK_DATA_END = 10; // the CRLF after a chunk's data
const TRAILER_LINE_START = 11;
const TRAILER_LINE = 12;
const DONE = 13; // between responses

// The headers that frame a response (RFC 9112 §6.1, §6.3, §9.3); every other one is skipped.
const NONE = 0;
const CONTENT_LENGTH = 1;
const TRANSFER_ENCODING = 2;
const CONNECTION = 3;
/** The bytes of an ASCII name. */
const ascii = (text: string): readonly number[] => Array.from(Buffer.from(text, 'latin1'));
const NAMES: readonly (readonly number[])[] = [
  [],
  ascii('content-length'),
  ascii('transfer-encoding'),
  ascii('connection'),
];
const LONGEST_NAME = 17;

// The list tokens looked for in header values (compared case-insensitively).
const TOKENS: readonly (readonly number[])[] = [ascii('chunked'), ascii('close'), ascii('keep-alive')];
const CHUNKED = 1;
const CLOSE = 2;
const KEEP_ALIVE = 4;
const ALL_TOKENS = CHUNKED | CLOSE | KEEP_ALIVE;

const lower = (byte: number): number => (byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte);
const hexValue = (byte: number): number => {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const letter = byte | 0x20;
  return letter >= 0x61 && letter <= 0x66 ? letter - 0x57 : -1;
};

/**
 * An HTTP/1.1 response parser for one connection's responses, one after the other (RFC 9112):
 * the status code, the three headers that frame the body (Content-Length, Transfer-Encoding,
 * Connection) and the body: sized, chunked (extensions and trailers skipped) or running to the
 * connection's end (`finish`). It reads bytes where they lie, in any split across reads, and
 * allocates nothing per response: no strings for the status line or headers (http-parser-js, which
 * the transport used first, makes a string per line and a match array per header).
 */
export class ResponseParser {
  /** Nothing is expected until `expectResponse`: bytes before it are an error. */
  private state = DONE;
  private headBytes = 0;
  private linePosition = 0;
  private statusCode = 0;
  private minorVersion = 0;
  private header = NONE;
  private nameLength = 0;
  private readonly name = new Uint8Array(LONGEST_NAME);
  // Framing read from the headers.
  private contentLength = -1;
  private valueLength = -1;
  private valueEnded = false;
  private chunked = false;
  private transferEncoded = false;
  private connectionTokens = 0;
  // The list token being read in a header value.
  private tokenLength = 0;
  private tokenCandidates = ALL_TOKENS;
  private tokenEnded = false;
  private lastTokenMatched = 0;
  private remaining = 0;
  private chunkSizeDigits = 0;

  constructor(private readonly sink: ResponseSink) {}

  /** Parses `buffer[start, end)`; the error, if the bytes are not an HTTP/1.1 response. */
  execute(buffer: Uint8Array, start: number, end: number): ResponseParseError | undefined {
    let index = start;
    while (index < end) {
      const state = this.state;
      if (state === BODY_SIZED || state === CHUNK_DATA) {
        const take = Math.min(this.remaining, end - index);
        if (take > 0) this.sink.onBody(buffer, index, index + take);
        index += take;
        this.remaining -= take;
        if (this.remaining === 0) {
          if (state === CHUNK_DATA) this.state = CHUNK_DATA_END;
          else this.endResponse();
        }
        continue;
      }
      if (state === BODY_UNTIL_CLOSE) {
        this.sink.onBody(buffer, index, end);
        return undefined;
      }
      if (state === HEADER_VALUE && this.header === NONE && buffer[index] !== LF) {
        // A header that does not frame the body: skipped to its line's end in one search.
        const lineEnd = buffer.indexOf(LF, index);
        const stop = lineEnd < 0 || lineEnd >= end ? end : lineEnd;
        this.headBytes += stop - index;
        if (this.headBytes > MAX_HEAD_BYTES)
          return new ResponseParseError(`response head over ${MAX_HEAD_BYTES} bytes`);
        index = stop;
        continue;
      }
      const byte = buffer[index] ?? 0;
      index++;
      const error = state <= HEAD_END ? this.headByte(byte) : this.framingByte(byte);
      if (error !== undefined) return error;
    }
    return undefined;
  }

  /**
   * The connection ended: a body running to the connection's end is complete; the error if a
   * response was cut short.
   */
  finish(): ResponseParseError | undefined {
    if (this.state === BODY_UNTIL_CLOSE) {
      this.endResponse();
      return undefined;
    }
    const started = this.state !== DONE && !(this.state === STATUS_LINE && this.headBytes === 0);
    return started ? new ResponseParseError('the connection ended inside a response') : undefined;
  }

  private headByte(byte: number): ResponseParseError | undefined {
    if (++this.headBytes > MAX_HEAD_BYTES) {
      return new ResponseParseError(`response head over ${MAX_HEAD_BYTES} bytes`);
    }
    switch (this.state) {
      case STATUS_LINE:
        return this.statusLineByte(byte);
      case HEADER_LINE_START:
        if (byte === CR) this.state = HEAD_END;
        else if (byte === LF) return this.endHead();
        else this.startHeader(byte);
        return undefined;
      case HEADER_NAME:
        if (byte === COLON) this.endName();
        else if (byte === LF)
          this.state = HEADER_LINE_START; // a line without a colon: skipped
        else if (this.nameLength < LONGEST_NAME) this.name[this.nameLength++] = lower(byte);
        else this.nameLength = LONGEST_NAME + 1;
        return undefined;
      case HEADER_VALUE:
        if (byte === LF) return this.endValue();
        if (byte !== CR) return this.valueByte(byte);
        return undefined;
      default: // HEAD_END
        return byte === LF ? this.endHead() : new ResponseParseError('expected LF after the head');
    }
  }

  /** `HTTP/1.x ddd reason`: the version's minor digit and the status code, the rest skipped. */
  private statusLineByte(byte: number): ResponseParseError | undefined {
    const position = this.linePosition++;
    if (byte === LF) {
      if (position < 12) return new ResponseParseError('status line too short');
      this.state = HEADER_LINE_START;
      return undefined;
    }
    if (position < 5) {
      if (byte !== 'HTTP/'.charCodeAt(position)) return new ResponseParseError('expected HTTP/1.x');
    } else if (position === 5 || position === 6) {
      if (byte !== (position === 5 ? 0x31 : 0x2e)) return new ResponseParseError('expected HTTP/1.x');
    } else if (position === 7) {
      if (byte < 0x30 || byte > 0x39) return new ResponseParseError('expected HTTP/1.x');
      this.minorVersion = byte - 0x30;
    } else if (position === 8) {
      if (byte !== SP) return new ResponseParseError('expected a space after the version');
    } else if (position <= 11) {
      if (byte < 0x30 || byte > 0x39) return new ResponseParseError('expected a 3-digit status code');
      this.statusCode = this.statusCode * 10 + byte - 0x30;
    }
    return undefined;
  }

  private startHeader(byte: number): void {
    this.state = HEADER_NAME;
    this.name[0] = lower(byte);
    this.nameLength = 1;
  }

  private endName(): void {
    const length = this.nameLength;
    this.header = NONE;
    for (let header = CONTENT_LENGTH; header <= CONNECTION; header++) {
      const name = NAMES[header] ?? [];
      if (name.length !== length) continue;
      let same = true;
      for (let index = 0; index < length && same; index++) same = this.name[index] === name[index];
      if (same) this.header = header;
    }
    this.valueLength = -1;
    this.valueEnded = false;
    this.tokenLength = 0;
    this.tokenCandidates = ALL_TOKENS;
    this.tokenEnded = false;
    this.lastTokenMatched = 0;
    if (this.header === TRANSFER_ENCODING) this.transferEncoded = true;
    this.state = HEADER_VALUE;
  }

  private valueByte(byte: number): ResponseParseError | undefined {
    const header = this.header;
    if (header === NONE) return undefined;
    if (header === CONTENT_LENGTH) {
      if (byte === SP || byte === HTAB) {
        if (this.valueLength >= 0) this.valueEnded = true; // digits ended: only spaces may follow
        return undefined;
      }
      if (byte < 0x30 || byte > 0x39 || this.valueEnded)
        return new ResponseParseError('invalid Content-Length');
      this.valueLength = Math.max(this.valueLength, 0) * 10 + byte - 0x30;
      if (this.valueLength > Number.MAX_SAFE_INTEGER / 10)
        return new ResponseParseError('Content-Length too large');
      return undefined;
    }
    // Transfer-Encoding and Connection are comma-separated lists of tokens.
    if (byte === COMMA) {
      this.endToken();
    } else if (byte === SP || byte === HTAB) {
      if (this.tokenLength > 0) this.tokenEnded = true;
    } else if (this.tokenEnded) {
      this.tokenCandidates = 0;
    } else {
      const position = this.tokenLength++;
      const low = lower(byte);
      for (let token = 0; token < TOKENS.length; token++) {
        if (TOKENS[token]?.[position] !== low) this.tokenCandidates &= ~(1 << token);
      }
    }
    return undefined;
  }

  private endToken(): void {
    if (this.tokenLength > 0) {
      let matched = 0;
      for (let token = 0; token < TOKENS.length; token++) {
        const bit = 1 << token;
        if ((this.tokenCandidates & bit) !== 0 && TOKENS[token]?.length === this.tokenLength) matched = bit;
      }
      this.lastTokenMatched = matched;
      if (this.header === CONNECTION) this.connectionTokens |= matched;
    }
    this.tokenLength = 0;
    this.tokenCandidates = ALL_TOKENS;
    this.tokenEnded = false;
  }

  private endValue(): ResponseParseError | undefined {
    if (this.header === CONTENT_LENGTH) {
      const length = this.valueLength;
      if (length < 0) return new ResponseParseError('empty Content-Length');
      if (this.contentLength >= 0 && this.contentLength !== length) {
        return new ResponseParseError('Content-Length given twice with different values');
      }
      this.contentLength = length;
    } else if (this.header !== NONE) {
      this.endToken();
      // Chunked must be the last coding (RFC 9112 §6.1); the value's last token says.
      if (this.header === TRANSFER_ENCODING) this.chunked = this.lastTokenMatched === CHUNKED;
    }
    this.state = HEADER_LINE_START;
    return undefined;
  }

  private endHead(): ResponseParseError | undefined {
    const status = this.statusCode;
    if (status >= 100 && status < 200) {
      if (status === 101) return new ResponseParseError('unexpected 101 Switching Protocols');
      this.reset(); // an interim response: the final one follows
      return undefined;
    }
    const keepAlive =
      this.minorVersion >= 1
        ? (this.connectionTokens & CLOSE) === 0
        : (this.connectionTokens & KEEP_ALIVE) !== 0;
    // RFC 9112 §6.3: no body for 204 and 304; chunked framing wins over a length; a transfer
    // coding other than chunked, or neither framing, runs to the connection's end.
    if (status === 204 || status === 304) {
      this.sink.onHead(status, keepAlive);
      this.endResponse();
    } else if (this.chunked) {
      this.sink.onHead(status, keepAlive);
      this.startChunkSize();
    } else if (!this.transferEncoded && this.contentLength >= 0) {
      this.sink.onHead(status, keepAlive);
      this.remaining = this.contentLength;
      if (this.remaining === 0) this.endResponse();
      else this.state = BODY_SIZED;
    } else {
      this.sink.onHead(status, false);
      this.state = BODY_UNTIL_CLOSE;
    }
    return undefined;
  }

  private framingByte(byte: number): ResponseParseError | undefined {
    switch (this.state) {
      case CHUNK_SIZE: {
        const digit = hexValue(byte);
        if (digit >= 0) {
          if (++this.chunkSizeDigits > 12) return new ResponseParseError('chunk size too large');
          this.remaining = this.remaining * 16 + digit;
        } else if (this.chunkSizeDigits === 0) {
          return new ResponseParseError('expected a chunk size');
        } else if (byte === LF) {
          this.endChunkSize();
        } else this.state = CHUNK_EXTENSION; // `;name=value`, or spaces before it: skipped
        return undefined;
      }
      case CHUNK_EXTENSION:
        if (byte === LF) this.endChunkSize();
        return undefined;
      case CHUNK_DATA_END:
        if (byte === LF) this.startChunkSize();
        else if (byte !== CR) return new ResponseParseError('expected CRLF after a chunk');
        return undefined;
      case TRAILER_LINE_START:
        if (byte === LF) this.endResponse();
        else if (byte !== CR) this.state = TRAILER_LINE;
        return undefined;
      case TRAILER_LINE:
        if (byte === LF) this.state = TRAILER_LINE_START;
        return undefined;
      default: // DONE: bytes after a response (or before any), with no request sent
        return new ResponseParseError('response bytes when no request was sent');
    }
  }

  private startChunkSize(): void {
    this.state = CHUNK_SIZE;
    this.remaining = 0;
    this.chunkSizeDigits = 0;
  }

  private endChunkSize(): void {
    this.state = this.remaining === 0 ? TRAILER_LINE_START : CHUNK_DATA;
  }

  private endResponse(): void {
    this.reset();
    this.state = DONE;
    this.sink.onEnd();
  }

  /** Ready for the next response (a request is on its way): `execute` reads a status line next. */
  expectResponse(): void {
    if (this.state === DONE) this.reset();
  }

  private reset(): void {
    this.state = STATUS_LINE;
    this.headBytes = 0;
    this.linePosition = 0;
    this.statusCode = 0;
    this.minorVersion = 0;
    this.contentLength = -1;
    this.chunked = false;
    this.transferEncoded = false;
    this.connectionTokens = 0;
    this.remaining = 0;
  }
}
