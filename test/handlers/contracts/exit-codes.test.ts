import { describe, expect, it } from '@jest/globals';
import { ErrorNames } from '../../../handlers/contracts/errors.js';
import { EXIT_CODES, exitCodeOfRun } from '../../../handlers/contracts/exit-codes.js';

describe('exitCodeOfRun', () => {
  it.each([
    ['recommended', 0],
    ['partial', 5],
    ['completed', 0],
    ['all-inputs-failed', 4],
  ])('gives a run that SUCCEEDED with the outcome %s the code %i', (outcome, code) => {
    // Act
    const exitCode = exitCodeOfRun({ status: 'SUCCEEDED', outcome });

    // Assert
    expect(exitCode).toBe(code);
  });

  it.each([
    ['no-candidate-met-sla', 3],
    ['all-candidates-failed', 4],
  ])('gives a run that ended in "No recommendation" (%s) the code %i', (outcome, code) => {
    // Act
    const exitCode = exitCodeOfRun({ status: 'FAILED', error: ErrorNames.noRecommendation, outcome });

    // Assert
    expect(exitCode).toBe(code);
  });

  it('gives a refused run (invalid input, over budget) the bad-input code 2', () => {
    // Act
    const codes = [ErrorNames.invalidRunInput, ErrorNames.budgetExceeded].map((error) =>
      exitCodeOfRun({ status: 'FAILED', error }),
    );

    // Assert
    expect(codes).toEqual([EXIT_CODES.invalid, EXIT_CODES.invalid]);
  });

  it.each([
    ['FAILED', ErrorNames.endpointFailed],
    ['TIMED_OUT', 'States.Timeout'],
    ['ABORTED', undefined],
  ])('gives a run that ended %s (%s) the code 1', (status, error) => {
    // Act
    const exitCode = exitCodeOfRun({ status, ...(error === undefined ? {} : { error }) });

    // Assert
    expect(exitCode).toBe(EXIT_CODES.runFailed);
  });

  it('counts an outcome this version does not know as its status alone', () => {
    // Act
    const exitCode = exitCodeOfRun({ status: 'SUCCEEDED', outcome: 'something-new' });

    // Assert
    expect(exitCode).toBe(EXIT_CODES.ok);
  });

  it('keeps the shells’ codes of a run stopped by a signal: 128 + the signal’s number', () => {
    // Assert
    expect([EXIT_CODES.interrupted, EXIT_CODES.terminated]).toEqual([128 + 2, 128 + 15]);
  });
});
