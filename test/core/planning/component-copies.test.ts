import { describe, expect, it } from '@jest/globals';
import { findInstance, type InstanceSpec } from '../../../core/catalog/instances.js';
import { componentRequestSchema } from '../../../core/contracts/inference-components.js';
import { componentFit, expandCopies, planComponent } from '../../../core/planning/component-copies.js';

/**
 * ml.g6.12xlarge as EC2 describes its twin g6.12xlarge (4 NVIDIA L4 GPUs, 48 vCPUs, 192 GiB):
 * the facts the plan reads live on AWS, which the recorded table does not carry.
 */
const G6_12XLARGE: InstanceSpec = {
  instanceType: 'ml.g6.12xlarge',
  vcpus: 48,
  memoryGiB: 192,
  accelerator: 'nvidia-l4',
  acceleratorCount: 4,
  unknownFacts: [],
};

function request(value: unknown) {
  return componentRequestSchema.parse(value);
}

function catalog(instanceType: string): InstanceSpec {
  const spec = findInstance(instanceType);
  if (spec === undefined) throw new Error(`the catalog lacks ${instanceType}`);
  return spec;
}

describe('expandCopies', () => {
  it('keeps the candidate id for a fixed copy count', () => {
    // Prepare
    const fixed = request({ copies: 2, perCopy: { minMemoryMb: 1024 } });

    // Act
    const expanded = expandCopies('gpu', fixed);

    // Assert
    expect(expanded).toEqual([{ id: 'gpu', copiesPerInstance: 2 }]);
  });

  it('gives each count of a sweep its own candidate, whose id says the count', () => {
    // Prepare
    const sweep = request({ copies: [1, 2, 4], perCopy: { minMemoryMb: 1024 } });

    // Act
    const expanded = expandCopies('gpu', sweep);

    // Assert
    expect(expanded).toEqual([
      { id: 'gpu-x1', copiesPerInstance: 1 },
      { id: 'gpu-x2', copiesPerInstance: 2 },
      { id: 'gpu-x4', copiesPerInstance: 4 },
    ]);
  });
});

describe('planComponent', () => {
  it('names the component from the run and the candidate, and counts copies over every instance', () => {
    // Prepare
    const sweep = request({ copies: [1, 2], perCopy: { cpuCores: 1, minMemoryMb: 512 } });

    // Act
    const planned = planComponent({
      runId: 'run-42',
      candidateId: 'cpu-x2',
      variantName: 'AllTraffic',
      copiesPerInstance: 2,
      instanceCount: 3,
      request: sweep,
    });

    // Assert
    expect(planned).toEqual({
      inferenceComponentName: expect.stringMatching(/^mso-run-42-[0-9a-f]{8}-ic-cpu-x2$/),
      variantName: 'AllTraffic',
      copiesPerInstance: 2,
      copyCount: 6,
      perCopy: { cpuCores: 1, minMemoryMb: 512 },
    });
  });
});

describe('the component name', () => {
  it('fits SageMaker’s InferenceComponentName for the longest run id and candidate id', () => {
    // Prepare: an 80-character execution name, a 24-character candidate id with a sweep suffix.
    const sweep = request({ copies: [16, 32], perCopy: { minMemoryMb: 256 } });
    const [, last] = expandCopies('abcdefghijklmnopqrstuvwx', sweep);

    // Act
    const planned = planComponent({
      runId: 'R'.repeat(80),
      candidateId: last?.id ?? '',
      variantName: 'AllTraffic',
      copiesPerInstance: 32,
      instanceCount: 1,
      request: sweep,
    });

    // Assert: the API model's pattern and length (CreateInferenceComponentInput$InferenceComponentName).
    expect(planned.inferenceComponentName).toMatch(/^[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?$/);
    expect(planned.inferenceComponentName.length).toBeLessThanOrEqual(63);
  });
});

describe('componentFit', () => {
  it('accepts copies whose accelerators, cores and memory fit the instance', () => {
    // Prepare
    const sweep = request({
      copies: [1, 2, 4],
      perCopy: { acceleratorDevices: 1, cpuCores: 8, minMemoryMb: 32_768 },
    });

    // Act
    const fit = componentFit('candidates[0]', 'ml.g6.12xlarge', sweep, G6_12XLARGE);

    // Assert
    expect(fit).toEqual({ issues: [], warnings: [] });
  });

  it('fails when the copies need more accelerator devices than the instance has', () => {
    // Prepare
    const sweep = request({ copies: [1, 2, 4], perCopy: { acceleratorDevices: 2, minMemoryMb: 1024 } });

    // Act
    const fit = componentFit('candidates[0]', 'ml.g6.12xlarge', sweep, G6_12XLARGE);

    // Assert
    expect(fit.issues).toEqual([
      {
        field: 'candidates[0].copies',
        given: '4',
        expected:
          'copies that fit one ml.g6.12xlarge: 4 copies × 2 accelerator devices = 8 > the 4 accelerator ' +
          'devices of ml.g6.12xlarge; at most 2 copies per instance, or fewer resources per copy, or a larger instance',
      },
    ]);
  });

  it('fails when the copies need more CPU cores than the instance has vCPUs', () => {
    // Prepare: ml.c5.xlarge has 4 vCPUs in the catalog.
    const sweep = request({ copies: [1, 2, 4], perCopy: { cpuCores: 1.5, minMemoryMb: 512 } });

    // Act
    const fit = componentFit('candidates[1]', 'ml.c5.xlarge', sweep, catalog('ml.c5.xlarge'));

    // Assert
    expect(fit.issues).toEqual([
      {
        field: 'candidates[1].copies',
        given: '4',
        expected: expect.stringContaining(
          '4 copies × 1.5 CPU cores = 6 > the 4 vCPUs of ml.c5.xlarge; at most 2 copies',
        ),
      },
    ]);
  });

  it('fails when the copies reserve more memory than the instance has', () => {
    // Prepare: ml.c5.xlarge has 8 GiB, 8192 MB.
    const fixed = request({ copies: 3, perCopy: { minMemoryMb: 3072 } });

    // Act
    const fit = componentFit('candidates[0]', 'ml.c5.xlarge', fixed, catalog('ml.c5.xlarge'));

    // Assert
    expect(fit.issues).toEqual([
      {
        field: 'candidates[0].copies',
        given: '3',
        expected: expect.stringContaining(
          '3 copies × 3072 MB of minimum memory = 9216 > the 8192 MB of memory of ml.c5.xlarge',
        ),
      },
    ]);
  });

  it('names every count of a sweep that does not fit, in one issue', () => {
    // Prepare
    const sweep = request({ copies: [1, 2, 4, 8], perCopy: { cpuCores: 1.5, minMemoryMb: 256 } });

    // Act
    const fit = componentFit('candidates[0]', 'ml.c5.xlarge', sweep, catalog('ml.c5.xlarge'));

    // Assert
    expect(fit.issues.map((issue) => issue.given)).toEqual(['[4,8]']);
  });

  it('fails when the copies ask for accelerators on an instance without any', () => {
    // Prepare
    const fixed = request({ copies: 1, perCopy: { acceleratorDevices: 1, minMemoryMb: 1024 } });

    // Act
    const fit = componentFit('candidates[0]', 'ml.c5.xlarge', fixed, catalog('ml.c5.xlarge'));

    // Assert
    expect(fit.issues).toEqual([
      {
        field: 'candidates[0].perCopy.acceleratorDevices',
        given: '1',
        expected: expect.stringContaining('ml.c5.xlarge has none'),
      },
    ]);
  });

  it('fails when not one copy fits, and says so', () => {
    // Prepare
    const fixed = request({ copies: 1, perCopy: { minMemoryMb: 16_384 } });

    // Act
    const fit = componentFit('candidates[0]', 'ml.c5.xlarge', fixed, catalog('ml.c5.xlarge'));

    // Assert
    expect(fit.issues[0]?.expected).toContain('not one copy fits');
  });

  it('counts NeuronCores as the accelerator devices of an Inferentia instance', () => {
    // Prepare: ml.inf2.xlarge has one Inferentia2 chip of two NeuronCores.
    const fixed = request({ copies: 2, perCopy: { acceleratorDevices: 1, minMemoryMb: 1024 } });

    // Act
    const fit = componentFit('candidates[0]', 'ml.inf2.xlarge', fixed, catalog('ml.inf2.xlarge'));

    // Assert
    expect(fit.issues).toEqual([]);
  });

  it('warns instead of checking a fact the catalog does not know', () => {
    // Prepare: the recorded table lists ml.p6e-gb200.36xlarge but knows none of its facts.
    const fixed = request({ copies: 4, perCopy: { acceleratorDevices: 2, cpuCores: 4, minMemoryMb: 1024 } });

    // Act
    const fit = componentFit(
      'candidates[0]',
      'ml.p6e-gb200.36xlarge',
      fixed,
      catalog('ml.p6e-gb200.36xlarge'),
    );

    // Assert
    expect(fit.issues).toEqual([]);
    expect(fit.warnings).toEqual([
      expect.stringContaining('accelerator devices of ml.p6e-gb200.36xlarge'),
      expect.stringContaining('vCPUs of ml.p6e-gb200.36xlarge'),
      expect.stringContaining('memory of ml.p6e-gb200.36xlarge'),
    ]);
  });

  it('warns when the catalog does not describe the instance at all', () => {
    // Prepare
    const fixed = request({ copies: 1, perCopy: { minMemoryMb: 1024 } });

    // Act
    const fit = componentFit('candidates[0]', 'ml.x99.huge', fixed, undefined);

    // Assert
    expect(fit).toEqual({
      issues: [],
      warnings: [expect.stringContaining('does not describe ml.x99.huge')],
    });
  });
});
