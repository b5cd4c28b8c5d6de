import { describe, expect, it } from '@jest/globals';
import { checkCompilation } from '../../../../core/steps/optimization/check-compilation.js';
import { CompilationOutcomes, type CompilationState } from '../../../../core/contracts/optimization-state.js';
import type { CompilationJobDescription, ModelCompiler } from '../../../../core/ports/index.js';
import type { CompilationDeps } from '../../../../core/deployment/compilation-job.js';
import { silentLogger } from '../../../support/memory-object-store.js';

const NOW_MS = Date.parse('2026-11-22T10:00:00Z');
const JOB = 'mso-nightly-2026-11-22-ab12cd34-cj-ml_c5';

/** A compiler whose DescribeCompilationJob answers `description`, recording the jobs it stops. */
class AnsweringCompiler implements ModelCompiler {
  readonly stopped: string[] = [];
  constructor(private readonly description: CompilationJobDescription | undefined) {}
  createCompilationJob(): Promise<void> {
    return Promise.resolve();
  }
  describeCompilationJob(): Promise<CompilationJobDescription | undefined> {
    return Promise.resolve(this.description);
  }
  stopCompilationJob(jobName: string): Promise<void> {
    this.stopped.push(jobName);
    return Promise.resolve();
  }
}

const STARTED: CompilationState = {
  target: 'ml_c5',
  jobName: JOB,
  status: CompilationOutcomes.inProgress,
  waitSeconds: 30,
  deadlineEpochMs: NOW_MS + 60_000,
};

function deps(compiler: ModelCompiler, nowEpochMs = NOW_MS): CompilationDeps {
  return {
    compiler,
    logger: silentLogger,
    pollSeconds: 30,
    maxPollSeconds: 120,
    nowEpochMs: () => nowEpochMs,
  };
}

describe('checkCompilation', () => {
  it('reports the artifact and the image Neo named once the job completed', async () => {
    // Arrange
    const compiler = new AnsweringCompiler({
      jobName: JOB,
      status: 'COMPLETED',
      artifactUri: 's3://mso-artifacts/runs/nightly-2026-11-22/compiled/ml_c5/model-ml_c5.tar.gz',
      inferenceImage: '785573368785.dkr.ecr.us-east-1.amazonaws.com/sagemaker-neo-onnx:1.5.0-cpu-py3',
    });

    // Act
    const state = await checkCompilation(STARTED, deps(compiler));

    // Assert
    expect(state).toEqual({
      ...STARTED,
      status: CompilationOutcomes.completed,
      artifactUri: 's3://mso-artifacts/runs/nightly-2026-11-22/compiled/ml_c5/model-ml_c5.tar.gz',
      inferenceImage: '785573368785.dkr.ecr.us-east-1.amazonaws.com/sagemaker-neo-onnx:1.5.0-cpu-py3',
    });
  });

  it('waits again, twice as long, while the job runs', async () => {
    // Arrange
    const compiler = new AnsweringCompiler({ jobName: JOB, status: 'INPROGRESS' });

    // Act
    const state = await checkCompilation(STARTED, deps(compiler));

    // Assert
    expect(state).toEqual({ ...STARTED, status: CompilationOutcomes.inProgress, waitSeconds: 60 });
  });

  it('reports a failed job as an outcome with SageMaker’s reason, not as an error', async () => {
    // Arrange
    const compiler = new AnsweringCompiler({
      jobName: JOB,
      status: 'FAILED',
      failureReason: 'ClientError: InputConfiguration: Unable to load the model',
    });

    // Act
    const state = await checkCompilation(STARTED, deps(compiler));

    // Assert
    expect(state).toEqual({
      ...STARTED,
      status: CompilationOutcomes.failed,
      failureReason: 'ClientError: InputConfiguration: Unable to load the model',
    });
  });

  it('redacts a credential quoted in a failed job’s reason', async () => {
    // Arrange
    const compiler = new AnsweringCompiler({
      jobName: JOB,
      status: 'FAILED',
      failureReason: 'ClientError: could not read s3 with key AKIAIOSFODNN7EXAMPLE',
    });

    // Act
    const state = await checkCompilation(STARTED, deps(compiler));

    // Assert
    expect(state.failureReason).toBe('ClientError: could not read s3 with key <credential>');
  });

  it('stops a job still running past its deadline and reports it failed', async () => {
    // Arrange
    const compiler = new AnsweringCompiler({ jobName: JOB, status: 'INPROGRESS' });

    // Act
    const state = await checkCompilation(STARTED, deps(compiler, STARTED.deadlineEpochMs + 1));

    // Assert
    expect(compiler.stopped).toEqual([JOB]);
    expect(state).toEqual({
      ...STARTED,
      status: CompilationOutcomes.failed,
      failureReason:
        'Compilation did not finish by its deadline (2026-11-22T10:01:00.000Z); the job was stopped',
    });
  });

  it('reports a job that is not found as failed', async () => {
    // Act
    const state = await checkCompilation(STARTED, deps(new AnsweringCompiler(undefined)));

    // Assert
    expect(state).toEqual({
      ...STARTED,
      status: CompilationOutcomes.failed,
      failureReason: `Compilation job ${JOB} not found`,
    });
  });
});
