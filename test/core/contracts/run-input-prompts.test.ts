import { describe, expect, it } from '@jest/globals';
import { InvalidRunInputError } from '../../../core/contracts/errors.js';
import { runInputSchema } from '../../../core/contracts/run-input.js';
import { parseOrThrow } from '../../../core/contracts/validation.js';

const PROMPTS_URI = 's3://user-models/llm/prompts.jsonl';
const STREAM_TGI = { steps: [1], response: { mode: 'stream', format: 'tgi' } };

function input(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: { artifactUri: 's3://user-models/llm/model.onnx', framework: 'onnx', frameworkVersion: '1.17' },
    prompts: { uri: PROMPTS_URI, generation: { maxNewTokens: 64 } },
    candidates: [{ instanceType: 'ml.g5.xlarge' }],
    loadPlan: STREAM_TGI,
    sla: { ttftP95Ms: 500 },
    ...overrides,
  };
}

function prompts(overrides: Record<string, unknown>): Record<string, unknown> {
  return { uri: PROMPTS_URI, generation: { maxNewTokens: 64 }, ...overrides };
}

function issuesOf(document: unknown): InvalidRunInputError['issues'] {
  try {
    parseOrThrow(runInputSchema, document);
  } catch (error) {
    if (error instanceof InvalidRunInputError) return error.issues;
    throw error;
  }
  throw new Error('expected the input to be refused');
}

describe('run input: prompts', () => {
  it('accepts a prompt set in place of a payload, with greedy decoding and the default buckets', () => {
    // Act
    const parsed = parseOrThrow(runInputSchema, input());

    // Assert
    expect(parsed.prompts).toEqual({
      uri: PROMPTS_URI,
      generation: { maxNewTokens: 64, temperature: 0 },
      buckets: [{ name: 'short', maxChars: 1000 }, { name: 'medium', maxChars: 4000 }, { name: 'long' }],
    });
  });

  it('refuses prompts beside a payload, naming both fields', () => {
    // Act
    const issues = issuesOf(input({ payload: { uri: 's3://user-models/llm/prompt.json' } }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'prompts',
        given: `"${PROMPTS_URI}"`,
        expected:
          'either prompts (bodies built from a JSON Lines file) or payload (bodies sent as they are), not both: remove one',
      },
    ]);
  });

  it('refuses prompts beside payloads, naming both fields', () => {
    // Act
    const issues = issuesOf(input({ payloads: [{ uri: 's3://user-models/llm/prompt.json' }] }));

    // Assert
    expect(issues.map((issue) => [issue.field, issue.expected])).toEqual([
      [
        'prompts',
        'either prompts (bodies built from a JSON Lines file) or payloads (bodies sent as they are), not both: remove one',
      ],
    ]);
  });

  it('refuses prompts without a format when the load plan does not stream', () => {
    // Act
    const issues = issuesOf(input({ loadPlan: { steps: [1] }, sla: { p95LatencyMs: 2000 } }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'prompts.format',
        given: 'nothing',
        expected:
          'one of tgi, lmi, openai: the load plan does not stream, so there is no loadPlan.response.format to take the request template from',
      },
    ]);
  });

  it("refuses a format other than the stream format's template", () => {
    // Act
    const issues = issuesOf(input({ prompts: prompts({ format: 'openai' }) }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'prompts.format',
        given: '"openai"',
        expected:
          '"tgi", the template of loadPlan.response.format "tgi" (the responses are read in that format), or no format',
      },
    ]);
  });

  it('accepts the lmi template for an LMI stream format', () => {
    // Act
    const parsed = parseOrThrow(
      runInputSchema,
      input({
        prompts: prompts({ format: 'lmi' }),
        loadPlan: { steps: [1], response: { mode: 'stream', format: 'lmi-sse' } },
      }),
    );

    // Assert
    expect(parsed.prompts?.format).toBe('lmi');
  });

  it('refuses topP with greedy decoding', () => {
    // Act
    const issues = issuesOf(input({ prompts: prompts({ generation: { maxNewTokens: 64, topP: 0.9 } }) }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'prompts.generation.topP',
        given: '0.9',
        expected:
          'no topP with temperature 0 (greedy decoding does not sample): set a temperature above 0, or remove topP',
      },
    ]);
  });

  it('refuses topK with the openai template', () => {
    // Act
    const issues = issuesOf(
      input({
        prompts: prompts({ generation: { maxNewTokens: 64, temperature: 0.7, topK: 50 } }),
        loadPlan: { steps: [1], response: { mode: 'stream', format: 'openai' } },
      }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'prompts.generation.topK',
        given: '50',
        expected:
          'no topK with the openai template (the chat completion has no top_k; https://platform.openai.com/docs/api-reference/chat/create): use topP, or the tgi or lmi template',
      },
    ]);
  });

  it('refuses buckets whose maxChars do not go up, and a last bucket with one', () => {
    // Act
    const issues = issuesOf(
      input({
        prompts: prompts({
          buckets: [
            { name: 'short', maxChars: 500 },
            { name: 'medium', maxChars: 400 },
            { name: 'long', maxChars: 9000 },
          ],
        }),
      }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'prompts.buckets[1].maxChars',
        given: '400',
        expected: "a maxChars above the previous bucket's (500): buckets go from the shortest prompts up",
      },
      {
        field: 'prompts.buckets[2].maxChars',
        given: '9000',
        expected: 'no maxChars on the last bucket: it takes every prompt longer than the one before',
      },
    ]);
  });

  it('refuses two buckets of one name', () => {
    // Act
    const issues = issuesOf(
      input({ prompts: prompts({ buckets: [{ name: 'short', maxChars: 500 }, { name: 'short' }] }) }),
    );

    // Assert
    expect(issues).toEqual([
      { field: 'prompts.buckets[1].name', given: '"short"', expected: 'a name no other bucket has' },
    ]);
  });
});
