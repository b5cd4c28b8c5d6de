import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  createFramedStreamParser,
  createStreamParser,
} from '../../../../core/load-test/streaming/stream-parser.js';
import type { StreamEventSink } from '../../../../core/load-test/streaming/stream-parser.js';
import type { StreamFormat } from '../../../../core/contracts/stream-format.js';
import type { StreamEvent } from '../../../../core/load-test/streaming/stream-events.js';
import { cutAt, expectEqual, utf8 } from './split-streams.js';

type Parser = ReturnType<typeof createStreamParser>;

function eventsOf(parser: Parser, parts: readonly Uint8Array[]): StreamEvent[] {
  const events: StreamEvent[] = [];
  for (const part of parts) events.push(...parser.push(part));
  events.push(...parser.end());
  return events;
}

/** What the engine's sink sees: token counts and visibility through `read`, the rest as events. */
function sinkView(parser: Parser, parts: readonly Uint8Array[]): string[] {
  const seen: string[] = [];
  const sink: StreamEventSink = {
    token: (_bytes, start, end, special) => seen.push(`token ${end > start && !special}`),
    event: (event) =>
      seen.push(event.kind === 'token' ? `token ${event.text !== '' && !event.special}` : event.kind),
  };
  for (const part of parts) parser.read(part, sink);
  parser.finish(sink);
  return seen;
}

const viewOfEvents = (events: readonly StreamEvent[]): string[] =>
  events.map((event) =>
    event.kind === 'token' ? `token ${event.text !== '' && !event.special}` : event.kind,
  );

/** The scanning parser reads what the string parser reads, at these cuts, through push and read. */
function expectSameAsStringParser(format: StreamFormat, body: Uint8Array, cuts: readonly number[]): void {
  const parts = cutAt(body, cuts);
  const expected = eventsOf(createFramedStreamParser(format, 64), parts);

  expectEqual(eventsOf(createStreamParser(format, 64), parts), expected);
  expectEqual(sinkView(createStreamParser(format, 64), parts), viewOfEvents(expected));
}

const FORMATS: readonly StreamFormat[] = ['tgi', 'lmi-jsonlines', 'lmi-sse', 'openai'];

/** Pieces of streams: well-formed events, near misses of their shapes, and framing oddities. */
const PIECES: readonly string[] = [
  'data:{"index":1,"token":{"id":1,"text":"Deep","logprob":-0.25,"special":false},"generated_text":null,"details":null}\n\n',
  'data: {"token":{"id":2,"text":" naïve 🙂","special":true},"generated_text":null}\n\n',
  'data:{"token":{"id":3,"text":"a\\"b\\\\c\\u00e9\\n","special":false}}\n\n',
  'data:{"token":{"text":"x","text":"y"}}\n\n',
  'data:{"tok\\u0065n":{"text":"z"}}\n\n',
  'data:{"token":{"text":""},"generated_text":"all","details":{"finish_reason":"length","generated_tokens":3,"input_length":2}}\n\n',
  'data:{"error":"boom","error_type":"generation"}\n\n',
  'data:{"token":{"text":1}}\n\n',
  'data:{"token":[1],"generated_text":null}\n\n',
  'data:{"token":{"text":"t","special":true,"special":false}}\n\n',
  '{"token":{"id":304,"text":"Deep ","log_prob":-0.5}}\n',
  '{"token":{"id":5,"text":"<eot>","log_prob":-0.5,"special_token":true}}\n',
  '{"token":{"id":1,"text":"end"},"generated_text":"x","details":{"finish_reason":"stop","generated_tokens":4}}\n',
  '{"token":{"id":-1,"text":"","special_token":true},"generated_text":null,"details":{"finish_reason":"error"}}\n',
  '{"details":null,"token":{"text":"q"}}\n',
  '{"error":"bad input","code":424}\n',
  'data:{"token":{"id":9,"text":"sse"}}\n',
  'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hel"},"logprobs":null,"finish_reason":null}],"usage":null}\n\n',
  'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\n',
  'data: {"choices":[{"index":1,"delta":{"content":"other"}},{"delta":{"content":"mine"}}]}\n\n',
  'data: {"choices":[{"index":0.0,"delta":{"content":"zero"}}]}\n\n',
  'data: {"choices":[{"index":"0","text":"legacy"}]}\n\n',
  'data: {"choices":[{"text":"legacy text","finish_reason":null}]}\n\n',
  'data: {"choices":[{"delta":"not an object","text":"fallback"}]}\n\n',
  'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n',
  'data: {"choices":[],"usage":{"completion_tokens":3,"prompt_tokens":1}}\n\n',
  'data: {"object":"error","message":"flat"}\n\n',
  'data: {"error":{"message":"nested","type":"X","code":500}}\n\n',
  'data: {"choices":null}\n\n',
  'data: [DONE]\n\n',
  'data: {"choices":[{"delta":{"content":"two"}}]}\r\n\r\n',
  'data: {"choices":[{"delta":{"content":"cr"}}]}\r\r',
  ': keep-alive\n\n',
  'event: message\nid: 4\ndata: {"choices":[{"delta":\ndata: {"content":"split"}}]}\n\n',
  'data\n\n',
  'data:\n\n',
  '\u00a0{"token":{"text":"nbsp"}}\n',
  'data:\u00a0{"token":{"text":"nbsp"}}\n',
  '   \n',
  '{"token":{"text":"no end of line"}}',
  'data: {"token":{"text":"' + 'long '.repeat(20) + '"}}\n\n',
  'data:{"token":{"text":"bad \u0001 control"}}\n\n',
  'data:{"token":{"text":"t"}} trailing\n\n',
  'data:{"token":{"text":"t"},}\n\n',
  'data:{"token":{"text":"t", "n": 01}}\n\n',
  'data:{"token":{"text":"t", "n": -1.5e+3, "b": [true, false, null, {}]}}\n\n',
];

/** Bytes no string holds: invalid UTF-8, an incomplete character, a byte order mark. */
const RAW_PIECES: readonly Uint8Array[] = [
  Uint8Array.of(0xff),
  Uint8Array.of(0xed, 0xa0, 0x80),
  Uint8Array.of(0xf0, 0x9f),
  Uint8Array.of(0xef, 0xbb, 0xbf),
];

const piece = fc.oneof(
  { weight: 9, arbitrary: fc.constantFrom(...PIECES).map(utf8) },
  { weight: 1, arbitrary: fc.constantFrom(...RAW_PIECES) },
);

const concat = (parts: readonly Uint8Array[]): Uint8Array => {
  const body = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    body.set(part, at);
    at += part.length;
  }
  return body;
};

describe('scanning stream parser', () => {
  it('reads the same events as the string parser, for any pieces of streams cut anywhere', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FORMATS),
        fc.array(piece, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (format, pieces, cutSeeds) => {
          const body = concat(pieces);
          const cuts = cutSeeds.map((seed) => seed % (body.length + 1));
          expectSameAsStringParser(format, body, cuts);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('reads the same events as the string parser for each piece alone, at every cut', () => {
    for (const format of FORMATS) {
      for (const text of PIECES) {
        const body = utf8(text);
        for (let offset = 0; offset <= body.length; offset++)
          expectSameAsStringParser(format, body, [offset]);
      }
    }
  });

  it('hands a token of a plain token event to the sink as the bytes of its text, not as an event', () => {
    const parser = createStreamParser('tgi');
    const tokens: string[] = [];
    const events: StreamEvent[] = [];

    parser.read(utf8('data:{"token":{"id":1,"text":"Deep","special":false},"generated_text":null}\n\n'), {
      token: (bytes, start, end, special) =>
        tokens.push(`${new TextDecoder().decode(bytes.subarray(start, end))} ${special}`),
      event: (event) => events.push(event),
    });

    expect({ tokens, events }).toEqual({ tokens: ['Deep false'], events: [] });
  });
});
