/**
 * A validating scan of JSON text held as UTF-8 bytes, for the stream parsers' fast path: it finds
 * where each value of an event begins and ends, and the kind of each, without building strings or
 * objects. The grammar is RFC 8259's (https://www.rfc-editor.org/rfc/rfc8259): a scan that returns
 * a position read a well-formed value, so a token event it accepts is one `JSON.parse` accepts too.
 * It does not decode strings, compare escaped keys or evaluate numbers: a caller that needs any of
 * those gives the event to `JSON.parse` instead. The bytes were checked as UTF-8 beforehand.
 */

export const JSON_STRING = 1;
export const JSON_NUMBER = 2;
export const JSON_TRUE = 3;
export const JSON_FALSE = 4;
export const JSON_NULL = 5;
export const JSON_OBJECT = 6;
export const JSON_ARRAY = 7;

/**
 * Nesting the scan follows before it gives up (the caller then falls back to `JSON.parse`, which
 * decides): token events nest three or four levels.
 */
const MAX_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

const TRUE_BYTES = [0x74, 0x72, 0x75, 0x65];
const FALSE_BYTES = [0x66, 0x61, 0x6c, 0x73, 0x65];
const NULL_BYTES = [0x6e, 0x75, 0x6c, 0x6c];

/** The escapes a JSON string may hold after a backslash: " \ / b f n r t (u is read apart). */
const SIMPLE_ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

const isDigit = (byte: number): boolean => byte >= ZERO && byte <= NINE;
const isHex = (byte: number): boolean =>
  isDigit(byte) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);

/**
 * One scanner per parser, pointed at one event's bytes at a time (`reset`). Every method takes a
 * position and returns the position after what it read, or -1 when the bytes there are not that.
 */
export class JsonScanner {
  /** The kind of the last value `value` read (JSON_STRING …). */
  kind = 0;
  /** Whether the last string read held an escape (its bytes are then not its text). */
  escaped = false;
  private bytes: Uint8Array = new Uint8Array(0);
  private end = 0;

  reset(bytes: Uint8Array, end: number): void {
    this.bytes = bytes;
    this.end = end;
  }

  /** The byte at `position`, or -1 past the event's end. */
  at(position: number): number {
    return position < this.end ? (this.bytes[position] ?? -1) : -1;
  }

  /** Past JSON's whitespace (space, tab, LF, CR). */
  skipSpace(position: number): number {
    let at = position;
    while (at < this.end) {
      const byte = this.bytes[at];
      if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) break;
      at++;
    }
    return at;
  }

  /** Whether the string whose contents are [start, end) is `key` (an unescaped ASCII key). */
  contentIs(start: number, end: number, key: readonly number[]): boolean {
    if (end - start !== key.length) return false;
    for (let index = 0; index < key.length; index++) {
      if (this.bytes[start + index] !== key[index]) return false;
    }
    return true;
  }

  /** A string opening at `position` (its quote); sets `escaped`. */
  string(position: number): number {
    if (this.at(position) !== QUOTE) return -1;
    this.escaped = false;
    const { bytes, end } = this;
    let at = position + 1;
    while (at < end) {
      const byte = bytes[at] ?? -1;
      if (byte === QUOTE) return at + 1;
      if (byte === BACKSLASH) {
        this.escaped = true;
        const escape = this.at(at + 1);
        if (escape === 0x75) {
          for (let digit = 2; digit < 6; digit++) if (!isHex(this.at(at + digit))) return -1;
          at += 6;
        } else if (SIMPLE_ESCAPES.has(escape)) at += 2;
        else return -1;
      } else if (byte < 0x20) return -1;
      else at++;
    }
    return -1;
  }

  /** Any value starting at `position` (no whitespace before it); sets `kind`. */
  value(position: number, depth = 0): number {
    const byte = this.at(position);
    if (byte === QUOTE) {
      this.kind = JSON_STRING;
      return this.string(position);
    }
    if (byte === OPEN_OBJECT) {
      const after = this.container(position, depth, CLOSE_OBJECT);
      this.kind = JSON_OBJECT;
      return after;
    }
    if (byte === OPEN_ARRAY) {
      const after = this.container(position, depth, CLOSE_ARRAY);
      this.kind = JSON_ARRAY;
      return after;
    }
    if (byte === 0x74) return this.literal(position, TRUE_BYTES, JSON_TRUE);
    if (byte === 0x66) return this.literal(position, FALSE_BYTES, JSON_FALSE);
    if (byte === 0x6e) return this.literal(position, NULL_BYTES, JSON_NULL);
    this.kind = JSON_NUMBER;
    return this.number(position);
  }

  /** Whether the number whose bytes are [start, end) is written `0`. */
  isPlainZero(start: number, end: number): boolean {
    return end - start === 1 && this.bytes[start] === ZERO;
  }

  private literal(position: number, word: readonly number[], kind: number): number {
    if (position + word.length > this.end) return -1;
    const { bytes } = this;
    for (let index = 1; index < word.length; index++) {
      if (bytes[position + index] !== word[index]) return -1;
    }
    this.kind = kind;
    return position + word.length;
  }

  /** -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
  private number(position: number): number {
    let at = position;
    if (this.at(at) === MINUS) at++;
    const first = this.at(at);
    if (first === ZERO) at++;
    else if (isDigit(first)) while (isDigit(this.at(at))) at++;
    else return -1;
    if (this.at(at) === DOT) {
      at++;
      if (!isDigit(this.at(at))) return -1;
      while (isDigit(this.at(at))) at++;
    }
    const exponent = this.at(at);
    if (exponent === 0x65 || exponent === 0x45) {
      at++;
      const sign = this.at(at);
      if (sign === PLUS || sign === MINUS) at++;
      if (!isDigit(this.at(at))) return -1;
      while (isDigit(this.at(at))) at++;
    }
    return at;
  }

  /** An object or an array opening at `position`, every member read and checked. */
  private container(position: number, depth: number, close: number): number {
    if (depth >= MAX_DEPTH) return -1;
    let at = this.skipSpace(position + 1);
    if (this.at(at) === close) return at + 1;
    for (;;) {
      if (close === CLOSE_OBJECT) {
        at = this.string(at);
        if (at < 0) return -1;
        at = this.skipSpace(at);
        if (this.at(at) !== COLON) return -1;
        at = this.skipSpace(at + 1);
      }
      at = this.value(at, depth + 1);
      if (at < 0) return -1;
      at = this.skipSpace(at);
      const next = this.at(at);
      if (next === close) return at + 1;
      if (next !== COMMA) return -1;
      at = this.skipSpace(at + 1);
    }
  }
}

/**
 * A member of an object (its key's contents [keyStart, keyEnd), its value opening at valueStart),
 * or an element of an array (valueStart only).
 */
export interface JsonMember {
  keyStart: number;
  keyEnd: number;
  valueStart: number;
}

/**
 * Reads the member's value and returns the position after it, or -1 to give up. A visitor reads
 * the values it needs itself (`scanMembers` on a nested object), each byte being read once, and
 * the others with `scanner.value`.
 */
export type MemberVisitor = (member: JsonMember) => number;

/**
 * Walks the members of the object opening at `position`, handing each to `visit` (one reused
 * `member` record, so nothing is allocated per member). Returns the position after the object, or
 * -1 when it is not a well-formed object, a key is escaped (its bytes are not its name) or `visit`
 * gave up.
 */
export function scanMembers(
  scanner: JsonScanner,
  position: number,
  member: JsonMember,
  visit: MemberVisitor,
): number {
  if (scanner.at(position) !== OPEN_OBJECT) return -1;
  let at = scanner.skipSpace(position + 1);
  if (scanner.at(at) === CLOSE_OBJECT) return at + 1;
  for (;;) {
    const keyStart = at + 1;
    at = scanner.string(at);
    if (at < 0 || scanner.escaped) return -1;
    member.keyStart = keyStart;
    member.keyEnd = at - 1;
    at = scanner.skipSpace(at);
    if (scanner.at(at) !== COLON) return -1;
    member.valueStart = scanner.skipSpace(at + 1);
    at = visit(member);
    if (at < 0) return -1;
    at = scanner.skipSpace(at);
    const next = scanner.at(at);
    if (next === CLOSE_OBJECT) return at + 1;
    if (next !== COMMA) return -1;
    at = scanner.skipSpace(at + 1);
  }
}

/** The elements of the array opening at `position`, as `scanMembers` (keys left unset). */
export function scanElements(
  scanner: JsonScanner,
  position: number,
  member: JsonMember,
  visit: MemberVisitor,
): number {
  if (scanner.at(position) !== OPEN_ARRAY) return -1;
  let at = scanner.skipSpace(position + 1);
  if (scanner.at(at) === CLOSE_ARRAY) return at + 1;
  for (;;) {
    member.valueStart = at;
    at = visit(member);
    if (at < 0) return -1;
    at = scanner.skipSpace(at);
    const next = scanner.at(at);
    if (next === CLOSE_ARRAY) return at + 1;
    if (next !== COMMA) return -1;
    at = scanner.skipSpace(at + 1);
  }
}

/** ASCII key bytes, for `contentIs`. */
export const keyBytes = (key: string): readonly number[] => Array.from(key, (char) => char.charCodeAt(0));
