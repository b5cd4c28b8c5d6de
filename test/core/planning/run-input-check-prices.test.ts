import { describe, expect, it } from '@jest/globals';
import { checkedRunInputSchema } from '../../../core/planning/run-input-check.js';
import { parseOrThrow } from '../../../core/contracts/validation.js';
import { issuesOf, minimalRunInput as runInput } from '../contracts/support/run-input-issues.js';

describe('run input: candidate prices', () => {
  it('accepts a catalog type without a recorded price: the planner prices it, or refuses it, at planning', () => {
    // Act
    const issues = issuesOf(() =>
      parseOrThrow(checkedRunInputSchema, runInput({ candidates: [{ instanceType: 'ml.g6e.2xlarge' }] })),
    );

    // Assert
    expect(issues).toEqual([]);
  });

  it('fails when a type SageMaker hosting does not accept has no price in the input, naming where to give it', () => {
    // Act
    const issues = issuesOf(() =>
      parseOrThrow(checkedRunInputSchema, runInput({ candidates: [{ instanceType: 'ml.g6e.3xlarge' }] })),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[0].instanceType',
        given: '"ml.g6e.3xlarge"',
        expected:
          'a SageMaker hosting instance type (ProductionVariantInstanceType), or a price in pricing.usdPerHour["ml.g6e.3xlarge"]',
      },
    ]);
  });

  it('accepts a catalog type without a recorded price when the input gives one', () => {
    // Act
    const issues = issuesOf(() =>
      parseOrThrow(
        checkedRunInputSchema,
        runInput({
          candidates: [{ instanceType: 'ml.g6e.2xlarge' }],
          pricing: { usdPerHour: { 'ml.g6e.2xlarge': 2.8 } },
        }),
      ),
    );

    // Assert
    expect(issues).toEqual([]);
  });
});

describe('run input: compiled candidates on families the planner does not compile for', () => {
  it('fails when compiledFor is set on ml.c4, naming the Neo support table rather than Neo', () => {
    // Act
    const issues = issuesOf(() =>
      parseOrThrow(
        checkedRunInputSchema,
        runInput({
          model: {
            artifactUri: 's3://mso-artifacts/models/cnn/model.onnx',
            framework: 'onnx',
            inputShape: { input: [1, 3, 224, 224] },
          },
          compilation: { targets: ['ml_c5'] },
          candidates: [{ instanceType: 'ml.c4.xlarge', compiledFor: 'ml_c5' }],
          pricing: { usdPerHour: { 'ml.c4.xlarge': 0.3 } },
        }),
      ),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[0].compiledFor',
        given: '"ml_c5"',
        expected:
          "no compiledFor: the planner's Neo support table does not describe ml_c4 yet: serve ml.c4.xlarge uncompiled, " +
          'or use an instance of a compiled family (e.g. ml_g4dn on ml.g4dn)',
      },
    ]);
  });
});
