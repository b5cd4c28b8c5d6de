import { STEP_FUNCTIONS_QUOTAS } from './step-functions-quotas.js';

/**
 * The bounds every run input is held to before anything walks it (the special-key scan, zod, the
 * error formatter, JSON.stringify): its nesting depth and its size as JSON. The check itself is one
 * iterative walk that stops at the first bound it crosses, so it costs at most the bounds, whatever
 * it is given: a body nested 100,000 levels deep is refused after visiting `maxDepth` of them, and
 * nothing recursive (JSON.stringify, a recursive walk) ever sees a deeper value.
 */
export const INPUT_BOUNDS = {
  /**
   * Levels of objects and arrays. The deepest field the run-input schemas describe, a variable of
   * an optimization technique's `overrideEnvironment`, sits seven levels down; 32 leaves room for
   * every documented shape.
   */
  maxDepth: 32,
  /**
   * Bytes of the input as JSON (UTF-8): Step Functions' execution input quota, 256 KB
   * (https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html, "Maximum input or
   * output size for a task, state, or execution"). StartExecution refuses a larger input, and the
   * local runner holds every state to the same quota.
   */
  maxJsonBytes: STEP_FUNCTIONS_QUOTAS.maxPayloadBytes,
} as const;

/** A value waiting to be visited; its path is rebuilt from `parent` only if it is reported. */
interface Pending {
  readonly value: unknown;
  readonly depth: number;
  readonly parent: Pending | undefined;
  readonly key: PropertyKey | undefined;
}

/** The path from the root to `node`, in one pass over its ancestors. */
function pathOf(node: Pending): PropertyKey[] {
  const keys: PropertyKey[] = [];
  for (let at: Pending | undefined = node; at?.key !== undefined; at = at.parent) keys.push(at.key);
  return keys.reverse();
}

/** JSON's escapes of the control characters that have a short form (`\n`, `\t`, …). */
const SHORT_ESCAPES = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);

/** UTF-8 bytes of `text` as JSON.stringify writes it, quotes included; stops counting past `budget`. */
function stringJsonBytes(text: string, budget: number): number {
  // Every character takes at least one byte: a string longer than the budget is over it already.
  if (text.length + 2 > budget) return text.length + 2;
  let bytes = 2;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 0x22 || code === 0x5c) bytes += 2;
    else if (code < 0x20) bytes += SHORT_ESCAPES.has(code) ? 2 : 6;
    else if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      // A surrogate pair is one 4-byte character; a lone surrogate is written as `\udXXX`.
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        index += 1;
      } else bytes += 6;
    } else if (code >= 0xdc00 && code <= 0xdfff) bytes += 6;
    else bytes += 3;
  }
  return bytes;
}

/** Bytes of a value that is not an object or array, as JSON; `undefined` for what JSON omits. */
function scalarJsonBytes(value: unknown, budget: number): number | undefined {
  switch (typeof value) {
    case 'string':
      return stringJsonBytes(value, budget);
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'bigint':
      return String(value).length;
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      return 4; // null
  }
}

/** The first bound a value crosses: where, and what was found there. */
export type BoundCrossing =
  | {
      readonly bound: 'depth';
      readonly path: readonly PropertyKey[];
      readonly found: 'an array' | 'an object';
    }
  | { readonly bound: 'size'; readonly path: readonly PropertyKey[] };

/**
 * The first bound (`INPUT_BOUNDS`) `data` crosses, or `undefined`. One iterative walk (no
 * recursion, no path copied per level: a reported path is rebuilt once from parent links) that
 * stops as soon as a bound is crossed, so its time and memory are bounded by the bounds, not by
 * what it is given. The size is counted as JSON.stringify would write the value, without writing it.
 */
export function firstBoundCrossing(data: unknown): BoundCrossing | undefined {
  let bytes = 0;
  const pending: Pending[] = [{ value: data, depth: 0, parent: undefined, key: undefined }];
  const tooLarge: BoundCrossing = { bound: 'size', path: [] };
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    const { value, depth } = node;
    if (typeof value !== 'object' || value === null) {
      bytes += scalarJsonBytes(value, INPUT_BOUNDS.maxJsonBytes - bytes) ?? 0;
      if (bytes > INPUT_BOUNDS.maxJsonBytes) return tooLarge;
      continue;
    }
    if (depth >= INPUT_BOUNDS.maxDepth) {
      return { bound: 'depth', path: pathOf(node), found: Array.isArray(value) ? 'an array' : 'an object' };
    }
    if (Array.isArray(value)) {
      // Brackets and commas: an array longer than the budget is over it before its items count.
      bytes += 2 + Math.max(0, value.length - 1);
      if (bytes > INPUT_BOUNDS.maxJsonBytes) return tooLarge;
      for (let index = value.length - 1; index >= 0; index -= 1) {
        pending.push({ value: value[index] as unknown, depth: depth + 1, parent: node, key: index });
      }
      continue;
    }
    const keys = Object.keys(value);
    bytes += 2;
    let members = 0;
    for (let index = keys.length - 1; index >= 0 && bytes <= INPUT_BOUNDS.maxJsonBytes; index -= 1) {
      const key = keys[index] as string;
      const item = (value as Readonly<Record<string, unknown>>)[key];
      // JSON.stringify leaves such members out, and their commas.
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      // The key, its colon, and a comma before every member but the first.
      bytes += stringJsonBytes(key, INPUT_BOUNDS.maxJsonBytes - bytes) + 1 + (members > 0 ? 1 : 0);
      members += 1;
      pending.push({ value: item, depth: depth + 1, parent: node, key });
    }
    if (bytes > INPUT_BOUNDS.maxJsonBytes) return tooLarge;
  }
  return undefined;
}

/** Where a text scan is inside the document: one frame per open object or array. */
interface TextFrame {
  readonly kind: 'array' | 'object';
  /** The index of the current item (arrays). */
  index: number;
  /** The key of the current member (objects), once read. */
  key: string | undefined;
  /** Inside an object, before a member's key (at its start or after a comma). */
  expectingKey: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;

/** A key as JSON text (quotes included) as JSON.parse would read it; a malformed one as written. */
function decodedKey(raw: string): string {
  try {
    const key: unknown = JSON.parse(raw);
    return typeof key === 'string' ? key : raw;
  } catch {
    return raw;
  }
}

/**
 * The first object or array of JSON `text` nested deeper than `maxDepth`, found before the text is
 * parsed: JSON.parse builds every level of a deep document before anything can look at it, and a
 * body nested 100,000 levels deep takes it a noticeable time. One pass that stops at the first
 * level beyond the bound, keeping one frame per open level (so at most `maxDepth` of them): time
 * and memory are bounded by where the crossing is, not by the text. Malformed JSON is left to
 * JSON.parse to report, unless it crosses the bound first.
 */
export function firstTextDepthCrossing(
  text: string,
  maxDepth: number = INPUT_BOUNDS.maxDepth,
): Extract<BoundCrossing, { bound: 'depth' }> | undefined {
  const frames: TextFrame[] = [];
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    const top = frames[frames.length - 1];
    if (code === QUOTE) {
      let end = index + 1;
      while (end < text.length && text.charCodeAt(end) !== QUOTE) {
        end += text.charCodeAt(end) === BACKSLASH ? 2 : 1;
      }
      if (top?.kind === 'object' && top.expectingKey) {
        top.key = decodedKey(text.slice(index, end + 1));
        top.expectingKey = false;
      }
      index = end;
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (frames.length >= maxDepth) {
        const path = frames.map((frame) => (frame.kind === 'array' ? frame.index : (frame.key ?? '')));
        return { bound: 'depth', path, found: code === OPEN_ARRAY ? 'an array' : 'an object' };
      }
      const kind = code === OPEN_ARRAY ? 'array' : 'object';
      frames.push({ kind, index: 0, key: undefined, expectingKey: kind === 'object' });
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      frames.pop();
    } else if (code === COMMA && top !== undefined) {
      if (top.kind === 'array') top.index += 1;
      else top.expectingKey = true;
    }
  }
  return undefined;
}
