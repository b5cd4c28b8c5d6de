import { describe, expect, it } from '@jest/globals';
import { generatedTokensOf } from '../../../core/async/generated-tokens.js';

const bytes = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

describe('generatedTokensOf', () => {
  it("counts TGI's answer from details.generated_tokens, with the prompt's input_length", () => {
    // Prepare: TGI's SageMaker route wraps the answer in a list.
    const body = bytes([
      {
        generated_text: ' a b c',
        details: { finish_reason: 'length', generated_tokens: 3, input_length: 7 },
      },
    ]);

    // Act
    const tokens = generatedTokensOf('tgi', body);

    // Assert
    expect(tokens).toEqual({ counted: true, outputTokens: 3, inputTokens: 7 });
  });

  it("takes TGI's prompt length from its prefill tokens when the release has no input_length", () => {
    // Prepare
    const prefill = [
      { id: 1, text: 'a' },
      { id: 2, text: 'b' },
    ];
    const body = bytes([{ generated_text: 'x', details: { generated_tokens: 1, prefill } }]);

    // Act
    const tokens = generatedTokensOf('tgi', body);

    // Assert
    expect(tokens).toEqual({ counted: true, outputTokens: 1, inputTokens: 2 });
  });

  it("counts LMI's answer, and adds up a list of answers", () => {
    // Prepare
    const one = bytes({ generated_text: 'x', details: { finish_reason: 'length', generated_tokens: 12 } });
    const list = bytes([
      { generated_text: 'x', details: { generated_tokens: 12 } },
      { generated_text: 'y', details: { generated_tokens: 5 } },
    ]);

    // Act
    const single = generatedTokensOf('lmi', one);
    const several = generatedTokensOf('lmi', list);

    // Assert
    expect(single).toEqual({ counted: true, outputTokens: 12 });
    expect(several).toEqual({ counted: true, outputTokens: 17 });
  });

  it('counts an OpenAI-compatible completion from its usage', () => {
    // Prepare
    const body = bytes({
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 9, completion_tokens: 21, total_tokens: 30 },
    });

    // Act
    const tokens = generatedTokensOf('openai', body);

    // Assert
    expect(tokens).toEqual({ counted: true, outputTokens: 21, inputTokens: 9 });
  });

  it('does not count an answer without details, and says how to get them', () => {
    // Prepare
    const body = bytes([{ generated_text: 'x' }]);

    // Act
    const tokens = generatedTokensOf('tgi', body);

    // Assert
    expect(tokens).toEqual({
      counted: false,
      reason:
        'the output has no details.generated_tokens: send "parameters": {"details": true} in each input to have the container count them',
    });
  });

  it('does not count an answer that is not JSON, naming the format expected', () => {
    // Act
    const tokens = generatedTokensOf('lmi', new TextEncoder().encode('plain text'));

    // Assert
    expect(tokens).toEqual({
      counted: false,
      reason: 'the output is not JSON, expected LMI\'s {"generated_text": …, "details": {…}}',
    });
  });

  it('does not count an answer of another format', () => {
    // Prepare: an OpenAI completion read as TGI.
    const body = bytes({ choices: [], usage: { completion_tokens: 3 } });

    // Act
    const tokens = generatedTokensOf('tgi', body);

    // Assert
    expect(tokens).toEqual({
      counted: false,
      reason: 'the output has no "generated_text", expected TGI\'s [{"generated_text": …, "details": {…}}]',
    });
  });

  it('does not count an OpenAI answer without usage', () => {
    // Act
    const tokens = generatedTokensOf('openai', bytes({ choices: [] }));

    // Assert
    expect(tokens).toEqual({
      counted: false,
      reason:
        'the output has no usage.completion_tokens: check that the route is a chat completion or completion',
    });
  });

  it('does not count an empty list', () => {
    // Act
    const tokens = generatedTokensOf('tgi', bytes([]));

    // Assert
    expect(tokens).toEqual({
      counted: false,
      reason: 'the output is not TGI\'s [{"generated_text": …, "details": {…}}]',
    });
  });
});
