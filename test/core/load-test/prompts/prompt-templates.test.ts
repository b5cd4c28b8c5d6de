import { describe, expect, it } from '@jest/globals';
import type { GenerationSettings, PromptFormat } from '../../../../core/contracts/prompt-set.js';
import type { Prompt } from '../../../../core/load-test/prompts/prompt-lines.js';
import { promptBody } from '../../../../core/load-test/prompts/prompt-templates.js';
import { parseGenerationRequest } from '../../../../local/model-server/generative/generation-request.js';

const GREEDY: GenerationSettings = { maxNewTokens: 32, temperature: 0 };
const SAMPLING: GenerationSettings = {
  maxNewTokens: 128,
  temperature: 0.7,
  topP: 0.9,
  topK: 40,
  seed: 7,
  stop: ['\n\n'],
};
const TEXT = { text: 'What is a load test?' };
const CHAT = {
  messages: [
    { role: 'system' as const, content: 'Answer briefly.' },
    { role: 'user' as const, content: 'What is a load test?' },
  ],
};

describe('promptBody', () => {
  it('builds TGI greedy decoding as do_sample false without a temperature (TGI refuses 0)', () => {
    // Act
    const body = promptBody(TEXT, 'tgi', GREEDY, true);

    // Assert
    expect(body).toEqual({
      inputs: 'What is a load test?',
      parameters: { max_new_tokens: 32, do_sample: false, details: true },
      stream: true,
    });
  });

  it("builds TGI sampling with TGI's parameter names", () => {
    // Act
    const body = promptBody(TEXT, 'tgi', SAMPLING, true);

    // Assert
    expect(body).toEqual({
      inputs: 'What is a load test?',
      parameters: {
        max_new_tokens: 128,
        do_sample: true,
        temperature: 0.7,
        top_p: 0.9,
        top_k: 40,
        seed: 7,
        stop: ['\n\n'],
        details: true,
      },
      stream: true,
    });
  });

  it("builds LMI sampling with LMI's stop_sequences", () => {
    // Act
    const body = promptBody(TEXT, 'lmi', SAMPLING, false);

    // Assert
    expect(body).toEqual({
      inputs: 'What is a load test?',
      parameters: {
        max_new_tokens: 128,
        do_sample: true,
        temperature: 0.7,
        top_p: 0.9,
        top_k: 40,
        seed: 7,
        stop_sequences: ['\n\n'],
        details: true,
      },
      stream: false,
    });
  });

  it('leaves out a topP of 1, which keeps every token and which TGI refuses', () => {
    // Act
    const body = promptBody(TEXT, 'tgi', { maxNewTokens: 8, temperature: 1, topP: 1 }, true);

    // Assert
    expect(body['parameters']).toEqual({ max_new_tokens: 8, do_sample: true, temperature: 1, details: true });
  });

  it('builds the OpenAI chat completion of a text prompt as one user message, with usage in the stream', () => {
    // Act
    const body = promptBody(TEXT, 'openai', GREEDY, true);

    // Assert
    expect(body).toEqual({
      messages: [{ role: 'user', content: 'What is a load test?' }],
      max_tokens: 32,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('builds the OpenAI chat completion of a chat prompt with its messages, without stream_options when it does not stream', () => {
    // Act
    const body = promptBody(CHAT, 'openai', { ...SAMPLING, topK: undefined }, false);

    // Assert
    expect(body).toEqual({
      messages: CHAT.messages,
      max_tokens: 128,
      temperature: 0.7,
      top_p: 0.9,
      seed: 7,
      stop: ['\n\n'],
      stream: false,
    });
  });

  it('refuses a chat prompt for a generate template', () => {
    // Act
    const act = () => promptBody(CHAT, 'tgi', GREEDY, true);

    // Assert
    expect(act).toThrow('a chat prompt has no tgi body: only the openai template takes messages');
  });

  const accepted: [PromptFormat, Prompt, GenerationSettings][] = [
    ['tgi', TEXT, GREEDY],
    ['tgi', TEXT, { ...SAMPLING, temperature: 1.5 }],
    ['lmi', TEXT, SAMPLING],
    ['openai', TEXT, GREEDY],
    ['openai', CHAT, { ...SAMPLING, topK: undefined }],
  ];
  it.each(accepted)(
    'builds a %s body the local generative model server accepts',
    (format, prompt, generation) => {
      // Prepare
      const body = JSON.stringify(promptBody(prompt, format, generation, true));

      // Act
      const request = parseGenerationRequest(body);

      // Assert
      expect({ maxNewTokens: request.maxNewTokens, stream: request.stream }).toEqual({
        maxNewTokens: generation.maxNewTokens,
        stream: true,
      });
    },
  );
});
