import { describe, expect, it } from '@jest/globals';
import type { StreamEvent } from '../../../../core/load-test/streaming/stream-events.js';
import { createStreamParser } from '../../../../core/load-test/streaming/stream-parser.js';
import { expectSameEventsAtEveryCut, parseChunks, utf8 } from './split-streams.js';

/** A vLLM chat-completions stream with `stream_options.include_usage`, as its OpenAI server writes it. */
const chunk = (choices: unknown[], usage: unknown = null): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-7', object: 'chat.completion.chunk', created: 1, model: 'm', choices, usage })}\n\n`;
const delta = (content: string, finishReason: string | null = null) => ({
  index: 0,
  delta: { content },
  logprobs: null,
  finish_reason: finishReason,
});

const VLLM_CHAT =
  chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]) +
  chunk([delta('Deep')]) +
  chunk([delta(' learning')]) +
  chunk([delta(' — café 🙂')]) +
  chunk([delta('', 'stop')]) +
  chunk([], { prompt_tokens: 5, total_tokens: 9, completion_tokens: 4 }) +
  'data: [DONE]\n\n';

const VLLM_CHAT_EVENTS: StreamEvent[] = [
  { kind: 'token', text: 'Deep', special: false },
  { kind: 'token', text: ' learning', special: false },
  { kind: 'token', text: ' — café 🙂', special: false },
  { kind: 'done', finishReason: 'stop' },
  { kind: 'usage', outputTokens: 4, inputTokens: 5 },
];

describe('OpenAI-compatible stream parser', () => {
  it('reads a vLLM chat stream the same at every cut of its bytes', () => {
    expectSameEventsAtEveryCut('openai', VLLM_CHAT, VLLM_CHAT_EVENTS);
  });

  it('reads every event of a body that arrives in one part', () => {
    const events = parseChunks('openai', [utf8(VLLM_CHAT)]);

    expect(events).toEqual(VLLM_CHAT_EVENTS);
  });

  it('hands an event over from the part that ends it with its blank line, not before', () => {
    const parser = createStreamParser('openai');
    const event = chunk([delta('Deep')]);

    const beforeBlankLine = parser.push(utf8(event.slice(0, -1)));
    const withBlankLine = parser.push(utf8('\n'));

    expect({ beforeBlankLine, withBlankLine }).toEqual({
      beforeBlankLine: [],
      withBlankLine: [{ kind: 'token', text: 'Deep', special: false }],
    });
  });

  it('reads the completions form (choices[0].text) with CRLF line ends and keep-alive comments', () => {
    const body =
      ': keep-alive\r\n\r\n' +
      'data: {"object":"text_completion","choices":[{"index":0,"text":" Paris","finish_reason":null}]}\r\n\r\n' +
      'data: {"object":"text_completion","choices":[{"index":0,"text":".","finish_reason":"length"}]}\r\n\r\n' +
      'data: [DONE]\r\n\r\n';

    expectSameEventsAtEveryCut('openai', body, [
      { kind: 'token', text: ' Paris', special: false },
      { kind: 'token', text: '.', special: false },
      { kind: 'done', finishReason: 'length' },
    ]);
  });

  it('reads a stream without usage as tokens only (the count is then the events)', () => {
    const body = chunk([delta('Hi')]) + chunk([delta('', 'stop')]) + 'data: [DONE]\n\n';

    expect(parseChunks('openai', [utf8(body)])).toEqual([
      { kind: 'token', text: 'Hi', special: false },
      { kind: 'done', finishReason: 'stop' },
    ]);
  });

  it('keeps the last usage of a stream that reports it on every chunk (continuous_usage_stats)', () => {
    const body =
      chunk([delta('a')], { prompt_tokens: 3, completion_tokens: 1 }) +
      chunk([delta('b', 'stop')], { prompt_tokens: 3, completion_tokens: 2 }) +
      'data: [DONE]\n\n';

    expect(parseChunks('openai', [utf8(body)])).toEqual([
      { kind: 'token', text: 'a', special: false },
      { kind: 'usage', outputTokens: 1, inputTokens: 3 },
      { kind: 'token', text: 'b', special: false },
      { kind: 'usage', outputTokens: 2, inputTokens: 3 },
      { kind: 'done', finishReason: 'stop' },
    ]);
  });

  it('reads only choice 0, and the usage of a chunk sent with "choices": null', () => {
    const body =
      chunk([{ index: 1, delta: { content: 'other' }, finish_reason: null }, delta('mine')]) +
      `data: ${JSON.stringify({ choices: null, usage: { completion_tokens: 1 } })}\n\n` +
      'data: [DONE]\n\n';

    expect(parseChunks('openai', [utf8(body)])).toEqual([
      { kind: 'token', text: 'mine', special: false },
      { kind: 'usage', outputTokens: 1 },
      { kind: 'done' },
    ]);
  });

  it('fails with a model error on an error chunk after tokens, keeping the tokens before it', () => {
    const body =
      chunk([delta('Deep')]) +
      'data: {"error":{"object":"error","message":"CUDA out of memory","type":"InternalServerError","param":null,"code":500}}\n\n' +
      chunk([delta(' ignored')]);

    expect(parseChunks('openai', [utf8(body)])).toEqual([
      { kind: 'token', text: 'Deep', special: false },
      {
        kind: 'failure',
        failure: {
          reason: 'model-error',
          message: 'OpenAI-compatible stream error: InternalServerError: CUDA out of memory (code 500)',
        },
      },
    ]);
  });

  it('fails with a model error on the flat error object of older vLLM releases', () => {
    const body =
      'data: {"object":"error","message":"bad sampling params","type":"BadRequestError","code":400}\n\n';

    expect(parseChunks('openai', [utf8(body)])).toEqual([
      {
        kind: 'failure',
        failure: {
          reason: 'model-error',
          message: 'OpenAI-compatible stream error: BadRequestError: bad sampling params (code 400)',
        },
      },
    ]);
  });

  it('fails as truncated when the body ends before [DONE] or a finish_reason', () => {
    const body = chunk([delta('Deep')]) + chunk([delta(' learn')]);

    expect(parseChunks('openai', [utf8(body)])).toEqual([
      { kind: 'token', text: 'Deep', special: false },
      { kind: 'token', text: ' learn', special: false },
      {
        kind: 'failure',
        failure: {
          reason: 'truncated',
          message:
            'the OpenAI-compatible stream ended without its terminal event ("data: [DONE]" or a chunk with a ' +
            'finish_reason): the container closed the response before finishing',
        },
      },
    ]);
  });

  it('fails as malformed on an event that is not JSON, saying which format it expected', () => {
    const body = chunk([delta('Deep')]) + 'data: {"choices": [\n\n';

    expect(parseChunks('openai', [utf8(body)])).toEqual([
      { kind: 'token', text: 'Deep', special: false },
      {
        kind: 'failure',
        failure: {
          reason: 'malformed',
          message:
            'unreadable OpenAI-compatible stream event: got "{\\"choices\\": [", expected a JSON chunk object or ' +
            "[DONE]; check that the run's stream format matches the container's output",
        },
      },
    ]);
  });

  it('fails as malformed on a TGI stream read as OpenAI (no choices, no usage)', () => {
    const body =
      'data:{"token":{"id":1,"text":"a","logprob":-1,"special":false},"generated_text":null,"details":null}\n\n';

    expect(parseChunks('openai', [utf8(body)])).toEqual([
      {
        kind: 'failure',
        failure: {
          reason: 'malformed',
          message:
            'unreadable OpenAI-compatible stream event: got ' +
            JSON.stringify(
              '{"token":{"id":1,"text":"a","logprob":-1,"special":false},"generated_text":null,"details":null}',
            ) +
            ', expected a chunk with "choices" or "usage"; check that the run\'s stream format matches the container\'s output',
        },
      },
    ]);
  });

  it('refuses an event that never ends past the size limit instead of buffering it', () => {
    const events = parseChunks('openai', [utf8(`data: "${'x'.repeat(1_048_600)}`)]);

    expect(events).toEqual([
      {
        kind: 'failure',
        failure: {
          reason: 'malformed',
          message: 'unreadable OpenAI-compatible stream: a line is longer than 1048576 characters',
        },
      },
    ]);
  });

  it('fails as malformed on bytes that are not UTF-8', () => {
    const events = parseChunks('openai', [
      utf8(chunk([delta('a')])),
      new Uint8Array([0x64, 0x61, 0xff, 0x0a]),
    ]);

    expect(events).toEqual([
      { kind: 'token', text: 'a', special: false },
      {
        kind: 'failure',
        failure: {
          reason: 'malformed',
          message: 'unreadable OpenAI-compatible stream: the response is not valid UTF-8',
        },
      },
    ]);
  });
});
