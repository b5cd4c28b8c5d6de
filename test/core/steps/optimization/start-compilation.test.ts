import { describe, expect, it } from '@jest/globals';
import type { CompilationDeps } from '../../../../core/deployment/compilation-job.js';
import { startCompilation } from '../../../../core/steps/optimization/start-compilation.js';
import type { CompilationJobSpec, ModelCompiler } from '../../../../core/ports/index.js';
import type { RunPlan } from '../../../../core/contracts/optimization-state.js';
import { runPlan } from '../../../../bench/fixtures/sample-report.js';
import { silentLogger } from '../../../support/memory-object-store.js';
import type { Quantization } from '../../../../core/contracts/quantization.js';

const MODEL_DATA_URL = 's3://mso-artifacts/runs/nightly-2026-11-22/model/model.tar.gz';

class RecordingCompiler implements ModelCompiler {
  readonly specs: CompilationJobSpec[] = [];
  createCompilationJob(spec: CompilationJobSpec): Promise<void> {
    this.specs.push(spec);
    return Promise.resolve();
  }
  describeCompilationJob(): Promise<undefined> {
    return Promise.resolve(undefined);
  }
  stopCompilationJob(): Promise<void> {
    return Promise.resolve();
  }
}

function bertPlan(): RunPlan {
  return runPlan([], {
    model: {
      artifactUri: 's3://mso-artifacts/models/bert/model.tar.gz',
      framework: 'pytorch',
      frameworkVersion: '1.13',
      inputShape: { input_ids: [1, 128] },
      inputDataType: 'int64',
      environment: {},
      packagedUri: MODEL_DATA_URL,
      needsPackaging: false,
    },
  });
}

async function startFor(
  target: string,
  compilerOptions?: string,
  quantization?: Quantization,
): Promise<CompilationJobSpec | undefined> {
  const compiler = new RecordingCompiler();
  const deps: CompilationDeps = {
    compiler,
    logger: silentLogger,
    pollSeconds: 30,
    maxPollSeconds: 120,
    nowEpochMs: () => 0,
  };
  await startCompilation(
    {
      plan: bertPlan(),
      compilation: {
        target,
        jobName: `job-${target}`,
        outputUri: `s3://mso-artifacts/compiled/${target}/`,
        ...(compilerOptions === undefined ? {} : { compilerOptions }),
        ...(quantization === undefined ? {} : { quantization }),
      },
      packagedModel: { modelDataUrl: MODEL_DATA_URL, reused: true },
    },
    deps,
  );
  return compiler.specs[0];
}

describe('startCompilation', () => {
  it('passes the target’s planned compiler flags to the job, and none when the plan has none', async () => {
    // Act
    const withFlags = await startFor('ml_inf2', '--auto-cast matmult --auto-cast-type fp16');
    const without = await startFor('ml_inf2');

    // Assert
    expect(withFlags?.compilerOptions).toBe('--auto-cast matmult --auto-cast-type fp16');
    expect(without).not.toHaveProperty('compilerOptions');
  });

  it('passes the target’s planned int8 quantization to the job', async () => {
    // Prepare
    const quantization: Quantization = { type: 'int8', calibrationRange: [-1, 1], calibrationSamples: 16 };

    // Act
    const spec = await startFor('ml_c5', undefined, quantization);

    // Assert
    expect(spec?.quantization).toEqual(quantization);
  });

  it('refuses to drop the PyTorch input data type for a GPU target, which takes CompilerOptions dtype', async () => {
    // Act
    const spec = await startFor('ml_g4dn');

    // Assert
    expect(spec).toEqual({
      jobName: 'job-ml_g4dn',
      modelDataUrl: MODEL_DATA_URL,
      framework: 'pytorch',
      frameworkVersion: '1.13',
      inputShape: { input_ids: [1, 128] },
      inputDataType: 'int64',
      target: 'ml_g4dn',
      outputUri: 's3://mso-artifacts/compiled/ml_g4dn/',
      maxRuntimeSeconds: 900,
      tags: {},
    });
  });

  it('leaves the data type out for a Neuron target, which takes no dtype', async () => {
    // Act
    const spec = await startFor('ml_inf2');

    // Assert
    expect(spec?.inputDataType).toBeUndefined();
  });
});
