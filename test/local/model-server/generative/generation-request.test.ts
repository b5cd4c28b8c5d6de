import { describe, expect, it } from '@jest/globals';

import {
  DEFAULT_MAX_NEW_TOKENS,
  GenerationRequestError,
  parseGenerationRequest,
} from '../../../../local/model-server/generative/generation-request.js';

function issuesOf(body: unknown): unknown {
  try {
    parseGenerationRequest(typeof body === 'string' ? body : JSON.stringify(body));
  } catch (error) {
    if (error instanceof GenerationRequestError) return error.issues;
    throw error;
  }
  throw new Error('expected the request to be refused');
}

describe('parseGenerationRequest', () => {
  it('reads an OpenAI chat completion: messages joined, max_tokens, temperature, seed, stream and usage', () => {
    // Act
    const request = parseGenerationRequest(
      JSON.stringify({
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'which instance' },
        ],
        max_tokens: 12,
        temperature: 0,
        seed: 3,
        stream: true,
        stream_options: { include_usage: true },
        top_p: 0.9,
      }),
    );

    // Assert
    expect(request).toEqual({
      api: 'chat',
      prompt: 'be brief\nwhich instance',
      maxNewTokens: 12,
      temperature: 0,
      seed: 3,
      stream: true,
      includeUsage: true,
      details: false,
    });
  });

  it('reads a TGI generate request, greedy unless do_sample, with the default max_new_tokens', () => {
    // Act
    const greedy = parseGenerationRequest(
      JSON.stringify({ inputs: 'hello', parameters: { temperature: 0.5 } }),
    );
    const sampled = parseGenerationRequest(
      JSON.stringify({ inputs: 'hello', parameters: { do_sample: true, temperature: 0.5 }, stream: true }),
    );

    // Assert
    expect(greedy).toEqual({
      api: 'generate',
      prompt: 'hello',
      maxNewTokens: DEFAULT_MAX_NEW_TOKENS,
      temperature: 0,
      stream: false,
      includeUsage: false,
      details: false,
    });
    expect(sampled).toMatchObject({ temperature: 0.5, stream: true });
  });

  it('takes max_completion_tokens as the chat limit when it is given', () => {
    // Act
    const request = parseGenerationRequest(
      JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 7 }),
    );

    // Assert
    expect(request.maxNewTokens).toBe(7);
  });

  it('refuses a body that is not JSON', () => {
    // Act / Assert
    expect(issuesOf('inputs=hello')).toEqual([
      { field: 'body', given: '"inputs=hello"', expected: 'a JSON object (Content-Type application/json)' },
    ]);
  });

  it('refuses a body with neither messages nor inputs', () => {
    // Act / Assert
    expect(issuesOf({ prompt: 'hello' })).toEqual([
      {
        field: 'body',
        given: '{"prompt":"hello"}',
        expected: 'an object with "messages" (OpenAI chat completion) or "inputs" (TGI/LMI generate)',
      },
    ]);
  });

  it('refuses a chat request naming each bad field', () => {
    // Act / Assert
    expect(
      issuesOf({
        messages: [{ role: 'user', content: 'hi' }, { role: 'user' }],
        max_tokens: 2000,
        stream_options: { include_usage: 'yes' },
      }),
    ).toEqual([
      {
        field: 'messages[1]',
        given: '{"role":"user"}',
        expected: 'an object with a "role" string and a "content" string',
      },
      { field: 'max_tokens', given: '2000', expected: 'an integer from 1 to 1024' },
      { field: 'stream_options.include_usage', given: '"yes"', expected: 'true or false' },
    ]);
  });

  it('refuses a TGI temperature of 0 even without do_sample, as TGI does', () => {
    // Act / Assert
    expect(issuesOf({ inputs: 'hi', parameters: { temperature: 0 } })).toEqual([
      {
        field: 'parameters.temperature',
        given: '0',
        expected: 'a number above 0 (for greedy decoding, leave do_sample false)',
      },
    ]);
  });

  it('refuses inputs that are not a string', () => {
    // Act / Assert
    expect(issuesOf({ inputs: ['a', 'b'] })).toEqual([
      { field: 'inputs', given: '["a","b"]', expected: 'the prompt as a string' },
    ]);
  });
});
