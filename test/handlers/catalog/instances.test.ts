import { TargetDevice } from '@aws-sdk/client-sagemaker';
import { describe, expect, it } from '@jest/globals';
import { COMPILATION_TARGETS, neoTargetOf } from '../../../handlers/catalog/instances.js';

describe('instance catalog', () => {
  it('offers only compilation targets that are SageMaker TargetDevice values', () => {
    // Prepare
    const sdkTargets: readonly string[] = Object.values(TargetDevice);

    // Act
    const unknown = COMPILATION_TARGETS.filter((target) => !sdkTargets.includes(target));

    // Assert
    expect(unknown).toEqual([]);
  });

  it('refuses to name a Neo target for ml.g5 and ml.t2, which have none', () => {
    // Act
    const targets = ['ml.g5.xlarge', 'ml.t2.medium', 'ml.g4dn.xlarge'].map(neoTargetOf);

    // Assert
    expect(targets).toEqual([undefined, undefined, 'ml_g4dn']);
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
});
