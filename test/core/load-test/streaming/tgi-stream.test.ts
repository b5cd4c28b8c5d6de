import { describe, expect, it } from '@jest/globals';
import type { StreamEvent } from '../../../../core/load-test/streaming/stream-events.js';
import { expectSameEventsAtEveryCut, parseChunks, utf8 } from './split-streams.js';

/** TGI's generate_stream events as its router writes them: `data:` with no space, one blank line after. */
const event = (
  id: number,
  text: string,
  special = false,
  end?: { generated: string; details: unknown },
): string =>
  `data:${JSON.stringify({
    index: id,
    token: { id, text, logprob: -0.25, special },
    generated_text: end?.generated ?? null,
    details: end?.details ?? null,
  })}\n\n`;

const TGI_STREAM =
  event(1, 'Deep') +
  event(2, ' learning') +
  event(3, ' ') +
  event(4, 'naïve 🙂') +
  event(5, '</s>', true, {
    generated: 'Deep learning  naïve 🙂',
    details: { finish_reason: 'eos_token', generated_tokens: 5, seed: null, input_length: 7 },
  });

const TGI_EVENTS: StreamEvent[] = [
  { kind: 'token', text: 'Deep', special: false },
  { kind: 'token', text: ' learning', special: false },
  { kind: 'token', text: ' ', special: false },
  { kind: 'token', text: 'naïve 🙂', special: false },
  { kind: 'token', text: '</s>', special: true },
  { kind: 'usage', outputTokens: 5, inputTokens: 7 },
  { kind: 'done', finishReason: 'eos_token' },
];

describe('TGI stream parser', () => {
  it('reads a generate_stream response the same at every cut of its bytes', () => {
    expectSameEventsAtEveryCut('tgi', TGI_STREAM, TGI_EVENTS);
  });

  it('reads every event of a body that arrives in one part', () => {
    expect(parseChunks('tgi', [utf8(TGI_STREAM)])).toEqual(TGI_EVENTS);
  });

  it('ends on the generated_text event without usage when its details are absent', () => {
    const body = event(1, 'a') + event(2, 'b', false, { generated: 'ab', details: null });

    expect(parseChunks('tgi', [utf8(body)])).toEqual([
      { kind: 'token', text: 'a', special: false },
      { kind: 'token', text: 'b', special: false },
      { kind: 'done' },
    ]);
  });

  it('fails with a model error on an error event after tokens, keeping the tokens before it', () => {
    const body =
      event(1, 'Deep') +
      'data:{"error":"Request failed during generation: Server error: OOM","error_type":"generation"}\n\n';

    expect(parseChunks('tgi', [utf8(body)])).toEqual([
      { kind: 'token', text: 'Deep', special: false },
      {
        kind: 'failure',
        failure: {
          reason: 'model-error',
          message: 'TGI stream error: generation: Request failed during generation: Server error: OOM',
        },
      },
    ]);
  });

  it('fails as truncated when the body ends before the generated_text event', () => {
    expect(parseChunks('tgi', [utf8(event(1, 'Deep') + event(2, ' lea'))])).toEqual([
      { kind: 'token', text: 'Deep', special: false },
      { kind: 'token', text: ' lea', special: false },
      {
        kind: 'failure',
        failure: {
          reason: 'truncated',
          message:
            'the TGI stream ended without its terminal event (an event with "generated_text"): the container ' +
            'closed the response before finishing',
        },
      },
    ]);
  });

  it('fails as malformed on an event without a token, and reads nothing after it', () => {
    const body = 'data:{"generated_text":null}\n\n' + event(1, 'later');

    expect(parseChunks('tgi', [utf8(body)])).toEqual([
      {
        kind: 'failure',
        failure: {
          reason: 'malformed',
          message:
            'unreadable TGI stream event: got "{\\"generated_text\\":null}", expected a "token" object with a ' +
            `"text" string; check that the run's stream format matches the container's output`,
        },
      },
    ]);
  });

  it('fails as malformed on an OpenAI chunk read as TGI', () => {
    const events = parseChunks('tgi', [utf8('data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n')]);

    expect(events.map((read) => (read.kind === 'failure' ? read.failure.reason : read.kind))).toEqual([
      'malformed',
    ]);
  });
});
