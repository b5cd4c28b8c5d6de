import { describe, expect, it } from '@jest/globals';

import { createStreamParser } from '../../../../core/load-test/streaming/index.js';
import type { StreamEvent } from '../../../../core/load-test/streaming/index.js';
import type { GenerationRequest } from '../../../../local/model-server/generative/generation-request.js';
import type {
  GeneratedToken,
  GenerationSummary,
} from '../../../../local/model-server/generative/generation-scheduler.js';
import {
  completeResponse,
  streamWriterFor,
} from '../../../../local/model-server/generative/response-formats.js';
import type { GenerateFormat } from '../../../../local/model-server/generative/response-formats.js';

const generate: GenerationRequest = {
  api: 'generate',
  prompt: 'the model',
  maxNewTokens: 2,
  temperature: 0,
  stream: true,
  includeUsage: false,
  details: true,
};
const chat: GenerationRequest = { ...generate, api: 'chat', includeUsage: true, details: false };

const word: GeneratedToken = { id: 40, text: ' cost', special: false, logprob: -0.5 };
const eos: GeneratedToken = { id: 0, text: '</s>', special: true, logprob: -2 };
const byLength: GenerationSummary = {
  finishReason: 'length',
  generatedTokens: 2,
  inputTokens: 3,
  text: ' cost cost',
};
const byEos: GenerationSummary = {
  finishReason: 'eos_token',
  generatedTokens: 2,
  inputTokens: 3,
  text: ' cost',
};

/** What the project's parser for `format` reads from the bytes a writer produced. */
function parse(format: Parameters<typeof createStreamParser>[0], text: string): StreamEvent[] {
  const parser = createStreamParser(format);
  return [...parser.push(new TextEncoder().encode(text)), ...parser.end()];
}

describe('stream writers', () => {
  it('writes TGI events with generated_text and details on the last one only', () => {
    // Prepare
    const writer = streamWriterFor(generate, 'tgi');

    // Act
    const body = writer.start() + writer.token(word, undefined) + writer.token(word, byLength);

    // Assert
    expect(writer.contentType).toBe('text/event-stream');
    expect(body).toBe(
      'data: {"index":1,"token":{"id":40,"text":" cost","logprob":-0.5,"special":false},"generated_text":null,"details":null}\n\n' +
        'data: {"index":2,"token":{"id":40,"text":" cost","logprob":-0.5,"special":false},"generated_text":" cost cost",' +
        '"details":{"finish_reason":"length","generated_tokens":2,"input_length":3,"seed":null}}\n\n',
    );
  });

  it.each<[GenerateFormat, Parameters<typeof createStreamParser>[0]]>([
    ['tgi', 'tgi'],
    ['lmi-jsonlines', 'lmi-jsonlines'],
    ['lmi-sse', 'lmi-sse'],
  ])('writes %s events that its parser reads as tokens, usage and done', (format, parserFormat) => {
    // Prepare
    const writer = streamWriterFor(generate, format);

    // Act
    const events = parse(
      parserFormat,
      writer.start() + writer.token(word, undefined) + writer.token(eos, byEos),
    );

    // Assert
    expect(events).toEqual([
      { kind: 'token', text: ' cost', special: false },
      { kind: 'token', text: '</s>', special: true },
      { kind: 'usage', outputTokens: 2, ...(format === 'tgi' ? { inputTokens: 3 } : {}) },
      { kind: 'done', finishReason: 'eos_token' },
    ]);
  });

  it('writes the OpenAI role chunk, one chunk per word, the finish chunk and the usage chunk before [DONE]', () => {
    // Prepare
    const writer = streamWriterFor(chat, 'tgi');

    // Act: the end token is not content, it ends the completion with finish_reason "stop".
    const events = parse('openai', writer.start() + writer.token(word, undefined) + writer.token(eos, byEos));

    // Assert
    expect(events).toEqual([
      { kind: 'token', text: ' cost', special: false },
      { kind: 'done', finishReason: 'stop' },
      { kind: 'usage', outputTokens: 2, inputTokens: 3 },
    ]);
  });

  it.each<[string, GenerationRequest, GenerateFormat, Parameters<typeof createStreamParser>[0], string]>([
    ['tgi', generate, 'tgi', 'tgi', 'TGI stream error: generation: deadline passed'],
    [
      'lmi-jsonlines',
      generate,
      'lmi-jsonlines',
      'lmi-jsonlines',
      'LMI JSON Lines stream error: the generation ended with finish_reason "error"',
    ],
    [
      'lmi-sse',
      generate,
      'lmi-sse',
      'lmi-sse',
      'LMI SSE stream error: the generation ended with finish_reason "error"',
    ],
    [
      'openai',
      chat,
      'tgi',
      'openai',
      'OpenAI-compatible stream error: InternalServerError: deadline passed (code 500)',
    ],
  ])(
    'writes a %s failure after the 200 that its parser reads as a model error',
    (_label, request, format, parserFormat, message) => {
      // Prepare
      const writer = streamWriterFor(request, format);

      // Act
      const events = parse(
        parserFormat,
        writer.start() + writer.token(word, undefined) + writer.fail('deadline passed'),
      );

      // Assert
      expect(events.at(-1)).toEqual({ kind: 'failure', failure: { reason: 'model-error', message } });
    },
  );
});

describe('completeResponse', () => {
  it('answers a TGI generate request with a one-element list, details when asked', () => {
    // Act / Assert
    expect(completeResponse(generate, 'tgi', byLength)).toEqual([
      {
        generated_text: ' cost cost',
        details: { finish_reason: 'length', generated_tokens: 2, input_length: 3 },
      },
    ]);
  });

  it('answers an LMI generate request with one object', () => {
    // Act / Assert
    expect(completeResponse({ ...generate, details: false }, 'lmi-jsonlines', byLength)).toEqual({
      generated_text: ' cost cost',
    });
  });

  it('answers a chat request with a chat.completion and its usage', () => {
    // Act
    const answer = completeResponse(chat, 'tgi', byEos);

    // Assert
    expect(answer).toMatchObject({
      object: 'chat.completion',
      model: 'example-generative',
      choices: [{ index: 0, message: { role: 'assistant', content: ' cost' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
  });
});
