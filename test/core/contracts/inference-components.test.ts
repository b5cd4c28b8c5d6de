import { describe, expect, it } from '@jest/globals';
import {
  componentRequestSchema,
  copyCountsOf,
  InferenceComponentStatuses,
} from '../../../core/contracts/inference-components.js';
import { InferenceComponentStatus as SdkInferenceComponentStatus } from '@aws-sdk/client-sagemaker';

function issuesOf(value: unknown): { path: string; message: string }[] {
  const result = componentRequestSchema.safeParse(value);
  return result.success
    ? []
    : result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
}

describe('the inference component request', () => {
  it('reads a fixed count and a sweep as the copy counts they stand for', () => {
    // Prepare
    const fixed = componentRequestSchema.parse({ copies: 2, perCopy: { minMemoryMb: 1024 } });
    const sweep = componentRequestSchema.parse({ copies: [1, 2, 4], perCopy: { minMemoryMb: 1024 } });

    // Act
    const counts = [copyCountsOf(fixed), copyCountsOf(sweep)];

    // Assert
    expect(counts).toEqual([[2], [1, 2, 4]]);
  });

  it('fails when a sweep repeats or reorders its counts', () => {
    // Act
    const issues = issuesOf({ copies: [2, 1], perCopy: { minMemoryMb: 1024 } });

    // Assert
    expect(issues).toEqual([
      { path: 'copies', message: expect.stringContaining('distinct copy counts in ascending order') },
    ]);
  });

  it('fails when a copy reserves less than SageMaker allows', () => {
    // Act
    const issues = issuesOf({
      copies: 1,
      perCopy: { cpuCores: 0.1, minMemoryMb: 64, acceleratorDevices: 0 },
    });

    // Assert
    expect(issues.map((issue) => issue.path).sort()).toEqual([
      'perCopy.acceleratorDevices',
      'perCopy.cpuCores',
      'perCopy.minMemoryMb',
    ]);
  });

  it('fails when the memory ceiling is below the floor', () => {
    // Act
    const issues = issuesOf({ copies: 1, perCopy: { minMemoryMb: 2048, maxMemoryMb: 1024 } });

    // Assert
    expect(issues).toEqual([
      { path: 'perCopy.maxMemoryMb', message: expect.stringContaining('at least minMemoryMb (2048)') },
    ]);
  });

  it('fails when a copy names no minimum memory, which SageMaker requires', () => {
    // Act
    const issues = issuesOf({ copies: 1, perCopy: { cpuCores: 1 } });

    // Assert
    expect(issues.map((issue) => issue.path)).toEqual(['perCopy.minMemoryMb']);
  });

  it('knows every status SageMaker declares for a component', () => {
    // Assert
    expect(Object.values(InferenceComponentStatuses).sort()).toEqual(
      Object.values(SdkInferenceComponentStatus).sort(),
    );
  });
});
