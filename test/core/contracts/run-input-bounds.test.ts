import { describe, expect, it } from '@jest/globals';
import type { InputIssue } from '../../../core/contracts/errors.js';
import { runInputSchema } from '../../../core/contracts/run-input.js';
import { parseOrThrow } from '../../../core/contracts/validation.js';
import { issuesOf, minimalRunInput as runInput } from './support/run-input-issues.js';

/** The issues the run input schema refuses `input` with, or none. */
function schemaIssuesOf(input: unknown): readonly InputIssue[] {
  return issuesOf(() => parseOrThrow(runInputSchema, input));
}

describe('run input: upper bounds from arithmetic', () => {
  it('fails when payload weights are so large that their sum overflows', () => {
    // Prepare: two weights of 1.7e308 add up to Infinity, which split the mix 0/100.
    const input = runInput({
      payload: undefined,
      payloads: [
        { uri: 's3://mso-artifacts/p/a.json', weight: 1.7e308 },
        { uri: 's3://mso-artifacts/p/b.json', weight: 1.7e308 },
      ],
    });

    // Act
    const issues = schemaIssuesOf(input);

    // Assert
    const expected =
      'a weight of at most 1000000 (weights are relative: a million to one already sends one request in a ' +
      'million to the lighter payload, and the sum of the weights must stay a finite number)';
    expect(issues).toEqual([
      { field: 'payloads[0].weight', given: '1.7e+308', expected },
      { field: 'payloads[1].weight', given: '1.7e+308', expected },
    ]);
  });

  it('accepts weights up to the bound', () => {
    // Act / Assert
    expect(
      schemaIssuesOf(
        runInput({
          payload: undefined,
          payloads: [
            { uri: 's3://mso-artifacts/p/a.json', weight: 1_000_000 },
            { uri: 's3://mso-artifacts/p/b.json', weight: 1 },
          ],
        }),
      ),
    ).toEqual([]);
  });

  it('fails when a price per hour is beyond any instance’s (1e308 printed $Infinity)', () => {
    // Act
    const issues = schemaIssuesOf(runInput({ pricing: { usdPerHour: { 'ml.c5.xlarge': 1e308 } } }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'pricing.usdPerHour["ml.c5.xlarge"]',
        given: '1e+308',
        expected:
          "a price of at most 1000 USD per hour (above any SageMaker instance's on-demand price; the cost per " +
          'million inferences must stay a finite number)',
      },
    ]);
  });

  it('fails when an input shape has more elements than a request body can carry', () => {
    // Prepare: dimensions of 1e9 (a shape of 1e18 elements).
    const input = runInput({
      model: {
        artifactUri: 's3://mso-artifacts/models/cnn/model.onnx',
        framework: 'onnx',
        inputShape: { input: [1, 1_000_000_000, 1_000_000_000] },
      },
    });

    // Act
    const issues = schemaIssuesOf(input);

    // Assert
    expect(issues).toEqual([
      {
        field: 'model.inputShape.input',
        given: '[1,1000000000,1000000000]',
        expected:
          'a shape of at most 6291456 elements (the product of its dimensions): each element takes at least one ' +
          "byte of a request, and InvokeEndpoint's body is at most 6 MB",
      },
    ]);
  });
});
