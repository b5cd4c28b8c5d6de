import { describe, expect, it } from '@jest/globals';
import { planServerCpu } from '../../../local/platform/cpu-budget.js';

const variant = (instanceType: string, initialInstanceCount = 1) => ({
  variantName: 'AllTraffic',
  modelName: 'm',
  instanceType,
  initialInstanceCount,
});

describe('planServerCpu', () => {
  it('gives the server the instance vCPUs as intra-op threads when the machine has them', () => {
    // Act
    const plan = planServerCpu({ variant: variant('ml.c5.xlarge'), environment: {}, availableCpus: 8 });

    // Assert
    expect(plan).toMatchObject({
      requestedVcpus: 4,
      budget: 4,
      capped: false,
      workers: 1,
      intraOpThreads: 4,
    });
    expect(plan.addedEnvironment).toEqual({ MODEL_SERVER_INTRA_OP_THREADS: '4' });
    expect(plan.warnings).toEqual([]);
  });

  it('caps the budget to the machine cores and warns', () => {
    // Act
    const plan = planServerCpu({ variant: variant('ml.c5.xlarge'), environment: {}, availableCpus: 2 });

    // Assert
    expect(plan).toMatchObject({ requestedVcpus: 4, budget: 2, capped: true, intraOpThreads: 2 });
    expect(plan.warnings).toEqual([
      'ml.c5.xlarge has 4 vCPUs; this machine has 2 cores, so its model server gets 2 threads (figures understate the instance)',
    ]);
  });

  it('shares the budget between the workers the environment asks for', () => {
    // Act
    const plan = planServerCpu({
      variant: variant('ml.c5.2xlarge'),
      environment: { SAGEMAKER_MODEL_SERVER_WORKERS: '4' },
      availableCpus: 16,
    });

    // Assert
    expect(plan).toMatchObject({ budget: 8, workers: 4, intraOpThreads: 2 });
  });

  it('counts every instance of the variant', () => {
    // Act
    const plan = planServerCpu({ variant: variant('ml.c5.large', 3), environment: {}, availableCpus: 16 });

    // Assert
    expect(plan).toMatchObject({ requestedVcpus: 6, budget: 6 });
  });

  it('honours threads set by the container environment and adds none', () => {
    // Act
    const plan = planServerCpu({
      variant: variant('ml.c5.xlarge'),
      environment: { OMP_NUM_THREADS: '3' },
      availableCpus: 8,
    });

    // Assert
    expect(plan).toMatchObject({ intraOpThreads: 3, threadsFrom: 'environment' });
    expect(plan.addedEnvironment).toEqual({});
  });

  it('prefers MODEL_SERVER_INTRA_OP_THREADS over OMP_NUM_THREADS, as the server does', () => {
    // Act
    const plan = planServerCpu({
      variant: variant('ml.c5.xlarge'),
      environment: { OMP_NUM_THREADS: '3', MODEL_SERVER_INTRA_OP_THREADS: '1' },
      availableCpus: 8,
    });

    // Assert
    expect(plan.intraOpThreads).toBe(1);
  });

  it('gives every core to an instance type it does not know, with a warning', () => {
    // Act
    const plan = planServerCpu({ variant: variant('ml.x9.huge'), environment: {}, availableCpus: 2 });

    // Assert
    expect(plan).toMatchObject({ requestedVcpus: undefined, budget: 2, capped: false });
    expect(plan.warnings[0]).toMatch(/ml\.x9\.huge is not in the instance table/);
  });

  it('approximates serverless vCPUs from the memory size, saying so', () => {
    // Act
    const plan = planServerCpu({
      variant: {
        variantName: 'AllTraffic',
        modelName: 'm',
        serverless: { memorySizeMb: 4096, maxConcurrency: 5 },
      },
      environment: {},
      availableCpus: 8,
    });

    // Assert
    expect(plan).toMatchObject({ requestedVcpus: 3, budget: 3 });
    expect(plan.warnings[0]).toMatch(/serverless 4096 MB is emulated with 3 vCPU/);
  });
});
