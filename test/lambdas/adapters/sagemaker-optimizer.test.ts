import {
  CreateOptimizationJobCommand,
  DescribeOptimizationJobCommand,
  ResourceInUse,
  ResourceLimitExceeded,
  ResourceNotFound,
  SageMakerClient,
  SageMakerServiceException,
  StopOptimizationJobCommand,
} from '@aws-sdk/client-sagemaker';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { QuotaExceededError, TransientServiceError } from '../../../core/contracts/errors.js';
import type { OptimizationJobSpec } from '../../../core/ports/index.js';
import { SageMakerOptimizer } from '../../../lambdas/adapters/sagemaker-optimizer.js';

const ROLE_ARN = 'arn:aws:iam::123456789012:role/mso-sagemaker-execution';
const JOB = 'mso-nightly-1a2b3c4d-oj-inf2-neuron';
const OUTPUT_URI = 's3://mso-artifacts/runs/nightly/optimized/inf2-neuron/';
const LMI_NEURONX = '763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.29.0-neuronx-sdk2.19.1';

const sagemaker = mockClient(SageMakerClient);
const optimizer = new SageMakerOptimizer({
  client: new SageMakerClient({ region: 'us-east-1' }),
  executionRoleArn: ROLE_ARN,
});

function spec(overrides: Partial<OptimizationJobSpec> = {}): OptimizationJobSpec {
  return {
    jobName: JOB,
    modelDataUrl: 's3://mso-artifacts/runs/nightly/model/model.tar.gz',
    deploymentInstanceType: 'ml.inf2.xlarge',
    techniques: {
      compilation: { overrideEnvironment: { OPTION_TENSOR_PARALLEL_DEGREE: '2' } },
      quantization: { image: LMI_NEURONX, overrideEnvironment: { OPTION_QUANTIZE: 'fp8' } },
    },
    outputUri: OUTPUT_URI,
    maxRuntimeSeconds: 1800,
    tags: { 'mso:run-id': 'nightly', 'mso:project': 'model-serving-optimizer' },
    framework: 'pytorch',
    ...overrides,
  };
}

describe('SageMakerOptimizer', () => {
  beforeEach(() => {
    sagemaker.reset();
  });

  it('creates the job with the model source, instance type, techniques in order, output, time limit, role and tags', async () => {
    // Prepare
    sagemaker.on(CreateOptimizationJobCommand).resolves({ OptimizationJobArn: 'arn:job' });

    // Act
    await optimizer.createOptimizationJob(spec({ acceptEula: true, environment: { OPTION_DTYPE: 'bf16' } }));

    // Assert
    expect(sagemaker.commandCalls(CreateOptimizationJobCommand)[0]?.args[0].input).toEqual({
      OptimizationJobName: JOB,
      RoleArn: ROLE_ARN,
      ModelSource: {
        S3: {
          S3Uri: 's3://mso-artifacts/runs/nightly/model/model.tar.gz',
          ModelAccessConfig: { AcceptEula: true },
        },
      },
      DeploymentInstanceType: 'ml.inf2.xlarge',
      OptimizationEnvironment: { OPTION_DTYPE: 'bf16' },
      OptimizationConfigs: [
        { ModelQuantizationConfig: { Image: LMI_NEURONX, OverrideEnvironment: { OPTION_QUANTIZE: 'fp8' } } },
        { ModelCompilationConfig: { OverrideEnvironment: { OPTION_TENSOR_PARALLEL_DEGREE: '2' } } },
      ],
      OutputConfig: { S3OutputLocation: OUTPUT_URI },
      StoppingCondition: { MaxRuntimeInSeconds: 1800 },
      Tags: [
        { Key: 'mso:project', Value: 'model-serving-optimizer' },
        { Key: 'mso:run-id', Value: 'nightly' },
      ],
    });
  });

  it('sends no ModelAccessConfig nor OptimizationEnvironment when the run gives none', async () => {
    // Prepare
    sagemaker.on(CreateOptimizationJobCommand).resolves({ OptimizationJobArn: 'arn:job' });

    // Act
    await optimizer.createOptimizationJob(spec({ techniques: { sharding: {} } }));

    // Assert
    const input = sagemaker.commandCalls(CreateOptimizationJobCommand)[0]?.args[0].input;
    expect(input?.ModelSource).toEqual({
      S3: { S3Uri: 's3://mso-artifacts/runs/nightly/model/model.tar.gz' },
    });
    expect(input?.OptimizationConfigs).toEqual([{ ModelShardingConfig: {} }]);
    expect(input).not.toHaveProperty('OptimizationEnvironment');
  });

  it('treats ResourceInUse as the job a retried step already created', async () => {
    // Prepare
    sagemaker
      .on(CreateOptimizationJobCommand)
      .rejects(new ResourceInUse({ message: `Optimization job ${JOB} already exists`, $metadata: {} }));

    // Act
    const act = optimizer.createOptimizationJob(spec());

    // Assert
    await expect(act).resolves.toBeUndefined();
  });

  it('fails with QuotaExceededError naming the job when the account’s optimization job quota is reached', async () => {
    // Prepare
    sagemaker
      .on(CreateOptimizationJobCommand)
      .rejects(new ResourceLimitExceeded({ message: 'The account-level service limit is 2', $metadata: {} }));

    // Act
    const error = await optimizer.createOptimizationJob(spec()).catch((e: unknown) => e);

    // Assert
    expect(error).toBeInstanceOf(QuotaExceededError);
    expect((error as Error).message).toBe(
      `CreateOptimizationJob for optimization job ${JOB} failed: the account's SageMaker quota is reached ` +
        '(SageMaker says: The account-level service limit is 2). Request an increase of the quota SageMaker ' +
        'names in Service Quotas (service: Amazon SageMaker), or delete optimization jobs the account no longer needs.',
    );
  });

  it('fails with TransientServiceError when SageMaker still throttles after the SDK’s retries', async () => {
    // Prepare
    sagemaker.on(CreateOptimizationJobCommand).rejects(
      new SageMakerServiceException({
        name: 'ThrottlingException',
        $fault: 'client',
        message: 'Rate exceeded',
        $metadata: { httpStatusCode: 400 },
      }),
    );

    // Act
    const error = await optimizer.createOptimizationJob(spec()).catch((e: unknown) => e);

    // Assert
    expect(error).toBeInstanceOf(TransientServiceError);
  });

  it('passes a validation error through unchanged: its name is what the workflow’s Catch records', async () => {
    // Prepare
    const refused = new SageMakerServiceException({
      name: 'ValidationException',
      $fault: 'client',
      message: 'Model architecture LlamaForCausalLM is not supported for compilation on ml.inf2.xlarge',
      $metadata: { httpStatusCode: 400 },
    });
    sagemaker.on(CreateOptimizationJobCommand).rejects(refused);

    // Act
    const error = await optimizer.createOptimizationJob(spec()).catch((e: unknown) => e);

    // Assert
    expect(error).toBe(refused);
  });

  it('fails when created without the execution role, naming the variable to set', async () => {
    // Prepare
    const withoutRole = new SageMakerOptimizer({ client: new SageMakerClient({ region: 'us-east-1' }) });

    // Act
    const act = withoutRole.createOptimizationJob(spec());

    // Assert
    await expect(act).rejects.toThrow(
      'SageMakerOptimizer.createOptimizationJob needs the SageMaker execution role: got none, expected executionRoleArn ' +
        '(the SAGEMAKER_EXECUTION_ROLE_ARN variable of the steps that create SageMaker resources)',
    );
  });

  it('describes a completed job: its output location as uncompressed model data and the recommended image', async () => {
    // Prepare
    sagemaker.on(DescribeOptimizationJobCommand, { OptimizationJobName: JOB }).resolves({
      OptimizationJobName: JOB,
      OptimizationJobStatus: 'COMPLETED',
      OutputConfig: { S3OutputLocation: OUTPUT_URI },
      OptimizationOutput: { RecommendedInferenceImage: LMI_NEURONX },
    });

    // Act
    const job = await optimizer.describeOptimizationJob(JOB);

    // Assert
    expect(job).toEqual({
      jobName: JOB,
      status: 'COMPLETED',
      modelData: { uri: OUTPUT_URI, compressed: false },
      recommendedImage: LMI_NEURONX,
    });
  });

  it('describes a failed job with SageMaker’s reason and no model data', async () => {
    // Prepare
    sagemaker.on(DescribeOptimizationJobCommand, { OptimizationJobName: JOB }).resolves({
      OptimizationJobName: JOB,
      OptimizationJobStatus: 'FAILED',
      FailureReason: 'AlgorithmError: out of memory while quantizing',
      OutputConfig: { S3OutputLocation: OUTPUT_URI },
    });

    // Act
    const job = await optimizer.describeOptimizationJob(JOB);

    // Assert
    expect(job).toEqual({
      jobName: JOB,
      status: 'FAILED',
      failureReason: 'AlgorithmError: out of memory while quantizing',
    });
  });

  it('describes a job SageMaker does not know as undefined', async () => {
    // Prepare
    sagemaker
      .on(DescribeOptimizationJobCommand)
      .rejects(new ResourceNotFound({ message: 'not found', $metadata: {} }));

    // Act
    const job = await optimizer.describeOptimizationJob(JOB);

    // Assert
    expect(job).toBeUndefined();
  });

  it('refuses a status the ports do not know, saying where to add it', async () => {
    // Prepare
    sagemaker
      .on(DescribeOptimizationJobCommand)
      .resolves({ OptimizationJobName: JOB, OptimizationJobStatus: 'PAUSED' as never });

    // Act
    const act = optimizer.describeOptimizationJob(JOB);

    // Assert
    await expect(act).rejects.toThrow(
      `DescribeOptimizationJob ${JOB}: got the status "PAUSED", expected one of INPROGRESS, COMPLETED, FAILED, ` +
        "STARTING, STOPPING, STOPPED; update the ports' OptimizationStatuses for this new status",
    );
  });

  it('stops a job by name, and treats a job already gone as stopped', async () => {
    // Prepare
    sagemaker
      .on(StopOptimizationJobCommand, { OptimizationJobName: JOB })
      .resolves({})
      .on(StopOptimizationJobCommand, { OptimizationJobName: 'mso-gone' })
      .rejects(new ResourceNotFound({ message: 'not found', $metadata: {} }));

    // Act
    await optimizer.stopOptimizationJob(JOB);
    await optimizer.stopOptimizationJob('mso-gone');

    // Assert
    expect(sagemaker.commandCalls(StopOptimizationJobCommand).map((call) => call.args[0].input)).toEqual([
      { OptimizationJobName: JOB },
      { OptimizationJobName: 'mso-gone' },
    ]);
  });
});
