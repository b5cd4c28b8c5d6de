import { describe, expect, it } from '@jest/globals';
import { runInputSchema } from '../../../handlers/contracts/run-input.js';
import { parseOrThrow } from '../../../handlers/contracts/validation.js';
import { issuesOf, minimalRunInput as runInput } from './support/run-input-issues.js';

describe('run input: candidate prices', () => {
  it('fails when a catalog type without a recorded price has no price in the input, naming where to give it', () => {
    // Act
    const issues = issuesOf(() =>
      parseOrThrow(runInputSchema, runInput({ candidates: [{ instanceType: 'ml.c7i.xlarge' }] })),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[0].instanceType',
        given: '"ml.c7i.xlarge"',
        expected:
          'a price for ml.c7i.xlarge: the price table records none, so give its USD per instance-hour in pricing.usdPerHour["ml.c7i.xlarge"]',
      },
    ]);
  });

  it('accepts a catalog type without a recorded price when the input gives one', () => {
    // Act
    const issues = issuesOf(() =>
      parseOrThrow(
        runInputSchema,
        runInput({
          candidates: [{ instanceType: 'ml.c7i.xlarge' }],
          pricing: { usdPerHour: { 'ml.c7i.xlarge': 0.2 } },
        }),
      ),
    );

    // Assert
    expect(issues).toEqual([]);
  });
});
