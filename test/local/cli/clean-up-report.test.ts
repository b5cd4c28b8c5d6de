import { describe, expect, it } from '@jest/globals';
import { withCleanUpAccount } from '../../../core/contracts/clean-up-account.js';
import { withCompletedWork } from '../../../core/contracts/completed-work.js';
import { reportCleanUpLeftovers, reportUnsuccessfulRun } from '../../../local/cli/shared.js';
import { accountOutcome } from '../../../local/environment/step-handlers.js';

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

  it('a failed async run names the results it completed: the message and each location, as local files', () => {
    // Prepare
    const lines: string[] = [];
    const batch = 's3://local-artifacts/runs/r1/async/results/batch-0000.json';
    const error = withCompletedWork(
      withCleanUpAccount(
        { Error: 'EndpointFailedError', Cause: 'Endpoint gone' },
        'Clean-up deleted 1 endpoint.',
      ),
      { message: `Before the failure, 1 of 2 batches recorded their results: ${batch}.`, locations: [batch] },
    );

    // Act
    reportUnsuccessfulRun({
      result: { status: 'FAILED', error: error.Error, cause: error.Cause },
      cleanUp: undefined,
      deleted: 'the endpoint was deleted',
      runId: 'r1',
      interrupted: false,
      errorLine: (text) => lines.push(text),
      localFiles: (text) => text.replaceAll('s3://local-artifacts/', '.optimizer/store/local-artifacts/'),
    });

    // Assert
    expect(lines).toEqual([
      'Run r1 failed: EndpointFailedError: Endpoint gone.',
      'Clean-up deleted 1 endpoint.',
      'Before the failure, 1 of 2 batches recorded their results: .optimizer/store/local-artifacts/runs/r1/async/results/batch-0000.json.',
      '  .optimizer/store/local-artifacts/runs/r1/async/results/batch-0000.json',
    ]);
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
