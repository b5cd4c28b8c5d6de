import { describe, expect, it } from '@jest/globals';
import { InvalidRunInputError } from '../../../core/contracts/errors.js';
import { runInputSchema } from '../../../core/contracts/run-input.js';
import { parseOrThrow } from '../../../core/contracts/validation.js';

function input(candidate: Record<string, unknown>): Record<string, unknown> {
  return {
    model: { artifactUri: 's3://user-models/cnn/model.onnx', framework: 'onnx', frameworkVersion: '1.17' },
    payload: { uri: 's3://user-models/cnn/payload.bin' },
    candidates: [candidate],
    loadPlan: { steps: [1] },
    sla: { p95LatencyMs: 100 },
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

describe('run input: a candidate’s routingStrategy', () => {
  it('accepts LEAST_OUTSTANDING_REQUESTS on a real-time candidate of two instances', () => {
    // Act
    const parsed = parseOrThrow(
      runInputSchema,
      input({
        instanceType: 'ml.c5.large',
        initialInstanceCount: 2,
        routingStrategy: 'LEAST_OUTSTANDING_REQUESTS',
      }),
    );

    // Assert
    expect(parsed.candidates).toEqual([
      {
        instanceType: 'ml.c5.large',
        initialInstanceCount: 2,
        routingStrategy: 'LEAST_OUTSTANDING_REQUESTS',
        environment: {},
      },
    ]);
  });

  it('accepts RANDOM on a one-instance candidate (the report says it had no effect)', () => {
    // Act
    const parsed = parseOrThrow(
      runInputSchema,
      input({ instanceType: 'ml.c5.large', routingStrategy: 'RANDOM' }),
    );

    // Assert
    expect(parsed.candidates[0]).toEqual({
      instanceType: 'ml.c5.large',
      initialInstanceCount: 1,
      routingStrategy: 'RANDOM',
      environment: {},
    });
  });

  it('refuses PREFIX_AWARE, which needs a PrefixAwareRoutingConfig no candidate carries', () => {
    // Act
    const issues = issuesOf(
      input({ instanceType: 'ml.c5.large', initialInstanceCount: 2, routingStrategy: 'PREFIX_AWARE' }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[0].routingStrategy',
        given: '"PREFIX_AWARE"',
        expected:
          "one of RANDOM, LEAST_OUTSTANDING_REQUESTS (SageMaker's ProductionVariantRoutingConfig.RoutingStrategy)",
      },
    ]);
  });

  it('refuses a routingStrategy on a serverless candidate, at the field', () => {
    // Act
    const issues = issuesOf(
      input({ serverless: { memorySizeMb: 2048 }, routingStrategy: 'LEAST_OUTSTANDING_REQUESTS' }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[0].routingStrategy',
        given: '"LEAST_OUTSTANDING_REQUESTS"',
        expected:
          'no routingStrategy on a serverless candidate: SageMaker routes between the instances of an ' +
          'instance-backed variant only; remove it, or give the candidate an instanceType',
      },
    ]);
  });
});
