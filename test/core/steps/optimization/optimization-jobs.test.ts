import { describe, expect, it } from '@jest/globals';
import { checkCompilation } from '../../../../core/steps/optimization/check-compilation.js';
import {
  CompilationOutcomes,
  type CompilationState,
  type PlannedCompilation,
  type RunPlan,
} from '../../../../core/contracts/optimization-state.js';
import type {
  ModelCompiler,
  ModelOptimizer,
  OptimizationJobDescription,
  OptimizationJobSpec,
} from '../../../../core/ports/index.js';
import type { CompilationDeps } from '../../../../core/deployment/compilation-job.js';
import { startCompilation } from '../../../../core/steps/optimization/start-compilation.js';
import { silentLogger } from '../../../support/memory-object-store.js';
import { runPlan } from '../../../../bench/fixtures/sample-report.js';

/** "Start compilation job" and "Check compilation job" for an optimization item of the compile Map. */

const NOW_MS = Date.parse('2026-11-24T10:00:00Z');
const JOB = 'mso-nightly-2026-11-22-ab12cd34-oj-g5-awq';
const MODEL_DATA_URL = 's3://mso-artifacts/runs/nightly-2026-11-22/model/model.tar.gz';
const MODEL_PREFIX_URI = 's3://mso-artifacts/runs/nightly-2026-11-22/model/files/';
const OUTPUT_URI = 's3://mso-artifacts/runs/nightly-2026-11-22/optimized/g5-awq/';
const LMI_IMAGE = '763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.29.0-lmi11.0.0-cu124';

/** A compiler no optimization item may reach: each call fails the test. */
const NO_COMPILER: ModelCompiler = {
  createCompilationJob: () => Promise.reject(new Error('CreateCompilationJob called for an optimization')),
  describeCompilationJob: () =>
    Promise.reject(new Error('DescribeCompilationJob called for an optimization')),
  stopCompilationJob: () => Promise.reject(new Error('StopCompilationJob called for an optimization')),
};

/** An optimizer that records its calls and answers DescribeOptimizationJob with `description`. */
class RecordingOptimizer implements ModelOptimizer {
  readonly created: OptimizationJobSpec[] = [];
  readonly stopped: string[] = [];
  constructor(private readonly description?: OptimizationJobDescription) {}
  createOptimizationJob(spec: OptimizationJobSpec): Promise<void> {
    this.created.push(spec);
    return Promise.resolve();
  }
  describeOptimizationJob(): Promise<OptimizationJobDescription | undefined> {
    return Promise.resolve(this.description);
  }
  stopOptimizationJob(jobName: string): Promise<void> {
    this.stopped.push(jobName);
    return Promise.resolve();
  }
}

function deps(optimizer: ModelOptimizer | undefined, nowEpochMs = NOW_MS): CompilationDeps {
  return {
    compiler: NO_COMPILER,
    ...(optimizer === undefined ? {} : { optimizer }),
    logger: silentLogger,
    pollSeconds: 30,
    maxPollSeconds: 120,
    nowEpochMs: () => nowEpochMs,
  };
}

const OPTIMIZATION: PlannedCompilation = {
  target: 'g5-awq',
  jobName: JOB,
  outputUri: OUTPUT_URI,
  optimization: {
    deploymentInstanceType: 'ml.g5.xlarge',
    techniques: { quantization: { overrideEnvironment: { OPTION_QUANTIZE: 'awq' } } },
    acceptEula: true,
  },
};

function llmPlan(): RunPlan {
  return runPlan([], {
    model: {
      artifactUri: 's3://user-models/llm/model.tar.gz',
      framework: 'pytorch',
      environment: {},
      packagedUri: MODEL_DATA_URL,
      needsPackaging: false,
    },
    compilationMaxRuntimeSeconds: 1800,
    tags: { 'mso:run-id': 'nightly-2026-11-22' },
  });
}

const STARTED: CompilationState = {
  target: 'g5-awq',
  kind: 'optimization',
  jobName: JOB,
  status: CompilationOutcomes.inProgress,
  waitSeconds: 30,
  deadlineEpochMs: NOW_MS + 60_000,
};

describe('startCompilation for an optimization', () => {
  it('creates the optimization job with the run’s model, tags and runtime, and returns a state the check loop polls', async () => {
    // Prepare
    const optimizer = new RecordingOptimizer();

    // Act
    const state = await startCompilation(
      {
        plan: llmPlan(),
        compilation: OPTIMIZATION,
        packagedModel: { modelDataUrl: MODEL_DATA_URL, modelPrefixUri: MODEL_PREFIX_URI, reused: true },
      },
      deps(optimizer),
    );

    // Assert
    expect(optimizer.created).toEqual([
      {
        jobName: JOB,
        // The uncompressed prefix "Package model" unpacked, not the archive.
        modelDataUrl: MODEL_PREFIX_URI,
        acceptEula: true,
        deploymentInstanceType: 'ml.g5.xlarge',
        techniques: { quantization: { overrideEnvironment: { OPTION_QUANTIZE: 'awq' } } },
        outputUri: OUTPUT_URI,
        maxRuntimeSeconds: 1800,
        tags: { 'mso:run-id': 'nightly-2026-11-22' },
        framework: 'pytorch',
      },
    ]);
    expect(state).toEqual({
      target: 'g5-awq',
      kind: 'optimization',
      jobName: JOB,
      status: CompilationOutcomes.inProgress,
      waitSeconds: 30,
      // The job's runtime plus the margin for queueing and upload (600 s), as for Neo.
      deadlineEpochMs: NOW_MS + (1800 + 600) * 1000,
    });
  });

  it('fails when the step was wired without an optimizer, naming what to wire', async () => {
    // Act
    const act = startCompilation(
      {
        plan: llmPlan(),
        compilation: OPTIMIZATION,
        packagedModel: { modelDataUrl: MODEL_DATA_URL, modelPrefixUri: MODEL_PREFIX_URI, reused: true },
      },
      deps(undefined),
    );

    // Assert
    await expect(act).rejects.toThrow(
      `Optimization job ${JOB}: got no ModelOptimizer in the step's dependencies, expected one ` +
        "(lambdas/wiring.ts sagemakerOptimizer, or the local environment's optimizer)",
    );
  });
});

describe('startCompilation for an optimization: its source', () => {
  it('fails when the packaged model has no unpacked prefix, rather than pass the archive as the job’s source', async () => {
    // Prepare
    const optimizer = new RecordingOptimizer();

    // Act
    const error = await startCompilation(
      {
        plan: llmPlan(),
        compilation: OPTIMIZATION,
        packagedModel: { modelDataUrl: MODEL_DATA_URL, reused: true },
      },
      deps(optimizer),
    ).catch((e: unknown) => e);

    // Assert
    expect(error).toMatchObject({ name: 'CompilationFailedError' });
    expect(optimizer.created).toEqual([]);
  });
});

describe('checkCompilation for an optimization', () => {
  it('reports the optimized model (uncompressed files) and the image SageMaker recommends once COMPLETED', async () => {
    // Prepare
    const optimizer = new RecordingOptimizer({
      jobName: JOB,
      status: 'COMPLETED',
      modelData: { uri: OUTPUT_URI, compressed: false },
      recommendedImage: LMI_IMAGE,
    });

    // Act
    const state = await checkCompilation(STARTED, deps(optimizer));

    // Assert
    expect(state).toEqual({
      ...STARTED,
      status: CompilationOutcomes.completed,
      artifactUri: OUTPUT_URI,
      artifactUncompressed: true,
      inferenceImage: LMI_IMAGE,
    });
  });

  it('waits again, twice as long, while the job is STARTING or INPROGRESS', async () => {
    // Prepare
    const optimizer = new RecordingOptimizer({ jobName: JOB, status: 'STARTING' });

    // Act
    const state = await checkCompilation(STARTED, deps(optimizer));

    // Assert
    expect(state).toEqual({ ...STARTED, status: CompilationOutcomes.inProgress, waitSeconds: 60 });
  });

  it('reports a FAILED job as an outcome with SageMaker’s FailureReason', async () => {
    // Prepare
    const optimizer = new RecordingOptimizer({
      jobName: JOB,
      status: 'FAILED',
      failureReason: 'ClientError: The model architecture is not supported for quantization',
    });

    // Act
    const state = await checkCompilation(STARTED, deps(optimizer));

    // Assert
    expect(state).toEqual({
      ...STARTED,
      status: CompilationOutcomes.failed,
      failureReason: 'ClientError: The model architecture is not supported for quantization',
    });
  });

  it('reports a STOPPED job without a reason as failed, saying how it ended', async () => {
    // Prepare
    const optimizer = new RecordingOptimizer({ jobName: JOB, status: 'STOPPED' });

    // Act
    const state = await checkCompilation(STARTED, deps(optimizer));

    // Assert
    expect(state).toEqual({
      ...STARTED,
      status: CompilationOutcomes.failed,
      failureReason: 'Optimization job ended STOPPED',
    });
  });

  it('reports a job that SageMaker no longer knows as failed', async () => {
    // Prepare
    const optimizer = new RecordingOptimizer(undefined);

    // Act
    const state = await checkCompilation(STARTED, deps(optimizer));

    // Assert
    expect(state).toEqual({
      ...STARTED,
      status: CompilationOutcomes.failed,
      failureReason: `Optimization job ${JOB} not found`,
    });
  });

  it('refuses a COMPLETED job without an optimized model as a success', async () => {
    // Prepare
    const optimizer = new RecordingOptimizer({ jobName: JOB, status: 'COMPLETED' });

    // Act
    const state = await checkCompilation(STARTED, deps(optimizer));

    // Assert
    expect(state).toEqual({
      ...STARTED,
      status: CompilationOutcomes.failed,
      failureReason: 'Completed without an optimized model',
    });
  });

  it('stops a job still running past its deadline and reports it failed', async () => {
    // Prepare
    const optimizer = new RecordingOptimizer({ jobName: JOB, status: 'INPROGRESS' });

    // Act
    const state = await checkCompilation(STARTED, deps(optimizer, NOW_MS + 60_001));

    // Assert
    expect(optimizer.stopped).toEqual([JOB]);
    expect(state).toEqual({
      ...STARTED,
      status: CompilationOutcomes.failed,
      failureReason:
        'Optimization did not finish by its deadline (2026-11-24T10:01:00.000Z); the job was stopped',
    });
  });
});
