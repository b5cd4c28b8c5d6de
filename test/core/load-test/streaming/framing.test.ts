import { describe, expect, it } from '@jest/globals';
import { LineDecoder, SseDecoder } from '../../../../core/load-test/streaming/framing.js';
import { utf8 } from './split-streams.js';

function linesOf(parts: readonly Uint8Array[]): string[] {
  const decoder = new LineDecoder();
  const lines = parts.flatMap((part) => decoder.push(part).lines);
  return [...lines, ...decoder.end().lines];
}

describe('LineDecoder', () => {
  it('reads a CRLF split across two parts as one line end', () => {
    expect(linesOf([utf8('a\r'), utf8('\nb\n')])).toEqual(['a', 'b']);
  });

  it('ends a line at a lone CR, as the SSE grammar allows', () => {
    expect(linesOf([utf8('a\rb\r'), utf8('c\n')])).toEqual(['a', 'b', 'c']);
  });

  it('joins a multi-byte character split across parts', () => {
    const bytes = utf8('é🙂\n');

    expect(linesOf([bytes.subarray(0, 1), bytes.subarray(1, 4), bytes.subarray(4)])).toEqual(['é🙂']);
  });

  it('fails when the body ends inside a UTF-8 character', () => {
    const decoder = new LineDecoder();
    decoder.push(utf8('🙂').subarray(0, 2));

    expect(decoder.end()).toEqual({ lines: [], problem: 'the response ends inside a UTF-8 character' });
  });
});

describe('SseDecoder', () => {
  it('joins the data lines of one event with LF, removing one leading space from each', () => {
    const decoder = new SseDecoder();

    expect(decoder.push(['data: first', 'data:  second', 'data', ''])).toEqual({
      events: ['first\n second\n'],
    });
  });

  it('ignores comments, event, id and retry fields, and does not dispatch an event without data', () => {
    const decoder = new SseDecoder();

    expect(
      decoder.push([': ping', '', 'event: message', 'id: 7', 'retry: 10', '', 'data:', '', 'data: x', '']),
    ).toEqual({ events: ['x'] });
  });

  it('hands over at the end of the body an event not closed by a blank line', () => {
    const decoder = new SseDecoder();
    decoder.push(['data: [DONE]']);

    expect(decoder.end()).toEqual(['[DONE]']);
  });

  it('fails on an event longer than its limit instead of buffering it', () => {
    const decoder = new SseDecoder(8);

    expect(decoder.push(['data: 12345', 'data: 6789'])).toEqual({
      events: [],
      problem: 'an event is longer than 8 characters',
    });
  });
});
