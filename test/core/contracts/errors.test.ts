import { describe, expect, it } from '@jest/globals';
import {
  describeError,
  ErrorNames,
  InvalidRunInputError,
  QuotaExceededError,
} from '../../../core/contracts/errors.js';

describe('project errors', () => {
  it('carry the literal name that Step Functions matches on', () => {
    // Act
    const error = new QuotaExceededError('ml.g5.xlarge: 0 of 0 instances left', {
      instanceType: 'ml.g5.xlarge',
    });

    // Assert
    expect(error.name).toBe(ErrorNames.quotaExceeded);
    expect(error.name).toBe('QuotaExceededError');
    expect(error.details).toEqual({ instanceType: 'ml.g5.xlarge' });
    expect(describeError(error)).toBe('QuotaExceededError: ml.g5.xlarge: 0 of 0 instances left');
  });

  it('name each invalid field with what was given and what was expected', () => {
    // Act
    const error = new InvalidRunInputError([
      { field: 'sla.p95LatencyMs', given: '-5', expected: 'a positive number of milliseconds' },
    ]);

    // Assert
    expect(error.message).toBe(
      'Invalid run input: sla.p95LatencyMs: got -5, expected a positive number of milliseconds',
    );
    expect(error.issues).toHaveLength(1);
  });
});
