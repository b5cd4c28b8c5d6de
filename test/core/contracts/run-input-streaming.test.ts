import { describe, expect, it } from '@jest/globals';
import { InvalidRunInputError } from '../../../core/contracts/errors.js';
import { runInputSchema } from '../../../core/contracts/run-input.js';
import { parseOrThrow } from '../../../core/contracts/validation.js';

function input(loadPlan: Record<string, unknown>, sla: Record<string, unknown>): Record<string, unknown> {
  return {
    model: { artifactUri: 's3://user-models/llm/model.onnx', framework: 'onnx', frameworkVersion: '1.17' },
    payload: { uri: 's3://user-models/llm/prompt.json' },
    candidates: [{ instanceType: 'ml.g5.xlarge' }],
    loadPlan,
    sla,
  };
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

describe('run input: streamed responses', () => {
  it('accepts TTFT and ITL bounds with a streaming load plan', () => {
    // Act
    const parsed = parseOrThrow(
      runInputSchema,
      input({ steps: [1], response: { mode: 'stream', format: 'openai' } }, { ttftP95Ms: 500, itlP95Ms: 50 }),
    );

    // Assert
    expect({ response: parsed.loadPlan.response, sla: parsed.sla }).toEqual({
      response: { mode: 'stream', format: 'openai' },
      sla: { ttftP95Ms: 500, itlP95Ms: 50, maxErrorRate: 0.01 },
    });
  });

  it('refuses a TTFT bound when the load plan does not stream, before anything is created', () => {
    // Act
    const issues = issuesOf(input({ steps: [1] }, { p95LatencyMs: 200, ttftP95Ms: 500 }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'sla.ttftP95Ms',
        given: '500',
        expected:
          'nothing unless loadPlan.response is { "mode": "stream", "format": … }: time to first token and inter-token latency are measured on streamed responses only',
      },
    ]);
  });

  it('refuses the output-token objective when the load plan does not stream', () => {
    // Act
    const issues = issuesOf({
      ...input({ steps: [1] }, { p95LatencyMs: 200 }),
      objective: 'lowest-cost-per-1m-output-tokens',
    });

    // Assert
    expect(issues).toEqual([
      {
        field: 'objective',
        given: '"lowest-cost-per-1m-output-tokens"',
        expected:
          'an objective the load test can measure: output tokens are counted from streamed responses only, so set loadPlan.response { "mode": "stream", "format": … } or rank on "lowest-cost-per-1m"',
      },
    ]);
  });
});
