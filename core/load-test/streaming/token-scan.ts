import {
  JSON_NULL,
  JSON_NUMBER,
  JSON_OBJECT,
  JSON_STRING,
  JSON_TRUE,
  type JsonMember,
  JsonScanner,
  keyBytes,
  scanElements,
  scanMembers,
} from './json-scan.js';
import type { StreamFormat } from '../../contracts/index.js';

/**
 * Where a token read by a scan goes: the bytes of its text as the event wrote them, between the
 * string's quotes (escapes not decoded), and whether the server flagged it special. A consumer that
 * needs the text decodes it; the engine's timing needs only whether it is empty.
 */
export interface TokenSink {
  token(bytes: Uint8Array, textStart: number, textEnd: number, special: boolean): void;
}

/**
 * The fast path of one format: reads an event that is a plain token event (the events between a
 * stream's first and its last) without `JSON.parse` and without an object per token, handing its
 * tokens to the sink. Returns false, having handed nothing, for any other event (the last one with
 * the server's counts, an error, anything it does not read exactly as the format's interpreter
 * would): the parser then gives that event to the interpreter.
 */
export interface TokenScan {
  scan(bytes: Uint8Array, start: number, end: number, sink: TokenSink): boolean;
}

const newMember = (): JsonMember => ({ keyStart: 0, keyEnd: 0, valueStart: 0 });

const OPEN_OBJECT = 0x7b;

const ERROR = keyBytes('error');
const TOKEN = keyBytes('token');
const TEXT = keyBytes('text');
const GENERATED_TEXT = keyBytes('generated_text');
const DETAILS = keyBytes('details');

/**
 * TGI's and LMI's token events: `{"token": {"text": …, <special>: …}, …}` with no `error`, no
 * string `generated_text` (the last event) and, for LMI, no `details` object (its error line).
 * Mirrors `interpretTgiEvent` and `interpretLmiEvent` for these events.
 */
class TokenObjectScan implements TokenScan {
  private readonly scanner = new JsonScanner();
  private readonly member = newMember();
  private readonly inner = newMember();
  private sawToken = false;
  private textStart = -1;
  private textEnd = -1;
  private special = false;
  private sawSpecial = false;

  constructor(
    private readonly specialKey: readonly number[],
    /** LMI: a `details` object may carry `finish_reason: "error"`, so the interpreter reads it. */
    private readonly detailsObjectIsOther: boolean,
  ) {}

  private readonly visitEvent = (member: JsonMember): number => {
    const { scanner } = this;
    const { keyStart, keyEnd, valueStart } = member;
    if (scanner.contentIs(keyStart, keyEnd, TOKEN)) {
      if (this.sawToken || scanner.at(valueStart) !== OPEN_OBJECT) return -1;
      this.sawToken = true;
      return scanMembers(scanner, valueStart, this.inner, this.visitToken);
    }
    if (scanner.contentIs(keyStart, keyEnd, ERROR)) return -1;
    const after = scanner.value(valueStart);
    if (scanner.contentIs(keyStart, keyEnd, GENERATED_TEXT)) {
      return scanner.kind === JSON_STRING ? -1 : after;
    }
    if (this.detailsObjectIsOther && scanner.contentIs(keyStart, keyEnd, DETAILS)) {
      return scanner.kind === JSON_OBJECT ? -1 : after;
    }
    return after;
  };

  private readonly visitToken = (member: JsonMember): number => {
    const { scanner } = this;
    const { keyStart, keyEnd, valueStart } = member;
    const after = scanner.value(valueStart);
    if (after < 0) return -1;
    if (scanner.contentIs(keyStart, keyEnd, TEXT)) {
      if (this.textStart >= 0 || scanner.kind !== JSON_STRING) return -1;
      this.textStart = valueStart + 1;
      this.textEnd = after - 1;
    } else if (scanner.contentIs(keyStart, keyEnd, this.specialKey)) {
      if (this.sawSpecial) return -1;
      this.sawSpecial = true;
      this.special = scanner.kind === JSON_TRUE;
    }
    return after;
  };

  scan(bytes: Uint8Array, start: number, end: number, sink: TokenSink): boolean {
    const { scanner } = this;
    scanner.reset(bytes, end);
    this.sawToken = false;
    this.textStart = -1;
    this.special = false;
    this.sawSpecial = false;
    const after = scanMembers(scanner, scanner.skipSpace(start), this.member, this.visitEvent);
    if (after < 0 || scanner.skipSpace(after) !== end || this.textStart < 0) return false;
    sink.token(bytes, this.textStart, this.textEnd, this.special);
    return true;
  }
}

const OBJECT = keyBytes('object');
const CHOICES = keyBytes('choices');
const USAGE = keyBytes('usage');
const INDEX = keyBytes('index');
const DELTA = keyBytes('delta');
const CONTENT = keyBytes('content');
const FINISH_REASON = keyBytes('finish_reason');
/** Tokens one chunk may carry on the fast path (one per choice of index 0; the load test asks for n = 1). */
const MAX_CHUNK_TOKENS = 4;

/**
 * OpenAI-compatible chunks that carry text and nothing else of note: `choices` an array of
 * objects, no `error`, no `object: "error"`, no `usage` object and no string `finish_reason`.
 * Mirrors `interpretOpenAiEvent` for these chunks: a choice of index 0 (or none) gives its
 * `delta.content` (or `text` without a `delta` object) as a token when it is a non-empty string.
 */
class OpenAiChunkScan implements TokenScan {
  private readonly scanner = new JsonScanner();
  private readonly member = newMember();
  private readonly element = newMember();
  private readonly choiceMember = newMember();
  private readonly deltaMember = newMember();
  private sawChoices = false;
  private readonly starts = new Int32Array(MAX_CHUNK_TOKENS);
  private readonly ends = new Int32Array(MAX_CHUNK_TOKENS);
  private tokens = 0;
  // The choice being read.
  private sawIndex = false;
  private indexIsZero = true;
  private sawDelta = false;
  private deltaIsObject = false;
  private textStart = -1;
  private textEnd = -1;
  private textKind = 0;
  private contentStart = -1;
  private contentEnd = -1;
  private contentKind = 0;

  private readonly visitChunk = (member: JsonMember): number => {
    const { scanner } = this;
    const { keyStart, keyEnd, valueStart } = member;
    if (scanner.contentIs(keyStart, keyEnd, CHOICES)) {
      if (this.sawChoices) return -1;
      this.sawChoices = true;
      return scanElements(scanner, valueStart, this.element, this.visitChoice);
    }
    if (scanner.contentIs(keyStart, keyEnd, ERROR)) return -1;
    const after = scanner.value(valueStart);
    if (after < 0) return -1;
    if (scanner.contentIs(keyStart, keyEnd, OBJECT)) {
      if (scanner.kind !== JSON_STRING) return after;
      return scanner.escaped || scanner.contentIs(valueStart + 1, after - 1, ERROR) ? -1 : after;
    }
    if (scanner.contentIs(keyStart, keyEnd, USAGE)) return scanner.kind === JSON_OBJECT ? -1 : after;
    return after;
  };

  private readonly visitChoiceMember = (member: JsonMember): number => {
    const { scanner } = this;
    const { keyStart, keyEnd, valueStart } = member;
    if (scanner.contentIs(keyStart, keyEnd, DELTA) && scanner.at(valueStart) === OPEN_OBJECT) {
      if (this.sawDelta) return -1;
      this.sawDelta = true;
      this.deltaIsObject = true;
      return scanMembers(scanner, valueStart, this.deltaMember, this.visitDeltaMember);
    }
    const after = scanner.value(valueStart);
    if (after < 0) return -1;
    const { kind } = scanner;
    if (scanner.contentIs(keyStart, keyEnd, INDEX)) {
      if (this.sawIndex) return -1;
      this.sawIndex = true;
      if (kind === JSON_NUMBER) {
        // Another spelling of zero (0.0, -0, 0e1) is zero too: left to the interpreter.
        if (!scanner.isPlainZero(valueStart, after)) return -1;
        this.indexIsZero = true;
      } else this.indexIsZero = kind === JSON_NULL;
    } else if (scanner.contentIs(keyStart, keyEnd, DELTA)) {
      // A delta that is not an object: the choice's `text` is read instead.
      if (this.sawDelta) return -1;
      this.sawDelta = true;
    } else if (scanner.contentIs(keyStart, keyEnd, TEXT)) {
      if (this.textStart >= 0) return -1;
      this.textStart = valueStart + 1;
      this.textEnd = after - 1;
      this.textKind = kind;
    } else if (scanner.contentIs(keyStart, keyEnd, FINISH_REASON) && kind === JSON_STRING) return -1;
    return after;
  };

  private readonly visitDeltaMember = (member: JsonMember): number => {
    const { scanner } = this;
    const after = scanner.value(member.valueStart);
    if (after < 0 || !scanner.contentIs(member.keyStart, member.keyEnd, CONTENT)) return after;
    if (this.contentStart >= 0) return -1;
    this.contentStart = member.valueStart + 1;
    this.contentEnd = after - 1;
    this.contentKind = scanner.kind;
    return after;
  };

  private startChoice(): void {
    this.sawIndex = false;
    this.indexIsZero = true;
    this.sawDelta = false;
    this.deltaIsObject = false;
    this.textStart = -1;
    this.contentStart = -1;
  }

  private startChunk(): void {
    this.sawChoices = false;
    this.tokens = 0;
  }

  private readonly visitChoice = (element: JsonMember): number => {
    this.startChoice();
    const after = scanMembers(this.scanner, element.valueStart, this.choiceMember, this.visitChoiceMember);
    if (after < 0 || !this.indexIsZero) return after;
    // With a delta object its `content` is the text, else the choice's `text`.
    const fromDelta = this.deltaIsObject;
    const start = fromDelta ? this.contentStart : this.textStart;
    const end = fromDelta ? this.contentEnd : this.textEnd;
    const kind = fromDelta ? this.contentKind : this.textKind;
    if (start < 0 || kind !== JSON_STRING || end === start) return after;
    if (this.tokens === MAX_CHUNK_TOKENS) return -1;
    this.starts[this.tokens] = start;
    this.ends[this.tokens] = end;
    this.tokens++;
    return after;
  };

  scan(bytes: Uint8Array, start: number, end: number, sink: TokenSink): boolean {
    const { scanner } = this;
    scanner.reset(bytes, end);
    this.startChunk();
    const after = scanMembers(scanner, scanner.skipSpace(start), this.member, this.visitChunk);
    if (after < 0 || scanner.skipSpace(after) !== end || !this.sawChoices) return false;
    for (let index = 0; index < this.tokens; index++) {
      sink.token(bytes, this.starts[index] ?? 0, this.ends[index] ?? 0, false);
    }
    return true;
  }
}

/** A fresh fast path for one request's parser (each keeps the position of the event it reads). */
export function createTokenScan(format: StreamFormat): TokenScan {
  switch (format) {
    case 'tgi':
      return new TokenObjectScan(keyBytes('special'), false);
    case 'lmi-jsonlines':
    case 'lmi-sse':
      return new TokenObjectScan(keyBytes('special_token'), true);
    case 'openai':
      return new OpenAiChunkScan();
  }
}
