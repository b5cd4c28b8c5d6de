import { describe, expect, it } from '@jest/globals';
import { isValidRunId } from '../../../core/contracts/names.js';
import {
  describeInvalidRunId,
  RUN_ID_PATTERN,
  runIdSchema,
} from '../../../core/contracts/run-api-contract.js';

const SAMPLES = [
  'a',
  'run_2026-03-01',
  'A'.repeat(80),
  'A'.repeat(81),
  '',
  'has space',
  'a/b',
  'é',
  'x:y',
  'ok-ID_9',
];

describe('RUN_ID_PATTERN', () => {
  it.each(SAMPLES)('agrees with isValidRunId on %j', (runId) => {
    // Act
    const matches = new RegExp(RUN_ID_PATTERN).test(runId);

    // Assert
    expect(matches).toBe(isValidRunId(runId));
  });
});

describe('runIdSchema', () => {
  it('fails when the run id is longer than an execution name allows', () => {
    // Act
    const result = runIdSchema.safeParse('r'.repeat(81));

    // Assert
    expect(result.success).toBe(false);
  });
});

describe('describeInvalidRunId', () => {
  it('says what was given and what is expected', () => {
    // Act
    const reason = describeInvalidRunId('nightly run');

    // Assert
    expect(reason).toBe(
      'got "nightly run", expected 1 to 80 letters, digits, "-" or "_" (it becomes the execution name)',
    );
  });

  it('accepts a valid run id', () => {
    // Act
    const reason = describeInvalidRunId('nightly-run');

    // Assert
    expect(reason).toBeUndefined();
  });
});
