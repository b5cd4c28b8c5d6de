import { describe, expect, it } from '@jest/globals';
import { runInputSchema } from '../../../core/contracts/run-input.js';
import { parseOrThrow } from '../../../core/contracts/validation.js';
import { issuesOf, minimalRunInput as runInput } from './support/run-input-issues.js';

const SIZED_MODEL = {
  artifactUri: 's3://mso-artifacts/models/cnn/model.onnx',
  framework: 'onnx',
  size: { parameters: 1e6, dtype: 'fp32' },
};

function shortlistIssues(shortlist: unknown, overrides: Record<string, unknown> = {}) {
  return issuesOf(() =>
    parseOrThrow(runInputSchema, runInput({ model: SIZED_MODEL, candidates: { shortlist }, ...overrides })),
  );
}

describe('run input: a shortlist instead of candidates', () => {
  it('parses a shortlist into an empty candidate list and the request', () => {
    // Act
    const input = runInputSchema.parse(
      runInput({ model: SIZED_MODEL, candidates: { shortlist: { max: 3, kinds: ['cpu', 'gpu'] } } }),
    );

    // Assert
    expect([input.candidates, input.shortlist]).toEqual([[], { max: 3, kinds: ['cpu', 'gpu'] }]);
  });

  it('takes 6 types when max is not given', () => {
    // Act
    const input = runInputSchema.parse(
      runInput({ model: SIZED_MODEL, candidates: { shortlist: { kinds: ['cpu'] } } }),
    );

    // Assert
    expect(input.shortlist?.max).toBe(6);
  });

  it('keeps a candidate list as it was, with no shortlist', () => {
    // Act
    const input = runInputSchema.parse(runInput({ candidates: [{ instanceType: 'ml.c5.xlarge' }] }));

    // Assert
    expect([input.candidates.length, 'shortlist' in input]).toEqual([1, false]);
  });

  it('fails when max is 0, stating the range', () => {
    // Act
    const issues = shortlistIssues({ max: 0, kinds: ['cpu'] });

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates.shortlist.max',
        given: '0',
        expected: 'a whole number of instance types from 1 to 10',
      },
    ]);
  });

  it('fails when max is above 10, saying why', () => {
    // Act
    const issues = shortlistIssues({ max: 11, kinds: ['cpu'] });

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates.shortlist.max',
        given: '11',
        expected: 'at most 10 instance types (each is an endpoint created, load tested and billed)',
      },
    ]);
  });

  it('fails when a kind is not one the shortlist takes, naming them', () => {
    // Act
    const issues = shortlistIssues({ max: 2, kinds: ['tpu'] });

    // Assert
    expect(issues).toEqual([
      { field: 'candidates.shortlist.kinds[0]', given: '"tpu"', expected: 'one of cpu, gpu, inferentia' },
    ]);
  });

  it('fails when kinds is empty', () => {
    // Act
    const issues = shortlistIssues({ max: 2, kinds: [] });

    // Assert
    expect(issues).toEqual([
      { field: 'candidates.shortlist.kinds', given: '[]', expected: 'at least one of cpu, gpu, inferentia' },
    ]);
  });

  it('fails when the model has no size, which the shortlist picks types by', () => {
    // Act
    const issues = shortlistIssues(
      { max: 2, kinds: ['cpu'] },
      { model: { artifactUri: 's3://mso-artifacts/models/cnn/model.onnx', framework: 'onnx' } },
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'model.size',
        given: 'nothing',
        expected:
          'the model\'s size { "parameters", "dtype" } with a shortlist: the planner picks only types whose memory holds the model',
      },
    ]);
  });

  it('fails when the shortlist at most, times the environment ranges, passes 50 candidates', () => {
    // Act
    const issues = shortlistIssues(
      { max: 10, kinds: ['cpu'] },
      { environmentRanges: { OMP_NUM_THREADS: ['1', '2', '3', '4', '5', '6'] } },
    );

    // Assert
    expect(issues.map((issue) => [issue.field, issue.expected])).toEqual([
      [
        'environmentRanges',
        'at most 50 candidates after expansion (10 shortlisted at most × 6 combinations = 60)',
      ],
    ]);
  });

  it("fails when the model's environment and the ranges, merged in a shortlisted candidate, pass 100 variables", () => {
    // Prepare
    const variables = (count: number, prefix: string) =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, 'v']));
    const ranges = Object.fromEntries(Object.keys(variables(45, 'R')).map((name) => [name, ['v']]));

    // Act
    const issues = shortlistIssues(
      { max: 2, kinds: ['cpu'] },
      { model: { ...SIZED_MODEL, environment: variables(60, 'M') }, environmentRanges: ranges },
    );

    // Assert
    expect(issues.map((issue) => [issue.field, issue.expected])).toEqual([
      [
        'environmentRanges',
        "at most 100 variables once model.environment and environmentRanges are merged (SageMaker's limit on a container's Environment)",
      ],
    ]);
  });

  it('fails when a shortlist is given with an existing endpoint', () => {
    // Act
    const issues = issuesOf(() =>
      parseOrThrow(
        runInputSchema,
        runInput({
          model: undefined,
          existingEndpoint: { endpointName: 'my-endpoint', instanceType: 'ml.c5.xlarge' },
          candidates: { shortlist: { max: 2, kinds: ['cpu'] } },
        }),
      ),
    );

    // Assert
    expect(issues.map((issue) => [issue.field, issue.expected])).toEqual([
      ['candidates', 'no candidates when existingEndpoint is given (it is tested as it is)'],
    ]);
  });
});
