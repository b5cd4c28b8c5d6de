import { describe, expect, it } from '@jest/globals';
import { ErrorNames } from '../../../core/contracts/errors.js';
import { resultsOf } from '../../../core/run-status/run-results.js';

const PREFIX = 's3://mso-artifacts/runs/nightly-async/async/';
const EXECUTION = {
  executionArn: 'arn:aws:states:eu-west-1:123456789012:execution:AsyncInference:nightly-async',
  startDate: new Date('2026-11-22T02:00:00Z'),
  stopDate: new Date('2026-11-22T02:10:00Z'),
};

describe('resultsOf an async run that ended in "No input completed"', () => {
  it('gives the outcome and the summary files its cause names', () => {
    // Prepare
    const cause = JSON.stringify({
      errorMessage: 'None of the 2 inputs completed: 2 failed, 0 timed out.',
      outcome: 'all-inputs-failed',
      counts: { inputs: 2, failed: 2, timedOut: 0 },
      failureReasons: [{ reason: 'Failed: ModelError', inputs: 2 }],
      summary: { summaryUri: `${PREFIX}summary.json`, summaryMarkdownUri: `${PREFIX}summary.md` },
    });

    // Act
    const results = resultsOf('async-inference', {
      ...EXECUTION,
      status: 'FAILED',
      error: ErrorNames.noInputCompleted,
      cause,
    });

    // Assert
    expect(results).toEqual({
      outcome: 'all-inputs-failed',
      report: { json: `${PREFIX}summary.json`, markdown: `${PREFIX}summary.md` },
    });
  });

  it('gives nothing for another error of an async run, nor for a cause it cannot read', () => {
    // Act
    const other = resultsOf('async-inference', {
      ...EXECUTION,
      status: 'FAILED',
      error: ErrorNames.endpointFailed,
      cause: JSON.stringify({ outcome: 'all-inputs-failed' }),
    });
    const unreadable = resultsOf('async-inference', {
      ...EXECUTION,
      status: 'FAILED',
      error: ErrorNames.noInputCompleted,
      cause: 'not JSON',
    });

    // Assert
    expect([other, unreadable]).toEqual([undefined, undefined]);
  });
});
