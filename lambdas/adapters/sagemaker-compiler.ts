import {
  CreateCompilationJobCommand,
  DescribeCompilationJobCommand,
  type Framework,
  type InputConfig,
  type OutputConfig,
  type SageMakerClient,
  StopCompilationJobCommand,
  type TargetDevice,
} from '@aws-sdk/client-sagemaker';
import {
  type CompilationJobDescription,
  type CompilationJobSpec,
  type CompilationStatus,
  CompilationStatuses,
  type ModelCompiler,
} from '../../core/ports/index.js';
import { createJobOnce, describeOrUndefined, stopJob } from './sagemaker-errors.js';
import { toSageMakerTags } from './sagemaker-tags.js';
import {
  type LlmContainer,
  FRAMEWORKS,
  compilerOptionsParameter,
  CompilationFailedError,
} from '../../core/contracts/index.js';

export interface SageMakerCompilerOptions {
  readonly client: SageMakerClient;
  /**
   * The role SageMaker Neo assumes to read the model and write the compiled artifact. Only
   * `createCompilationJob` needs it.
   */
  readonly executionRoleArn?: string;
}

/**
 * The run input's framework names → Neo's `InputConfig.Framework` values. Neo has no Hugging Face
 * nor LLM-container framework: the run input refuses compilation targets for those models.
 */
const NEO_FRAMEWORKS: Readonly<
  Record<Exclude<(typeof FRAMEWORKS)[number], 'huggingface' | LlmContainer>, Framework>
> = {
  onnx: 'ONNX',
  pytorch: 'PYTORCH',
  tensorflow: 'TENSORFLOW',
  tflite: 'TFLITE',
  mxnet: 'MXNET',
  keras: 'KERAS',
  xgboost: 'XGBOOST',
};

/**
 * `FrameworkVersion` "is only supported for the MXNet, PyTorch, TensorFlow and TensorFlow Lite
 * frameworks" (SageMaker API reference, InputConfig); Neo rejects it for the others, so the
 * version the run input gives for those (used to choose a serving image) is not sent.
 */
const VERSIONED_FRAMEWORKS: ReadonlySet<Framework> = new Set(['MXNET', 'PYTORCH', 'TENSORFLOW', 'TFLITE']);

const KNOWN_STATUSES: ReadonlySet<string> = new Set(Object.values(CompilationStatuses));

function isCompilationStatus(value: string | undefined): value is CompilationStatus {
  return value !== undefined && KNOWN_STATUSES.has(value);
}

function neoFramework(framework: string): Framework {
  const neo = (NEO_FRAMEWORKS as Readonly<Record<string, Framework>>)[framework.toLowerCase()];
  if (neo === undefined) {
    throw new TypeError(
      `Compilation: got the framework ${JSON.stringify(framework)}, expected one of ${FRAMEWORKS.join(', ')}`,
    );
  }
  return neo;
}

/** Neo's `InputConfig` for a job: framework in Neo's spelling, shapes as a JSON dictionary. */
export function toInputConfig(spec: CompilationJobSpec): InputConfig {
  const framework = neoFramework(spec.framework);
  return {
    S3Uri: spec.modelDataUrl,
    // A JSON dictionary of input name → shape, e.g. {"input0":[1,3,224,224]}; XGBoost needs none
    // (SageMaker API reference, InputConfig.DataInputConfig).
    ...(spec.inputShape === undefined ? {} : { DataInputConfig: JSON.stringify(spec.inputShape) }),
    Framework: framework,
    ...(spec.frameworkVersion !== undefined && VERSIONED_FRAMEWORKS.has(framework)
      ? { FrameworkVersion: spec.frameworkVersion }
      : {}),
  };
}

/**
 * Neo's `OutputConfig`. `CompilerOptions` carries the PyTorch input dtype as the JSON string
 * `{"dtype":"int64"}`; without it Neo compiles PyTorch inputs as float32 (SageMaker API reference,
 * OutputConfig.CompilerOptions, DTYPE). For a Neuron target it carries the compiler's flags as a
 * JSON string instead (OutputConfig.CompilerOptions, INFERENTIA); the two never meet, as Neuron
 * targets take no dtype.
 */
export function toOutputConfig(spec: CompilationJobSpec): OutputConfig {
  const compilerOptions =
    spec.compilerOptions !== undefined
      ? compilerOptionsParameter(spec.compilerOptions)
      : spec.inputDataType !== undefined
        ? JSON.stringify({ dtype: spec.inputDataType })
        : undefined;
  return {
    S3OutputLocation: spec.outputUri,
    TargetDevice: spec.target as TargetDevice,
    ...(compilerOptions === undefined ? {} : { CompilerOptions: compilerOptions }),
  };
}

/** `ModelCompiler` over SageMaker Neo: CreateCompilationJob, DescribeCompilationJob, StopCompilationJob. */
export class SageMakerCompiler implements ModelCompiler {
  private readonly client: SageMakerClient;
  private readonly executionRoleArn: string | undefined;

  constructor(options: SageMakerCompilerOptions) {
    this.client = options.client;
    this.executionRoleArn = options.executionRoleArn;
  }

  private requireRole(): string {
    if (this.executionRoleArn === undefined) {
      throw new Error(
        `SageMakerCompiler.createCompilationJob needs the SageMaker execution role: got none, expected executionRoleArn ` +
          '(the SAGEMAKER_EXECUTION_ROLE_ARN variable of the steps that create SageMaker resources)',
      );
    }
    return this.executionRoleArn;
  }

  async createCompilationJob(spec: CompilationJobSpec): Promise<void> {
    if (spec.quantization !== undefined) {
      // Planning refuses it on AWS (core/planning/input-rules.ts); never dropped silently.
      throw new CompilationFailedError(
        `Compilation ${spec.jobName} for ${spec.target} asks for int8 quantization: expected none, as SageMaker Neo has no quantization option`,
        { target: spec.target },
      );
    }
    const command = new CreateCompilationJobCommand({
      CompilationJobName: spec.jobName,
      RoleArn: this.requireRole(),
      InputConfig: toInputConfig(spec),
      OutputConfig: toOutputConfig(spec),
      StoppingCondition: { MaxRuntimeInSeconds: spec.maxRuntimeSeconds },
      Tags: toSageMakerTags(spec.tags),
    });
    await createJobOnce(() => this.client.send(command), {
      operation: 'CreateCompilationJob',
      kind: 'compilation job',
      resourceName: spec.jobName,
    });
  }

  async describeCompilationJob(jobName: string): Promise<CompilationJobDescription | undefined> {
    const job = await describeOrUndefined(
      () => this.client.send(new DescribeCompilationJobCommand({ CompilationJobName: jobName })),
      { operation: 'DescribeCompilationJob', kind: 'compilation job', resourceName: jobName },
    );
    if (job === undefined) return undefined;
    const status = job.CompilationJobStatus;
    if (!isCompilationStatus(status)) {
      throw new Error(
        `DescribeCompilationJob ${jobName}: got the status ${JSON.stringify(status)}, expected one of ` +
          `${[...KNOWN_STATUSES].join(', ')}; update the ports' CompilationStatuses for this new status`,
      );
    }
    const artifactUri = job.ModelArtifacts?.S3ModelArtifacts;
    // FailureReason is a required member of the response; an empty one says nothing.
    const failureReason = job.FailureReason === '' ? undefined : job.FailureReason;
    return {
      jobName,
      status,
      ...(failureReason === undefined ? {} : { failureReason }),
      ...(artifactUri === undefined ? {} : { artifactUri }),
      ...(job.InferenceImage === undefined ? {} : { inferenceImage: job.InferenceImage }),
    };
  }

  async stopCompilationJob(jobName: string): Promise<void> {
    await stopJob(() => this.client.send(new StopCompilationJobCommand({ CompilationJobName: jobName })), {
      operation: 'StopCompilationJob',
      kind: 'compilation job',
      resourceName: jobName,
    });
  }
}
