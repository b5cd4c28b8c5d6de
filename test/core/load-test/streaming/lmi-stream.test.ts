import { describe, expect, it } from '@jest/globals';
import type { StreamEvent } from '../../../../core/load-test/streaming/stream-events.js';
import { createStreamParser } from '../../../../core/load-test/streaming/stream-parser.js';
import { expectSameEventsAtEveryCut, parseChunks, utf8 } from './split-streams.js';

/** LMI rolling-batch lines as its jsonlines output formatter writes them (lmi_input_output_schema.md). */
const token = (id: number, text: string, extra: Record<string, unknown> = {}) => ({
  token: { id, text, log_prob: -0.5, ...extra },
});
const line = (value: unknown): string => `${JSON.stringify(value)}\n`;

const LMI_LINES = [
  token(304, 'Deep '),
  token(11157, 'Learning'),
  token(13, '\n'),
  {
    ...token(5972, ' field. ✓'),
    generated_text: 'Deep Learning\n field. ✓',
    details: { finish_reason: 'length', generated_tokens: 4, inputs: 'What is Deep Learning?' },
  },
];

const LMI_EVENTS: StreamEvent[] = [
  { kind: 'token', text: 'Deep ', special: false },
  { kind: 'token', text: 'Learning', special: false },
  { kind: 'token', text: '\n', special: false },
  { kind: 'token', text: ' field. ✓', special: false },
  { kind: 'usage', outputTokens: 4 },
  { kind: 'done', finishReason: 'length' },
];

describe('LMI stream parser', () => {
  it('reads a jsonlines stream the same at every cut of its bytes', () => {
    expectSameEventsAtEveryCut('lmi-jsonlines', LMI_LINES.map(line).join(''), LMI_EVENTS);
  });

  it('reads the sse output formatter the same at every cut, with or without blank lines between events', () => {
    const separated = LMI_LINES.map((value) => `data:${JSON.stringify(value)}\n\n`).join('');
    const adjacent = LMI_LINES.map((value) => `data:${JSON.stringify(value)}\n`).join('');

    expectSameEventsAtEveryCut('lmi-sse', separated, LMI_EVENTS);
    expectSameEventsAtEveryCut('lmi-sse', adjacent, LMI_EVENTS);
  });

  it('hands each sse data line over from the part that ends it, without waiting for a blank line', () => {
    const parser = createStreamParser('lmi-sse');

    const fromFirstPart = parser.push(utf8(`data:${JSON.stringify(LMI_LINES[0])}\n`));

    expect(fromFirstPart).toEqual([{ kind: 'token', text: 'Deep ', special: false }]);
  });

  it('reads every line of a body that arrives in one part, the last without a line end', () => {
    const body = LMI_LINES.map(line).join('').trimEnd();

    expect(parseChunks('lmi-jsonlines', [utf8(body)])).toEqual(LMI_EVENTS);
  });

  it('ends on a last line that has generated_text and no token', () => {
    const body =
      line(token(1, 'Hi')) +
      line({ generated_text: 'Hi', details: { finish_reason: 'stop', generated_tokens: 1 } });

    expect(parseChunks('lmi-jsonlines', [utf8(body)])).toEqual([
      { kind: 'token', text: 'Hi', special: false },
      { kind: 'usage', outputTokens: 1 },
      { kind: 'done', finishReason: 'stop' },
    ]);
  });

  it('reads special tokens as special (special_token)', () => {
    const body =
      line(token(1, 'Hi')) +
      line({ ...token(2, '<|eot_id|>', { special_token: true }), generated_text: 'Hi' });

    expect(parseChunks('lmi-jsonlines', [utf8(body)])).toEqual([
      { kind: 'token', text: 'Hi', special: false },
      { kind: 'token', text: '<|eot_id|>', special: true },
      { kind: 'done' },
    ]);
  });

  it('fails with a model error on the documented mid-stream error line, keeping the tokens before it', () => {
    const body =
      line(token(304, 'Deep ')) +
      line({
        token: { id: -1, text: '', log_prob: -1, special_token: true },
        generated_text: '',
        details: { finish_reason: 'error', generated_tokens: null, inputs: null },
      });

    expect(parseChunks('lmi-jsonlines', [utf8(body)])).toEqual([
      { kind: 'token', text: 'Deep ', special: false },
      {
        kind: 'failure',
        failure: {
          reason: 'model-error',
          message: 'LMI JSON Lines stream error: the generation ended with finish_reason "error"',
        },
      },
    ]);
  });

  it('fails with a model error on a validation error object', () => {
    const body = line({ error: 'max_new_tokens must be positive', code: 424 });

    expect(parseChunks('lmi-jsonlines', [utf8(body)])).toEqual([
      {
        kind: 'failure',
        failure: {
          reason: 'model-error',
          message: 'LMI JSON Lines stream error: max_new_tokens must be positive (code 424)',
        },
      },
    ]);
  });

  it('fails as truncated when the body ends before the generated_text line', () => {
    expect(parseChunks('lmi-jsonlines', [utf8(line(token(304, 'Deep ')))])).toEqual([
      { kind: 'token', text: 'Deep ', special: false },
      {
        kind: 'failure',
        failure: {
          reason: 'truncated',
          message:
            'the LMI JSON Lines stream ended without its terminal event (a line with "generated_text"): the ' +
            'container closed the response before finishing',
        },
      },
    ]);
  });

  it('fails as malformed on a line cut short by the end of the body', () => {
    const body = line(token(304, 'Deep ')) + '{"token": {"id": 11157, "te';

    expect(parseChunks('lmi-jsonlines', [utf8(body)])).toEqual([
      { kind: 'token', text: 'Deep ', special: false },
      {
        kind: 'failure',
        failure: {
          reason: 'malformed',
          message:
            'unreadable LMI JSON Lines stream event: got "{\\"token\\": {\\"id\\": 11157, \\"te", expected a JSON ' +
            "object per line; check that the run's stream format matches the container's output",
        },
      },
    ]);
  });

  it('fails as malformed on an SSE stream read as JSON Lines', () => {
    const events = parseChunks('lmi-jsonlines', [utf8(`data:${JSON.stringify(LMI_LINES[0])}\n`)]);

    expect(events.map((read) => (read.kind === 'failure' ? read.failure.reason : read.kind))).toEqual([
      'malformed',
    ]);
  });
});
