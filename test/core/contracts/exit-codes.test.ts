import { describe, expect, it } from '@jest/globals';
import { ErrorNames } from '../../../core/contracts/errors.js';
import {
  EXIT_CODES,
  exitCodeOfRun,
  proofStatusOf,
  TARGET_NOT_CARRIED,
} from '../../../core/contracts/exit-codes.js';

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

  it('gives an async run that ended in "No input completed" the code 4, as every candidate failing does', () => {
    // Act
    const exitCode = exitCodeOfRun({ status: 'FAILED', error: ErrorNames.noInputCompleted });

    // Assert
    expect(exitCode).toBe(EXIT_CODES.allFailed);
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

  it.each(['recommended', 'partial'])(
    'fails with its own exit code 7 when the proof did not hold, not the outcome %s’s',
    (outcome) => {
      // Act
      const exitCode = exitCodeOfRun({ status: 'SUCCEEDED', outcome, proof: 'not-held' });

      // Assert
      expect(exitCode).toBe(EXIT_CODES.proofNotHeld);
      expect(EXIT_CODES.proofNotHeld).toBe(7);
    },
  );

  it('fails with exit code 7 when no candidate that met the SLA can carry the target', () => {
    // Prepare: "Recommend" found nothing to prove (serve-target sizing: every candidate capped).
    const summary = {
      outcome: 'recommended',
      proof: { status: 'skipped', note: 'nothing to prove', targetNotCarried: true },
    };

    // Act
    const exitCode = exitCodeOfRun({
      status: 'SUCCEEDED',
      outcome: 'recommended',
      proof: proofStatusOf(summary),
    });

    // Assert
    expect(proofStatusOf(summary)).toBe(TARGET_NOT_CARRIED);
    expect(exitCode).toBe(EXIT_CODES.proofNotHeld);
  });

  it.each([
    ['held', 0],
    ['failed', 0],
    ['skipped', 0],
  ])('keeps the outcome’s code when the proof %s', (proof, code) => {
    // Act
    const exitCode = exitCodeOfRun({ status: 'SUCCEEDED', outcome: 'recommended', proof });

    // Assert
    expect(exitCode).toBe(code);
  });

  it('gives every meaning its own number', () => {
    // Act
    const codes = Object.values(EXIT_CODES);

    // Assert
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('keeps the shells’ codes of a run stopped by a signal: 128 + the signal’s number', () => {
    // Assert
    expect([EXIT_CODES.interrupted, EXIT_CODES.terminated]).toEqual([128 + 2, 128 + 15]);
  });
});

describe('proofStatusOf', () => {
  it('reads the proof’s verdict from an optimization run’s summary, or nothing without a proof', () => {
    // Act
    const statuses = [
      { outcome: 'recommended', proof: { status: 'not-held', note: 'not held: …' } },
      { outcome: 'recommended' },
      { outcome: 'recommended', proof: 'not-held' },
      undefined,
    ].map(proofStatusOf);

    // Assert
    expect(statuses).toEqual(['not-held', undefined, undefined, undefined]);
  });
});
