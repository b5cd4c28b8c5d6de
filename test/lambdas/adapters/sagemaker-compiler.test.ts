import {
  CreateCompilationJobCommand,
  DescribeCompilationJobCommand,
  ResourceInUse,
  ResourceLimitExceeded,
  ResourceNotFound,
  SageMakerClient,
  StopCompilationJobCommand,
} from '@aws-sdk/client-sagemaker';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { CompilationFailedError, QuotaExceededError } from '../../../core/contracts/errors.js';
import type { CompilationJobSpec } from '../../../core/ports/index.js';
import { SageMakerCompiler, toInputConfig } from '../../../lambdas/adapters/sagemaker-compiler.js';

const ROLE_ARN = 'arn:aws:iam::123456789012:role/mso-sagemaker-execution';
const JOB = 'mso-nightly-1a2b3c4d-cj-ml-c5';

const sagemaker = mockClient(SageMakerClient);
const compiler = new SageMakerCompiler({
  client: new SageMakerClient({ region: 'us-east-1' }),
  executionRoleArn: ROLE_ARN,
});

function spec(overrides: Partial<CompilationJobSpec> = {}): CompilationJobSpec {
  return {
    jobName: JOB,
    modelDataUrl: 's3://mso-artifacts/runs/nightly/model/model.tar.gz',
    framework: 'pytorch',
    frameworkVersion: '2.0',
    inputShape: { input0: [1, 3, 224, 224] },
    target: 'ml_c5',
    outputUri: 's3://mso-artifacts/runs/nightly/compiled/ml_c5/',
    maxRuntimeSeconds: 900,
    tags: { 'mso:run-id': 'nightly', 'mso:project': 'model-serving-optimizer' },
    ...overrides,
  };
}

describe('SageMakerCompiler', () => {
  beforeEach(() => {
    sagemaker.reset();
  });

  it('starts a Neo job with the input, output, role, time limit and tags SageMaker expects', async () => {
    // Arrange
    sagemaker.on(CreateCompilationJobCommand).resolves({ CompilationJobArn: 'arn:job' });

    // Act
    await compiler.createCompilationJob(spec());

    // Assert
    expect(sagemaker.commandCalls(CreateCompilationJobCommand)[0]?.args[0].input).toEqual({
      CompilationJobName: JOB,
      RoleArn: ROLE_ARN,
      InputConfig: {
        S3Uri: 's3://mso-artifacts/runs/nightly/model/model.tar.gz',
        DataInputConfig: '{"input0":[1,3,224,224]}',
        Framework: 'PYTORCH',
        FrameworkVersion: '2.0',
      },
      OutputConfig: {
        S3OutputLocation: 's3://mso-artifacts/runs/nightly/compiled/ml_c5/',
        TargetDevice: 'ml_c5',
      },
      StoppingCondition: { MaxRuntimeInSeconds: 900 },
      Tags: [
        { Key: 'mso:project', Value: 'model-serving-optimizer' },
        { Key: 'mso:run-id', Value: 'nightly' },
      ],
    });
  });

  it('refuses to let Neo compile int64 token ids as float32: sends the dtype as CompilerOptions', async () => {
    // Arrange
    sagemaker.on(CreateCompilationJobCommand).resolves({ CompilationJobArn: 'arn:job' });

    // Act
    await compiler.createCompilationJob(
      spec({ target: 'ml_g4dn', inputShape: { input_ids: [1, 128] }, inputDataType: 'int64' }),
    );

    // Assert
    expect(sagemaker.commandCalls(CreateCompilationJobCommand)[0]?.args[0].input).toEqual({
      CompilationJobName: JOB,
      RoleArn: ROLE_ARN,
      InputConfig: {
        S3Uri: 's3://mso-artifacts/runs/nightly/model/model.tar.gz',
        DataInputConfig: '{"input_ids":[1,128]}',
        Framework: 'PYTORCH',
        FrameworkVersion: '2.0',
      },
      OutputConfig: {
        S3OutputLocation: 's3://mso-artifacts/runs/nightly/compiled/ml_c5/',
        TargetDevice: 'ml_g4dn',
        CompilerOptions: '{"dtype":"int64"}',
      },
      StoppingCondition: { MaxRuntimeInSeconds: 900 },
      Tags: [
        { Key: 'mso:project', Value: 'model-serving-optimizer' },
        { Key: 'mso:run-id', Value: 'nightly' },
      ],
    });
  });

  it('sends a Neuron target’s compiler flags as CompilerOptions, a JSON string as Neo takes them for Inferentia', async () => {
    // Arrange
    sagemaker.on(CreateCompilationJobCommand).resolves({ CompilationJobArn: 'arn:job' });

    // Act
    await compiler.createCompilationJob(
      spec({ target: 'ml_inf2', compilerOptions: '--auto-cast matmult --auto-cast-type fp16' }),
    );

    // Assert
    expect(sagemaker.commandCalls(CreateCompilationJobCommand)[0]?.args[0].input.OutputConfig).toEqual({
      S3OutputLocation: 's3://mso-artifacts/runs/nightly/compiled/ml_c5/',
      TargetDevice: 'ml_inf2',
      CompilerOptions: '"--auto-cast matmult --auto-cast-type fp16"',
    });
  });

  it('leaves FrameworkVersion out for ONNX, which Neo accepts only for MXNet, PyTorch, TensorFlow and TFLite', () => {
    expect(toInputConfig(spec({ framework: 'onnx', frameworkVersion: '1.17' }))).toEqual({
      S3Uri: 's3://mso-artifacts/runs/nightly/model/model.tar.gz',
      DataInputConfig: '{"input0":[1,3,224,224]}',
      Framework: 'ONNX',
    });
  });

  it('leaves DataInputConfig out when there is no input shape (XGBoost needs none)', () => {
    const { inputShape: _unused, ...withoutShape } = spec({ framework: 'xgboost' });

    expect(toInputConfig(withoutShape)).toEqual({
      S3Uri: 's3://mso-artifacts/runs/nightly/model/model.tar.gz',
      Framework: 'XGBOOST',
    });
  });

  it('fails when the framework is not one Neo compiles', () => {
    expect(() => toInputConfig(spec({ framework: 'sklearn-pipeline' }))).toThrow(
      'Compilation: got the framework "sklearn-pipeline", expected one of onnx, pytorch, tensorflow, tflite, mxnet, keras, xgboost',
    );
  });

  it('succeeds when the job name is already in use (a retried step)', async () => {
    sagemaker
      .on(CreateCompilationJobCommand)
      .rejects(new ResourceInUse({ message: `Job ${JOB} already exists`, $metadata: {} }));

    await expect(compiler.createCompilationJob(spec())).resolves.toBeUndefined();
  });

  it('fails when the concurrent compilation job quota is reached, with QuotaExceededError', async () => {
    sagemaker.on(CreateCompilationJobCommand).rejects(
      new ResourceLimitExceeded({
        message: 'The account-level service limit for compilation jobs is 10',
        $metadata: {},
      }),
    );

    const error = await compiler.createCompilationJob(spec()).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(QuotaExceededError);
    expect((error as Error).message).toContain(`CreateCompilationJob for compilation job ${JOB}`);
    expect((error as Error).message).toContain('Service Quotas');
  });

  it('fails when asked to quantize, which Neo cannot, before any CreateCompilationJob', async () => {
    // Prepare
    sagemaker.on(CreateCompilationJobCommand).resolves({ CompilationJobArn: 'arn:job' });

    // Act
    const error = await compiler
      .createCompilationJob(
        spec({ quantization: { type: 'int8', calibrationRange: [-1, 1], calibrationSamples: 16 } }),
      )
      .catch((e: unknown) => e);

    // Assert
    expect(error).toBeInstanceOf(CompilationFailedError);
    expect((error as Error).message).toContain('SageMaker Neo has no quantization option');
    expect(sagemaker.commandCalls(CreateCompilationJobCommand)).toHaveLength(0);
  });

  it('describes a completed job with its artifact and inference image', async () => {
    sagemaker.on(DescribeCompilationJobCommand, { CompilationJobName: JOB }).resolves({
      CompilationJobName: JOB,
      CompilationJobStatus: 'COMPLETED',
      FailureReason: '',
      ModelArtifacts: {
        S3ModelArtifacts: 's3://mso-artifacts/runs/nightly/compiled/ml_c5/model-ml_c5.tar.gz',
      },
      InferenceImage: '301217895009.dkr.ecr.us-west-2.amazonaws.com/sagemaker-inference-pytorch:1.6-inf-py3',
    });

    await expect(compiler.describeCompilationJob(JOB)).resolves.toEqual({
      jobName: JOB,
      status: 'COMPLETED',
      artifactUri: 's3://mso-artifacts/runs/nightly/compiled/ml_c5/model-ml_c5.tar.gz',
      inferenceImage: '301217895009.dkr.ecr.us-west-2.amazonaws.com/sagemaker-inference-pytorch:1.6-inf-py3',
    });
  });

  it("describes a failed job with SageMaker's failure reason", async () => {
    sagemaker.on(DescribeCompilationJobCommand).resolves({
      CompilationJobName: JOB,
      CompilationJobStatus: 'FAILED',
      FailureReason: 'ClientError: InputConfiguration: Unable to load PyTorch model',
    });

    await expect(compiler.describeCompilationJob(JOB)).resolves.toEqual({
      jobName: JOB,
      status: 'FAILED',
      failureReason: 'ClientError: InputConfiguration: Unable to load PyTorch model',
    });
  });

  it('returns undefined for a job that does not exist', async () => {
    sagemaker
      .on(DescribeCompilationJobCommand)
      .rejects(new ResourceNotFound({ message: 'not found', $metadata: {} }));

    await expect(compiler.describeCompilationJob(JOB)).resolves.toBeUndefined();
  });

  it('stops a job by name', async () => {
    sagemaker.on(StopCompilationJobCommand).resolves({});

    await compiler.stopCompilationJob(JOB);

    expect(sagemaker.commandCalls(StopCompilationJobCommand)[0]?.args[0].input).toEqual({
      CompilationJobName: JOB,
    });
  });
});
