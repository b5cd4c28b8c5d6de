import { describe, expect, it } from '@jest/globals';
import { withCleanUpAccount } from '../../../handlers/contracts/clean-up-account.js';
import { reportCleanUpLeftovers, reportUnsuccessfulRun } from '../../../local/cli/shared.js';
import { accountOutcome } from '../../../local/step-handlers.js';

const LEFT =
  'Clean-up deleted 2 endpoints, 2 endpoint configs, 2 models; LEFT 1 resource, finish by hand: endpoint e ' +
  '(AccessDeniedException: denied): aws sagemaker delete-endpoint --endpoint-name e.';

describe('the local CLIs’ clean-up report', () => {
  it('prints the clean-up account a failed run’s cause carries, after the error', () => {
    // Prepare
    const lines: string[] = [];
    const error = withCleanUpAccount(
      {
        Error: 'NetworkingError',
        Cause: JSON.stringify({ errorType: 'NetworkingError', errorMessage: 'S3 down' }),
      },
      LEFT,
    );

    // Act
    reportUnsuccessfulRun({
      result: { status: 'FAILED', error: error.Error, cause: error.Cause },
      cleanUp: undefined,
      deleted: 'every endpoint was deleted',
      runId: 'r1',
      interrupted: false,
      errorLine: (text) => lines.push(text),
    });

    // Assert
    expect(lines).toEqual(['Run r1 failed: NetworkingError: S3 down.', LEFT]);
  });

  it('warns after a succeeded run whose clean-up left something', () => {
    // Prepare
    const lines: string[] = [];

    // Act
    const warned = reportCleanUpLeftovers({ status: 'INCOMPLETE', message: LEFT }, (text) =>
      lines.push(text),
    );

    // Assert
    expect(warned).toBe(true);
    expect(lines).toEqual([`Warning: ${LEFT}`]);
  });

  it('says nothing more after a succeeded run whose clean-up deleted everything', () => {
    // Prepare
    const lines: string[] = [];

    // Act
    const warned = reportCleanUpLeftovers(
      { status: 'COMPLETE', message: 'Clean-up deleted 1 endpoint; nothing left.' },
      (text) => lines.push(text),
    );

    // Assert
    expect(warned).toBe(false);
    expect(lines).toEqual([]);
  });

  it('refuses to call an interrupted run’s clean-up ok when its account left something', () => {
    // Act
    const outcome = accountOutcome({ status: 'INCOMPLETE', message: LEFT });

    // Assert
    expect(outcome).toEqual({ ok: false, error: LEFT });
  });
});
