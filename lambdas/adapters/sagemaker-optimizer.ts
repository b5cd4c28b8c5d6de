import {
  CreateOptimizationJobCommand,
  DescribeOptimizationJobCommand,
  type OptimizationConfig,
  type OptimizationJobDeploymentInstanceType,
  type SageMakerClient,
  StopOptimizationJobCommand,
} from '@aws-sdk/client-sagemaker';
import {
  type ModelOptimizer,
  type OptimizationJobDescription,
  type OptimizationJobSpec,
  type OptimizationStatus,
  OptimizationStatuses,
  type OptimizationTechniqueSpec,
} from '../../core/ports/index.js';
import { createJobOnce, describeOrUndefined, stopJob } from './sagemaker-errors.js';
import { toSageMakerTags } from './sagemaker-tags.js';

export interface SageMakerOptimizerOptions {
  readonly client: SageMakerClient;
  /**
   * The role SageMaker assumes to read the model, write the optimized one and its logs (the
   * caller needs iam:PassRole on it: SageMaker API reference, CreateOptimizationJob `RoleArn`).
   * Only `createOptimizationJob` needs it.
   */
  readonly executionRoleArn?: string;
}

const KNOWN_STATUSES: ReadonlySet<string> = new Set(Object.values(OptimizationStatuses));

function isOptimizationStatus(value: string | undefined): value is OptimizationStatus {
  return value !== undefined && KNOWN_STATUSES.has(value);
}

function technique(spec: OptimizationTechniqueSpec): {
  Image?: string;
  OverrideEnvironment?: Record<string, string>;
} {
  return {
    ...(spec.image === undefined ? {} : { Image: spec.image }),
    ...(spec.overrideEnvironment === undefined
      ? {}
      : { OverrideEnvironment: { ...spec.overrideEnvironment } }),
  };
}

/**
 * `OptimizationConfigs`: one union entry per technique (`OptimizationConfig`: ModelQuantizationConfig,
 * ModelCompilationConfig, ModelShardingConfig), quantization first, as the model is quantized
 * before it is compiled for the accelerator.
 */
export function toOptimizationConfigs(spec: OptimizationJobSpec): OptimizationConfig[] {
  const { quantization, compilation, sharding } = spec.techniques;
  return [
    ...(quantization === undefined ? [] : [{ ModelQuantizationConfig: technique(quantization) }]),
    ...(compilation === undefined ? [] : [{ ModelCompilationConfig: technique(compilation) }]),
    ...(sharding === undefined ? [] : [{ ModelShardingConfig: technique(sharding) }]),
  ];
}

/** `ModelOptimizer` over SageMaker: CreateOptimizationJob, DescribeOptimizationJob, StopOptimizationJob. */
export class SageMakerOptimizer implements ModelOptimizer {
  private readonly client: SageMakerClient;
  private readonly executionRoleArn: string | undefined;

  constructor(options: SageMakerOptimizerOptions) {
    this.client = options.client;
    this.executionRoleArn = options.executionRoleArn;
  }

  private requireRole(): string {
    if (this.executionRoleArn === undefined) {
      throw new Error(
        'SageMakerOptimizer.createOptimizationJob needs the SageMaker execution role: got none, expected executionRoleArn ' +
          '(the SAGEMAKER_EXECUTION_ROLE_ARN variable of the steps that create SageMaker resources)',
      );
    }
    return this.executionRoleArn;
  }

  async createOptimizationJob(spec: OptimizationJobSpec): Promise<void> {
    const command = new CreateOptimizationJobCommand({
      OptimizationJobName: spec.jobName,
      RoleArn: this.requireRole(),
      ModelSource: {
        S3: {
          S3Uri: spec.modelDataUrl,
          ...(spec.acceptEula === undefined ? {} : { ModelAccessConfig: { AcceptEula: spec.acceptEula } }),
        },
      },
      // The run input holds the values of SageMaker's enum (optimization-input.ts).
      DeploymentInstanceType: spec.deploymentInstanceType as OptimizationJobDeploymentInstanceType,
      ...(spec.environment === undefined ? {} : { OptimizationEnvironment: { ...spec.environment } }),
      OptimizationConfigs: toOptimizationConfigs(spec),
      OutputConfig: { S3OutputLocation: spec.outputUri },
      StoppingCondition: { MaxRuntimeInSeconds: spec.maxRuntimeSeconds },
      Tags: toSageMakerTags(spec.tags),
    });
    await createJobOnce(() => this.client.send(command), {
      operation: 'CreateOptimizationJob',
      kind: 'optimization job',
      resourceName: spec.jobName,
    });
  }

  async describeOptimizationJob(jobName: string): Promise<OptimizationJobDescription | undefined> {
    const job = await describeOrUndefined(
      () => this.client.send(new DescribeOptimizationJobCommand({ OptimizationJobName: jobName })),
      { operation: 'DescribeOptimizationJob', kind: 'optimization job', resourceName: jobName },
    );
    if (job === undefined) return undefined;
    const status = job.OptimizationJobStatus;
    if (!isOptimizationStatus(status)) {
      throw new Error(
        `DescribeOptimizationJob ${jobName}: got the status ${JSON.stringify(status)}, expected one of ` +
          `${[...KNOWN_STATUSES].join(', ')}; update the ports' OptimizationStatuses for this new status`,
      );
    }
    const failureReason = job.FailureReason === '' ? undefined : job.FailureReason;
    const outputUri = job.OutputConfig?.S3OutputLocation;
    const recommendedImage = job.OptimizationOutput?.RecommendedInferenceImage;
    return {
      jobName,
      status,
      ...(failureReason === undefined ? {} : { failureReason }),
      // SageMaker writes the optimized model's files under S3OutputLocation, uncompressed.
      ...(status === OptimizationStatuses.completed && outputUri !== undefined
        ? { modelData: { uri: outputUri, compressed: false } }
        : {}),
      ...(recommendedImage === undefined || recommendedImage === '' ? {} : { recommendedImage }),
    };
  }

  async stopOptimizationJob(jobName: string): Promise<void> {
    await stopJob(() => this.client.send(new StopOptimizationJobCommand({ OptimizationJobName: jobName })), {
      operation: 'StopOptimizationJob',
      kind: 'optimization job',
      resourceName: jobName,
    });
  }
}
