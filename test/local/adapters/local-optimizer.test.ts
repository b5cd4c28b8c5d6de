import { describe, expect, it } from '@jest/globals';
import type { OptimizationJobSpec } from '../../../core/ports/index.js';
import { LocalOptimizer, localTargetOf } from '../../../local/adapters/local-optimizer.js';
import { unpackModelArchive } from '../../../core/deployment/model-archive.js';
import { MemoryObjectStore, silentLogger } from '../../support/memory-object-store.js';
import { exampleModelArchive, waitFor } from '../platform/support/model-artifacts.js';

const MODEL_URI = 's3://local-artifacts/runs/r1/model/model.tar.gz';
const JOB = 'mso-r1-oj-inf2-neuron';

function jobSpec(overrides: Partial<OptimizationJobSpec> = {}): OptimizationJobSpec {
  return {
    jobName: JOB,
    modelDataUrl: MODEL_URI,
    deploymentInstanceType: 'ml.inf2.xlarge',
    techniques: { compilation: {}, quantization: { overrideEnvironment: { OPTION_QUANTIZE: 'fp8' } } },
    outputUri: 's3://local-artifacts/runs/r1/optimized/inf2-neuron/',
    maxRuntimeSeconds: 900,
    tags: {},
    framework: 'onnx',
    ...overrides,
  };
}

async function finished(optimizer: LocalOptimizer, jobName: string) {
  await waitFor(
    `${jobName} to finish`,
    async () => (await optimizer.describeOptimizationJob(jobName))?.status !== 'INPROGRESS',
  );
  return optimizer.describeOptimizationJob(jobName);
}

describe('LocalOptimizer', () => {
  it('optimizes the packaged ONNX model into a model.tar.gz under the output URI, served by the local image, and says what it stood in for', async () => {
    // Prepare
    const store = new MemoryObjectStore().seed(MODEL_URI, await exampleModelArchive());
    const optimizer = new LocalOptimizer({ store, logger: silentLogger });

    // Act
    await optimizer.createOptimizationJob(jobSpec());
    const job = await finished(optimizer, JOB);

    // Assert
    expect(job).toEqual({
      jobName: JOB,
      status: 'COMPLETED',
      modelData: { uri: 's3://local-artifacts/runs/r1/optimized/inf2-neuron/model.tar.gz', compressed: true },
      recommendedImage: 'local',
      note: expect.stringMatching(
        /^Optimized locally with ONNX Runtime offline graph optimization for this machine's CPU, standing in for compilation \+ quantization\. .*Inferentia2/,
      ),
    });
    expect(optimizer.jobNames()).toEqual([JOB]);
  });

  it('optimizes a model given as the uncompressed S3 prefix an optimization job reads', async () => {
    // Prepare
    const prefix = 's3://local-artifacts/runs/r1/model/files/';
    const store = new MemoryObjectStore();
    for (const file of await unpackModelArchive(
      await exampleModelArchive(),
      'model.artifactUri',
      'model.tar.gz',
    )) {
      store.seed(`${prefix}${file.path}`, file.bytes);
    }
    const optimizer = new LocalOptimizer({ store, logger: silentLogger });

    // Act
    await optimizer.createOptimizationJob(jobSpec({ modelDataUrl: prefix }));
    const job = await finished(optimizer, JOB);

    // Assert
    expect(job).toMatchObject({
      status: 'COMPLETED',
      modelData: { uri: 's3://local-artifacts/runs/r1/optimized/inf2-neuron/model.tar.gz', compressed: true },
    });
  });

  it('reports a model it cannot optimize as a FAILED job with the reason', async () => {
    // Prepare
    const store = new MemoryObjectStore().seed(MODEL_URI, await exampleModelArchive());
    const optimizer = new LocalOptimizer({ store, logger: silentLogger });

    // Act
    await optimizer.createOptimizationJob(jobSpec({ framework: 'pytorch' }));
    const job = await finished(optimizer, JOB);

    // Assert
    expect(job).toEqual({
      jobName: JOB,
      status: 'FAILED',
      failureReason: 'Local mode compiles ONNX models only: got framework "pytorch", expected "onnx"',
    });
  });

  it('stops a job still running: it ends STOPPED and its result is dropped', async () => {
    // Prepare
    const store = new MemoryObjectStore().seed(MODEL_URI, await exampleModelArchive());
    const optimizer = new LocalOptimizer({ store, logger: silentLogger });
    await optimizer.createOptimizationJob(jobSpec());

    // Act
    await optimizer.stopOptimizationJob(JOB);
    await optimizer.drain();

    // Assert
    expect(await optimizer.describeOptimizationJob(JOB)).toEqual({
      jobName: JOB,
      status: 'STOPPED',
      failureReason: 'Stopped by StopOptimizationJob',
    });
  });

  it('optimizes for the local compiler target of the instance family, or the GPU of ml.g5 when it has none', () => {
    // Act
    const targets = ['ml.inf2.xlarge', 'ml.g5.2xlarge', 'ml.trn1.2xlarge', 'ml.p6-b200.48xlarge'].map(
      localTargetOf,
    );

    // Assert
    expect(targets).toEqual(['ml_inf2', 'ml_g5', 'ml_g5', 'ml_g5']);
  });
});
