import { describe, expect, it } from '@jest/globals';
import { preparePromptSet } from '../../../../core/load-test/prompts/prompt-set.js';

const SETTINGS = {
  format: 'tgi' as const,
  stream: true,
  generation: { maxNewTokens: 16, temperature: 0 },
  buckets: [{ name: 'short', maxChars: 10 }, { name: 'long' }],
};
const BOUNDS = {
  field: 'prompts.uri',
  maxBodyBytes: { bytes: 1000, limit: "SageMaker's real-time payload limit" },
};
const LINE_EXPECTED =
  'one JSON object a line: {"prompt": "…"} or {"messages": [{"role": "user", "content": "…"}]}';

function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function bodies(set: ReturnType<typeof preparePromptSet>): Record<string, unknown[]> {
  return Object.fromEntries(
    set.buckets.map((bucket) => [
      bucket.name,
      bucket.requests.map((request) => JSON.parse(new TextDecoder().decode(request.body)) as unknown),
    ]),
  );
}

describe('preparePromptSet', () => {
  it('builds each prompt into the bucket of its length, skipping blank lines and CRLF ends', () => {
    // Prepare
    const file = '{"prompt": "hi"}\r\n\n{"prompt": "a longer prompt"}\n{"prompt": "yo"}\n';

    // Act
    const set = preparePromptSet(bytes(file), SETTINGS, BOUNDS);

    // Assert
    const body = (inputs: string) => ({
      inputs,
      parameters: { max_new_tokens: 16, do_sample: false, details: true },
      stream: true,
    });
    expect(set.issues).toEqual([]);
    expect(bodies(set)).toEqual({ short: [body('hi'), body('yo')], long: [body('a longer prompt')] });
    const size = (...inputs: string[]) =>
      inputs.reduce((sum, text) => sum + JSON.stringify(body(text)).length, 0);
    expect(set.buckets.map((bucket) => [bucket.name, bucket.bytes, bucket.requests[0]?.contentType])).toEqual(
      [
        ['short', size('hi', 'yo'), 'application/json'],
        ['long', size('a longer prompt'), 'application/json'],
      ],
    );
  });

  it('refuses every bad line, naming its number and its problem', () => {
    // Prepare
    const file = [
      '{"prompt": "ok"}',
      '{"promt": "typo"}',
      'not json',
      '{"prompt": ""}',
      '{"messages": [{"role": "robot", "content": "x"}]}',
      '["prompt"]',
    ].join('\n');

    // Act
    const set = preparePromptSet(bytes(file), { ...SETTINGS, format: 'openai' }, BOUNDS);

    // Assert
    expect(set.issues).toEqual([
      {
        field: 'prompts.uri line 2',
        given: '{"promt": "typo"} (the key "promt" is not "prompt" or "messages")',
        expected: LINE_EXPECTED,
      },
      {
        field: 'prompts.uri line 3',
        given: expect.stringMatching(
          /^not json \(the line is not JSON \(Unexpected token/,
        ) as unknown as string,
        expected: LINE_EXPECTED,
      },
      {
        field: 'prompts.uri line 4',
        given: '{"prompt": ""} ("prompt" is not a non-empty string)',
        expected: LINE_EXPECTED,
      },
      {
        field: 'prompts.uri line 5',
        given:
          '{"messages": [{"role": "robot", "content": "x"}]} (messages[0].role is "robot" (one of system, user, assistant))',
        expected: LINE_EXPECTED,
      },
      {
        field: 'prompts.uri line 6',
        given: '["prompt"] (the line is JSON but not an object)',
        expected: LINE_EXPECTED,
      },
    ]);
  });

  it('refuses a chat prompt for the tgi template, at its line', () => {
    // Prepare
    const file = '{"prompt": "ok"}\n{"messages": [{"role": "user", "content": "hello"}]}\n';

    // Act
    const set = preparePromptSet(bytes(file), SETTINGS, BOUNDS);

    // Assert
    expect(set.issues).toEqual([
      {
        field: 'prompts.uri line 2',
        given: 'a chat prompt ("messages") for the tgi template',
        expected:
          '{"prompt": "…"} lines (the tgi generate request takes text; the chat template that would flatten messages is the model\'s), or the openai format',
      },
    ]);
  });

  it("refuses a prompt whose body passes the endpoint's limit", () => {
    // Prepare: 1,000 characters of prompt and 95 of the template around it.
    const file = JSON.stringify({ prompt: 'x'.repeat(1000) });

    // Act
    const set = preparePromptSet(bytes(file), SETTINGS, BOUNDS);

    // Assert
    expect(set.issues).toEqual([
      {
        field: 'prompts.uri line 1',
        given: 'a prompt whose request body is 1095 bytes',
        expected: "at most 1000 bytes (SageMaker's real-time payload limit): a shorter prompt",
      },
    ]);
  });

  it('refuses a file without a prompt', () => {
    // Act
    const set = preparePromptSet(bytes('\n\n'), SETTINGS, BOUNDS);

    // Assert
    expect(set.issues).toEqual([
      {
        field: 'prompts.uri',
        given: 'a file without a prompt',
        expected: `at least one line: ${LINE_EXPECTED}`,
      },
    ]);
  });

  it('refuses bytes that are not UTF-8', () => {
    // Act
    const set = preparePromptSet(new Uint8Array([0x7b, 0xff, 0x7d]), SETTINGS, BOUNDS);

    // Assert
    expect(set.issues).toEqual([
      { field: 'prompts.uri', given: '3 bytes that are not UTF-8', expected: `${LINE_EXPECTED}, in UTF-8` },
    ]);
  });

  it('refuses more lines than a load worker holds', () => {
    // Prepare
    const file = '{"prompt": "a"}\n'.repeat(10_001);

    // Act
    const set = preparePromptSet(bytes(file), SETTINGS, BOUNDS);

    // Assert
    expect(set.issues).toEqual([
      {
        field: 'prompts.uri',
        given: '10001 prompt lines',
        expected: 'at most 10000 (every load worker holds every prompt in memory): a sample of the prompts',
      },
    ]);
  });
});
