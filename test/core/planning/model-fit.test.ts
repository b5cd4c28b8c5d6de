import { describe, expect, it } from '@jest/globals';
import { kvCacheMemory, modelFit, weightsMemory } from '../../../core/planning/model-fit.js';

const SEVENTY_B_FP16 = weightsMemory(70e9, 'fp16');

describe('model fit', () => {
  it('fails when a 70B fp16 model is planned on ml.g5.xlarge, naming the memory needed and available', () => {
    // Prepare
    if (SEVENTY_B_FP16 === undefined) throw new Error('fp16 is a known data type');

    // Act
    const result = modelFit([{ index: 0, instanceType: 'ml.g5.xlarge' }], [SEVENTY_B_FP16]);

    // Assert
    expect(result.issues).toEqual([
      {
        field: 'candidates[0].instanceType',
        given: '"ml.g5.xlarge"',
        expected:
          'an instance whose memory holds the model: it needs 130.4 GiB (70000000000 parameters × 2 bytes (fp16)), ' +
          'and ml.g5.xlarge has 24.0 GiB (1 GPU of 24 GiB)',
      },
    ]);
  });

  it('plans a 70B fp16 model on ml.p4d.24xlarge with tensor parallel degree 8', () => {
    // Prepare
    if (SEVENTY_B_FP16 === undefined) throw new Error('fp16 is a known data type');

    // Act
    const result = modelFit(
      [{ index: 0, instanceType: 'ml.p4d.24xlarge', tensorParallelDegree: 8 }],
      [SEVENTY_B_FP16],
    );

    // Assert
    expect(result).toEqual({ issues: [], warnings: [] });
  });

  it('warns, and does not refuse, when the instance table does not know the accelerator memory', () => {
    // Prepare
    if (SEVENTY_B_FP16 === undefined) throw new Error('fp16 is a known data type');

    // Act
    const result = modelFit([{ index: 0, instanceType: 'ml.p6e-gb200.36xlarge' }], [SEVENTY_B_FP16]);

    // Assert
    expect(result.issues).toEqual([]);
    expect(result.warnings).toEqual([
      'candidates[0] (ml.p6e-gb200.36xlarge): the instance table does not know its accelerator memory, so whether 130.4 GiB fits is not checked',
    ]);
  });

  it('counts only the GPUs the model is sharded over, and the KV cache the settings imply', () => {
    // Prepare: 8B fp16 weights (14.9 GiB) + a KV cache of 32 × 4096 tokens (32 layers, 8 KV heads of 128: 16 GiB).
    const weights = weightsMemory(8e9, 'fp16');
    if (weights === undefined) throw new Error('fp16 is a known data type');
    const cache = kvCacheMemory({
      layers: 32,
      kvHeads: 8,
      headDim: 128,
      maxTokens: 4096,
      batch: 32,
      bytesPerValue: 2,
    });

    // Act
    const oneGpu = modelFit(
      [{ index: 0, instanceType: 'ml.g5.12xlarge', tensorParallelDegree: 1 }],
      [weights, cache],
    );
    const twoGpus = modelFit(
      [{ index: 0, instanceType: 'ml.g5.12xlarge', tensorParallelDegree: 2 }],
      [weights, cache],
    );

    // Assert
    expect(cache.bytes).toBe(16 * 1024 ** 3);
    expect(oneGpu.issues.map((issue) => issue.expected)).toEqual([
      expect.stringContaining('it needs 30.9 GiB'),
    ]);
    expect(twoGpus.issues).toEqual([]);
  });

  it('checks a CPU instance against its host memory', () => {
    // Prepare
    const weights = weightsMemory(7e9, 'fp32');
    if (weights === undefined) throw new Error('fp32 is a known data type');

    // Act
    const result = modelFit([{ index: 2, instanceType: 'ml.c5.xlarge' }], [weights]);

    // Assert
    expect(result.issues.map((issue) => [issue.field, issue.expected])).toEqual([
      [
        'candidates[2].instanceType',
        'an instance whose memory holds the model: it needs 26.1 GiB (7000000000 parameters × 4 bytes (fp32)), and ml.c5.xlarge has 8.0 GiB (host memory)',
      ],
    ]);
  });
});
