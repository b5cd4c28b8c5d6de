import { describe, expect, it } from '@jest/globals';
import { InvalidRunInputError } from '../../../core/contracts/errors.js';
import { payloadField, runInputSchema, runPayloads } from '../../../core/contracts/run-input.js';
import { parseOrThrow } from '../../../core/contracts/validation.js';

const SMALL = 's3://user-models/cnn/small.json';
const LARGE = 's3://user-models/cnn/large.json';

function input(payloads: Record<string, unknown>): Record<string, unknown> {
  return {
    model: { artifactUri: 's3://user-models/cnn/model.onnx', framework: 'onnx' },
    candidates: [{ instanceType: 'ml.c5.xlarge' }],
    loadPlan: { steps: [1] },
    sla: { p95LatencyMs: 100 },
    ...payloads,
  };
}

function refusal(document: unknown): InvalidRunInputError {
  try {
    parseOrThrow(runInputSchema, document);
  } catch (error) {
    if (error instanceof InvalidRunInputError) return error;
    throw error;
  }
  throw new Error('expected the input to be refused');
}

describe('run input: payloads', () => {
  it('accepts a weighted mix, with weight 1 and application/json by default', () => {
    // Act
    const parsed = parseOrThrow(
      runInputSchema,
      input({ payloads: [{ uri: SMALL }, { uri: LARGE, contentType: 'application/x-npy', weight: 3 }] }),
    );

    // Assert
    expect(runPayloads(parsed)).toEqual([
      { uri: SMALL, contentType: 'application/json', weight: 1 },
      { uri: LARGE, contentType: 'application/x-npy', weight: 3 },
    ]);
    expect(payloadField(parsed, 1)).toBe('payloads[1].uri');
  });

  it('reads a single payload as a mix of one, of weight 1', () => {
    // Act
    const parsed = parseOrThrow(runInputSchema, input({ payload: { uri: SMALL, accept: 'text/csv' } }));

    // Assert
    expect(runPayloads(parsed)).toEqual([
      { uri: SMALL, contentType: 'application/json', accept: 'text/csv', weight: 1 },
    ]);
    expect(payloadField(parsed, 0)).toBe('payload.uri');
  });

  it('refuses payload and payloads together', () => {
    // Act
    const error = refusal(input({ payload: { uri: SMALL }, payloads: [{ uri: LARGE }] }));

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'payloads',
        given: `[{"uri":"${LARGE}","contentType":"application/json","wei…`,
        expected:
          'either payload (one body) or payloads (a weighted mix), not both: move payload into the payloads list',
      },
    ]);
  });

  it('refuses an input with neither payload nor payloads', () => {
    // Act
    const error = refusal(input({}));

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'payload',
        given: 'nothing',
        expected:
          'a payload { "uri": "s3://…", "contentType": "…" }, payloads: a list of them with weights, or prompts { "uri": "s3://…/prompts.jsonl", "generation": { "maxNewTokens": … } }',
      },
    ]);
  });

  it('refuses a weight of 0, naming the payload', () => {
    // Act
    const error = refusal(input({ payloads: [{ uri: SMALL }, { uri: LARGE, weight: 0 }] }));

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'payloads[1].weight',
        given: '0',
        expected: 'a weight above 0 (weights are relative: 1 and 3 send a quarter and three quarters)',
      },
    ]);
  });

  it('refuses an empty list', () => {
    // Act
    const error = refusal(input({ payloads: [] }));

    // Assert
    expect(error.issues).toEqual([
      { field: 'payloads', given: '[]', expected: 'at least one payload { uri, contentType, weight }' },
    ]);
  });

  it('refuses more than 50 payloads', () => {
    // Prepare
    const many = Array.from({ length: 51 }, (_, index) => ({ uri: `s3://user-models/mix/${index}.json` }));

    // Act
    const error = refusal(input({ payloads: many }));

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'payloads',
        given: expect.stringMatching(/^\[\{"uri":"s3:\/\/user-models\/mix\/0\.json"\},/) as unknown as string,
        expected: 'at most 50 payloads (every load worker holds them all in memory)',
      },
    ]);
  });

  it('refuses an unknown field in a payload of the mix', () => {
    // Act
    const error = refusal(input({ payloads: [{ uri: SMALL, share: 0.5 }] }));

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'payloads[0]',
        given: 'unknown field(s) "share"',
        expected: 'only the documented fields (check the spelling)',
      },
    ]);
  });
});
