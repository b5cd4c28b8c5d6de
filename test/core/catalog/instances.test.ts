import { TargetDevice } from '@aws-sdk/client-sagemaker';
import { describe, expect, it } from '@jest/globals';
import { findInstance, knownInstanceTypes, neoTargetOf } from '../../../core/catalog/instances.js';
import { COMPILATION_TARGETS } from '../../../core/contracts/compilation-targets.js';

describe('instance catalog', () => {
  it('offers only compilation targets that are SageMaker TargetDevice values', () => {
    // Prepare
    const sdkTargets: readonly string[] = Object.values(TargetDevice);

    // Act
    const unknown = COMPILATION_TARGETS.filter((target) => !sdkTargets.includes(target));

    // Assert
    expect(unknown).toEqual([]);
  });

  it('records the compute capability of every NVIDIA GPU instance (or names it unknown), and none for the others', () => {
    // Act
    const capabilities = knownInstanceTypes().flatMap((type) => {
      const spec = findInstance(type);
      if (spec?.accelerator === 'unknown') return [];
      const unknown = spec?.unknownFacts.includes('computeCapability') === true;
      return [
        [spec?.accelerator.startsWith('nvidia-') ?? false, unknown ? 'unknown' : spec?.computeCapability],
      ];
    });
    const sample = ['ml.p3.2xlarge', 'ml.g4dn.xlarge', 'ml.g5.xlarge', 'ml.inf2.xlarge'].map(
      (type) => findInstance(type)?.computeCapability,
    );

    // Assert
    expect(capabilities.filter(([nvidia, capability]) => nvidia !== (capability !== undefined))).toEqual([]);
    expect(sample).toEqual([7.0, 7.5, 8.6, undefined]);
  });

  it('refuses to name a Neo target for ml.g5 and ml.t2, which have none', () => {
    // Act
    const targets = ['ml.g5.xlarge', 'ml.t2.medium', 'ml.g4dn.xlarge'].map(neoTargetOf);

    // Assert
    expect(targets).toEqual([undefined, undefined, 'ml_g4dn']);
  });

  it('runs every compilation target the run input offers on an instance type of the table', () => {
    // Act
    const withoutInstance = COMPILATION_TARGETS.filter(
      (target) => !knownInstanceTypes().some((type) => neoTargetOf(type) === target),
    );

    // Assert
    expect(withoutInstance).toEqual([]);
  });

  it('lists the compilation targets of the catalog once each', () => {
    expect(COMPILATION_TARGETS).toEqual([
      'ml_m5',
      'ml_c5',
      'ml_c6g',
      'ml_m6g',
      'ml_g4dn',
      'ml_p3',
      'ml_inf1',
      'ml_inf2',
    ]);
  });

  it('counts the accelerators a model can be sharded over: GPUs, or NeuronCores on Inferentia', () => {
    // Act
    const counts = [
      'ml.c5.xlarge',
      'ml.g5.xlarge',
      'ml.inf1.6xlarge',
      'ml.inf2.xlarge',
      'ml.inf2.8xlarge',
    ].map((type) => findInstance(type)?.acceleratorCount);

    // Assert
    expect(counts).toEqual([0, 1, 16, 2, 2]);
  });

  it('gives every accelerated instance at least one accelerator, and CPU instances none', () => {
    // Act
    const wrong = knownInstanceTypes().filter((type) => {
      const spec = findInstance(type);
      return spec === undefined || (spec.accelerator === 'none') !== (spec.acceleratorCount === 0);
    });

    // Assert
    expect(wrong).toEqual([]);
  });
});

describe('instance catalog prices', () => {
  it("takes each type's us-east-1 price from the recorded table, and none for a type no source prices", () => {
    // Act
    const prices = ['ml.c5.xlarge', 'ml.g5.xlarge', 'ml.p5.48xlarge', 'ml.g6e.2xlarge'].map(
      (type) => findInstance(type)?.usdPerHour,
    );

    // Assert
    expect(prices).toEqual([0.204, 1.408, 113.068, undefined]);
  });
});
