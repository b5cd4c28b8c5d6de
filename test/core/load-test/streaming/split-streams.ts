import { isDeepStrictEqual } from 'node:util';
import { expect } from '@jest/globals';
import fc from 'fast-check';
import { createStreamParser } from '../../../../core/load-test/streaming/stream-parser.js';
import type { StreamEvent } from '../../../../core/load-test/streaming/stream-events.js';
import type { StreamFormat } from '../../../../core/contracts/stream-format.js';

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/**
 * `expect(actual).toEqual(expected)` for assertions repeated thousands of times: jest's expect()
 * builds every matcher and an Error on each call, most of these loops' CPU. Strictly equal values
 * always pass toEqual, so only values that differ go to jest, which gives the verdict and the diff.
 */
export function expectEqual(actual: unknown, expected: unknown): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual).toEqual(expected);
}

/** Every event a fresh parser reads from these chunks, then from the end of the body. */
export function parseChunks(format: StreamFormat, chunks: readonly Uint8Array[]): StreamEvent[] {
  const parser = createStreamParser(format);
  const events: StreamEvent[] = [];
  for (const chunk of chunks) events.push(...parser.push(chunk));
  events.push(...parser.end());
  return events;
}

/** The body cut at the given byte offsets (sorted, duplicates giving empty parts). */
export function cutAt(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const sorted = [...offsets].sort((a, b) => a - b);
  const parts: Uint8Array[] = [];
  let start = 0;
  for (const offset of sorted) {
    parts.push(bytes.subarray(start, offset));
    start = offset;
  }
  parts.push(bytes.subarray(start));
  return parts;
}

/**
 * The parser reads the same events whatever the cuts: in two at every byte position (inside JSON,
 * inside a line end, inside a multi-byte character), one byte per part, and at 300 random sets of
 * up to 12 cuts.
 */
export function expectSameEventsAtEveryCut(
  format: StreamFormat,
  body: string,
  expected: readonly StreamEvent[],
): void {
  const bytes = utf8(body);
  for (let offset = 0; offset <= bytes.length; offset++) {
    expectEqual(
      { offset, events: parseChunks(format, cutAt(bytes, [offset])) },
      { offset, events: expected },
    );
  }
  const bytePerPart = Array.from(bytes, (_, index) => bytes.subarray(index, index + 1));
  expect(parseChunks(format, bytePerPart)).toEqual(expected);
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: bytes.length }), { maxLength: 12 }), (offsets) => {
      expectEqual(parseChunks(format, cutAt(bytes, offsets)), expected);
    }),
    { numRuns: 300 },
  );
}
