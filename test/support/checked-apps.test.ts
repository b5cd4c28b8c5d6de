import { describe, expect, it } from '@jest/globals';
import { failedSynthResult } from './checked-apps.js';

describe('failedSynthResult', () => {
  it('records a finding of the checks as the configuration’s verdict', () => {
    // Prepare
    const finding = new Error('[Error at /ServingOptimizer/Bucket] AwsSolutions-S1: access logs disabled');

    // Act
    const result = failedSynthResult(finding);

    // Assert
    expect(result).toEqual({ error: finding.message });
  });

  it('fails when the machine failed the synth (the run’s temporary folder removed under it), so no run caches it', () => {
    // Prepare
    const removedFolder = Object.assign(
      new Error("ENOENT: no such file or directory, lstat '/tmp/mso-test-x'"),
      {
        code: 'ENOENT',
        syscall: 'lstat',
        errno: -2,
      },
    );

    // Act
    const act = (): unknown => failedSynthResult(removedFolder);

    // Assert
    expect(act).toThrow(removedFolder);
  });
});
