import type { InvokeRequest, InvokeTransport, StreamInvokeTransport } from '../load-test/index.js';
import type { InstanceCountPoint } from '../serving/index.js';
import type {
  HostedResourceNames,
  Quantization,
  RoutingStrategy,
  RealtimeScalingRequests,
} from '../contracts/index.js';

/**
 * Ports: what the core needs from the world. AWS adapters live in `lambdas/adapters/`, local ones
 * in `local/adapters/`; the core receives them as arguments, so tests pass fakes or local adapters.
 */

export interface ObjectMetadata {
  readonly sizeBytes: number;
  readonly etag?: string;
}

export interface ObjectStore {
  /** Metadata, or `undefined` when nothing is stored at `uri`. */
  head(uri: string): Promise<ObjectMetadata | undefined>;
  getBytes(uri: string): Promise<Uint8Array>;
  /**
   * The object's first `count` bytes (fewer when it is shorter), without reading the rest: enough
   * to check a file's signature (e.g. gzip's) on a model of gigabytes. Fails as `getBytes` does
   * when nothing is stored at `uri`.
   */
  getFirstBytes(uri: string, count: number): Promise<Uint8Array>;
  putBytes(uri: string, body: Uint8Array, contentType?: string): Promise<void>;
  /**
   * The objects under a prefix URI (ending with `/`), in key order, at most `limit` of them:
   * `truncated` says more exist. Prefixes ("folders") themselves are not objects.
   */
  list(prefixUri: string, limit: number): Promise<ObjectListing>;
}

export interface ObjectListing {
  readonly uris: readonly string[];
  readonly truncated: boolean;
}

/** Structured logger (Powertools on AWS, a console logger locally). Never pass secrets or tokens. */
export interface Logger {
  info(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
}

/** SageMaker's endpoint statuses (DescribeEndpoint `EndpointStatus`). */
export const EndpointStatuses = {
  outOfService: 'OutOfService',
  creating: 'Creating',
  updating: 'Updating',
  systemUpdating: 'SystemUpdating',
  rollingBack: 'RollingBack',
  inService: 'InService',
  deleting: 'Deleting',
  failed: 'Failed',
  updateRollbackFailed: 'UpdateRollbackFailed',
} as const;
export type EndpointStatus = (typeof EndpointStatuses)[keyof typeof EndpointStatuses];

export interface ProductionVariantSpec {
  readonly variantName: string;
  readonly modelName: string;
  /** Real-time variants: instance type and count. */
  readonly instanceType?: string;
  readonly initialInstanceCount?: number;
  /** `RoutingConfig.RoutingStrategy` of a real-time variant. @default RANDOM (SageMaker's) */
  readonly routingStrategy?: RoutingStrategy;
  /** Serverless variants: memory and concurrency instead of instances. */
  readonly serverless?: { readonly memorySizeMb: number; readonly maxConcurrency: number };
}

export interface ModelSpec {
  readonly modelName: string;
  readonly image: string;
  /** Absent for a Hugging Face Hub model without inference code: its container downloads the model. */
  readonly modelDataUrl?: string;
  /**
   * `modelDataUrl` is an S3 prefix of uncompressed files (an optimization job's output), sent as
   * `ModelDataSource.S3DataSource` with `S3DataType: S3Prefix` and `CompressionType: None`.
   */
  readonly modelDataUncompressed?: boolean;
  readonly environment: Readonly<Record<string, string>>;
  readonly tags: Readonly<Record<string, string>>;
}

export interface EndpointDescription {
  readonly endpointName: string;
  readonly status: EndpointStatus;
  readonly failureReason?: string;
  /** Instance type and count of the first production variant, when the endpoint config says. */
  readonly instanceType?: string;
  readonly instanceCount?: number;
  /** The first variant's name and its current instance count (0 when an async endpoint scaled in). */
  readonly variantName?: string;
  readonly currentInstanceCount?: number;
  /**
   * Every production variant's name, when SageMaker lists them (DescribeEndpoint
   * `ProductionVariants`): more than one means the traffic splits between variants by weight.
   */
  readonly variantNames?: readonly string[];
  /** The endpoint config's `AsyncInferenceConfig`; absent for real-time and serverless endpoints. */
  readonly asyncInference?: AsyncInferenceDescription;
}

/**
 * SageMaker `AsyncInferenceConfig` as the project deploys it: results and failures written to S3,
 * success and error notifications published to SNS (which resume the waiting tasks).
 */
export interface AsyncInferenceSpec {
  /** `OutputConfig.S3OutputPath`: where SageMaker writes each result. */
  readonly s3OutputPath: string;
  /** `OutputConfig.S3FailurePath`: where it writes the model's error responses. */
  readonly s3FailurePath: string;
  /** `OutputConfig.KmsKeyId`: the key that encrypts results. */
  readonly kmsKeyId?: string;
  /** `OutputConfig.NotificationConfig.SuccessTopic` / `ErrorTopic`. */
  readonly successTopicArn: string;
  readonly errorTopicArn: string;
  /** `ClientConfig.MaxConcurrentInvocationsPerInstance`; SageMaker picks a value when absent. */
  readonly maxConcurrentInvocationsPerInstance?: number;
}

/** What DescribeEndpointConfig says of an existing endpoint's async config (fields may be absent). */
export type AsyncInferenceDescription = Partial<AsyncInferenceSpec> & { readonly s3OutputPath?: string };

export interface RunResources {
  readonly endpoints: readonly string[];
  readonly endpointConfigs: readonly string[];
  readonly models: readonly string[];
  readonly compilationJobs: readonly string[];
  /** The run's optimization jobs (ListOptimizationJobs); absent where a host lists none. */
  readonly optimizationJobs?: readonly string[];
}

/**
 * The SageMaker hosting operations the workflow needs. Create operations are idempotent: asking
 * again for a resource that exists with the same name succeeds (a retried step must not fail).
 * Quota errors surface as `QuotaExceededError`, throttling as `TransientServiceError`.
 */
export interface ModelHost {
  createModel(spec: ModelSpec): Promise<void>;
  createEndpointConfig(spec: {
    readonly endpointConfigName: string;
    readonly variant: ProductionVariantSpec;
    readonly tags: Readonly<Record<string, string>>;
    /** Makes it an asynchronous endpoint (real-time instances only, not serverless). */
    readonly asyncInference?: AsyncInferenceSpec;
  }): Promise<void>;
  createEndpoint(spec: {
    readonly endpointName: string;
    readonly endpointConfigName: string;
    readonly tags: Readonly<Record<string, string>>;
  }): Promise<void>;
  /** `undefined` when no endpoint has that name. */
  describeEndpoint(endpointName: string): Promise<EndpointDescription | undefined>;
  /** Each returns whether something was deleted; a missing resource is not an error. */
  deleteEndpoint(endpointName: string): Promise<boolean>;
  deleteEndpointConfig(endpointConfigName: string): Promise<boolean>;
  deleteModel(modelName: string): Promise<boolean>;
  /** Adds tags to an endpoint, its endpoint config and its model (e.g. the keep tag). */
  addTags(resources: HostedResourceNames, tags: Readonly<Record<string, string>>): Promise<void>;
  /** Everything that exists for a run, found by its name prefix and run-id tag. */
  listRunResources(runId: string, namePrefix: string): Promise<RunResources>;
  /**
   * Every endpoint, endpoint config and model whose name starts with `namePrefix`, with its
   * creation time, tags and what it uses: what the janitor decides on. Tags are not filtered here
   * (the caller decides), and a resource that vanishes while being listed is left out.
   */
  listProjectResources(query: ProjectResourcesQuery): Promise<ProjectResources>;
}

export interface ProjectResourcesQuery {
  readonly namePrefix: string;
  /**
   * Endpoint configs and models created at or after this instant may be left out (SageMaker's
   * `CreationTimeBefore`). Endpoints are always all listed, whatever their age: a young endpoint
   * can still use an old config or model, which must then be kept.
   */
  readonly createdBeforeEpochMs: number;
}

/** A hosting resource as `listProjectResources` finds it. */
export interface HostedResource {
  readonly name: string;
  readonly createdEpochMs: number;
  readonly tags: Readonly<Record<string, string>>;
}

export interface HostedEndpoint extends HostedResource {
  readonly status: EndpointStatus;
  /** `undefined` when SageMaker no longer says (the config was deleted under the endpoint). */
  readonly endpointConfigName?: string;
  /** Its production variants: each may be an autoscaling scalable target. */
  readonly variantNames: readonly string[];
  /** Models its config serves: kept while the endpoint lives. */
  readonly modelNames: readonly string[];
}

export interface HostedEndpointConfig extends HostedResource {
  readonly modelNames: readonly string[];
}

export interface ProjectResources {
  readonly endpoints: readonly HostedEndpoint[];
  readonly endpointConfigs: readonly HostedEndpointConfig[];
  readonly models: readonly HostedResource[];
}

/**
 * Application Auto Scaling for endpoint variants. SageMaker deregisters a deleted endpoint's
 * scalable targets itself only when the caller may call DeregisterScalableTarget ("Delete endpoints
 * configured for auto scaling", SageMaker developer guide); deregistering first makes it explicit.
 */
export interface ScalingRegistry {
  /**
   * Returns whether a scalable target was deregistered; a variant never registered is not an error.
   * Deregistering deletes the target's scaling policies (Application Auto Scaling does) and the
   * step-scaling alarm `configureAsyncScaling` created (the adapter does).
   */
  deregisterEndpointVariant(endpointName: string, variantName: string): Promise<boolean>;
  /**
   * Autoscaling of an async endpoint's variant between 0 and `maxInstanceCount`: target tracking on
   * `ApproximateBacklogSizePerInstance`, plus a step-scaling policy on `HasBacklogWithoutCapacity`
   * (target tracking cannot scale out from zero: with no instance there is no per-instance backlog;
   * SageMaker developer guide, "Autoscale an asynchronous endpoint"). Idempotent.
   */
  configureAsyncScaling(endpointName: string, variantName: string, policy: AsyncScalingPolicy): Promise<void>;
}

/**
 * What applies a real-time variant's target tracking (Application Auto Scaling): the report's
 * RegisterScalableTarget and PutScalingPolicy requests (contracts/scaling-requests.ts).
 * Removed by `ScalingRegistry.deregisterEndpointVariant`.
 */
export interface RealtimeScalingApplier {
  applyRealtimeScaling(requests: RealtimeScalingRequests): Promise<void>;
}

/**
 * A real-time endpoint's instances over a time window, for the ramp's arithmetic
 * (serving/ramp.ts `rampOutcome`): the last point at or before `fromEpochMs`, then every change up
 * to `toEpochMs`, oldest first; empty for an endpoint never seen. Locally the front's own series
 * (kept after the endpoint is deleted); on AWS the variant's scaling activities
 * (lambdas/adapters/application-autoscaling-series.ts), which need the count before the first one.
 */
export interface EndpointInstanceSeriesReader {
  instanceSeries(
    endpointName: string,
    fromEpochMs: number,
    toEpochMs: number,
    /** The count the endpoint was deployed with, for readers that cannot see it (AWS activities). */
    options?: { readonly initialInService?: number },
  ): Promise<readonly InstanceCountPoint[]>;
}

export interface AsyncScalingPolicy {
  readonly minInstanceCount: number;
  readonly maxInstanceCount: number;
  /** Target value of `ApproximateBacklogSizePerInstance`. */
  readonly targetBacklogPerInstance: number;
  readonly scaleInCooldownSeconds: number;
  readonly scaleOutCooldownSeconds: number;
}

/** One scaling activity of an endpoint variant (Application Auto Scaling DescribeScalingActivities). */
export interface ScalingActivity {
  readonly startEpochMs: number;
  /** Absent while the activity is in progress. */
  readonly endEpochMs?: number;
  /** The desired instance count the activity set, when its description says. */
  readonly toInstanceCount?: number;
  /** `Successful`, `InProgress`, `Failed`, … */
  readonly status: string;
  readonly description: string;
}

/** Queue figures of an async endpoint over a window (CloudWatch `AWS/SageMaker`, or local). */
export interface AsyncBacklogMetrics {
  /** `TimeInBacklog`: how long requests waited in the queue before processing. */
  readonly timeInBacklogMs?: { readonly average: number; readonly maximum: number };
  /** `ApproximateBacklogSize`, the largest value seen. */
  readonly maxBacklogSize?: number;
}

/** The endpoint's `ApproximateBacklogSize` (requests queued or being processed) from `atEpochMs` on. */
export interface BacklogSample {
  readonly atEpochMs: number;
  readonly size: number;
}

/**
 * How an async endpoint behaved during a run: its scaling activities and its queue. Best effort:
 * CloudWatch publishes with a delay of minutes, so figures may be missing right after a burst.
 */
export interface AsyncEndpointObserver {
  scalingActivities(
    endpointName: string,
    variantName: string,
    sinceEpochMs: number,
  ): Promise<readonly ScalingActivity[]>;
  backlogMetrics(
    endpointName: string,
    startEpochMs: number,
    endEpochMs: number,
  ): Promise<AsyncBacklogMetrics>;
  /**
   * The backlog over the window, oldest first, as finely as it was recorded (every change locally,
   * a period's maximum on AWS); empty when nothing was recorded.
   */
  backlogSeries(
    endpointName: string,
    startEpochMs: number,
    endEpochMs: number,
  ): Promise<readonly BacklogSample[]>;
}

/** SageMaker's compilation job statuses (DescribeCompilationJob `CompilationJobStatus`). */
export const CompilationStatuses = {
  inProgress: 'INPROGRESS',
  completed: 'COMPLETED',
  failed: 'FAILED',
  starting: 'STARTING',
  stopping: 'STOPPING',
  stopped: 'STOPPED',
} as const;
export type CompilationStatus = (typeof CompilationStatuses)[keyof typeof CompilationStatuses];

export interface CompilationJobSpec {
  readonly jobName: string;
  readonly modelDataUrl: string;
  readonly framework: string;
  readonly frameworkVersion?: string;
  readonly inputShape?: Readonly<Record<string, readonly number[]>>;
  /**
   * The inputs' data type (`float32`, `int64`), sent as Neo's CompilerOptions `dtype`; set only for
   * PyTorch on targets that take it (core/catalog/neo-support.ts).
   */
  readonly inputDataType?: string;
  /**
   * A Neuron target's compiler flags (core/contracts/compiler-options.ts), sent JSON-encoded as
   * CompilerOptions; never set with `inputDataType` (Neuron targets take no dtype).
   */
  readonly compilerOptions?: string;
  /**
   * The target's int8 quantization (core/contracts/quantization.ts): the local compiler's only;
   * planning refuses it for an AWS run, as Neo has no such option.
   */
  readonly quantization?: Quantization;
  readonly target: string;
  readonly outputUri: string;
  readonly maxRuntimeSeconds: number;
  readonly tags: Readonly<Record<string, string>>;
}

export interface CompilationJobDescription {
  readonly jobName: string;
  readonly status: CompilationStatus;
  readonly failureReason?: string;
  /** The compiled `model.tar.gz`, once COMPLETED. */
  readonly artifactUri?: string;
  /** The serving image Neo recommends for the artifact (`InferenceImage`), when it says. */
  readonly inferenceImage?: string;
  /** What was really compiled for, when it differs from the target (local mode says so). */
  readonly note?: string;
}

/** SageMaker Neo / Neuron compilation (CreateCompilationJob and friends). Idempotent creates. */
export interface ModelCompiler {
  createCompilationJob(spec: CompilationJobSpec): Promise<void>;
  describeCompilationJob(jobName: string): Promise<CompilationJobDescription | undefined>;
  stopCompilationJob(jobName: string): Promise<void>;
}

/**
 * SageMaker's optimization job statuses (DescribeOptimizationJob `OptimizationJobStatus`: the
 * `OptimizationJobStatus` enum of the SageMaker Smithy model, aws/api-models-aws). The same six
 * values as a compilation job's, kept apart so that one service changing cannot hide in the other.
 */
export const OptimizationStatuses = {
  inProgress: 'INPROGRESS',
  completed: 'COMPLETED',
  failed: 'FAILED',
  starting: 'STARTING',
  stopping: 'STOPPING',
  stopped: 'STOPPED',
} as const;
export type OptimizationStatus = (typeof OptimizationStatuses)[keyof typeof OptimizationStatuses];

/** One technique of an optimization job (`ModelCompilationConfig`, `ModelQuantizationConfig`, `ModelShardingConfig`). */
export interface OptimizationTechniqueSpec {
  /** An LMI image that runs the optimization; absent: SageMaker chooses. */
  readonly image?: string;
  /** `OverrideEnvironment`, e.g. `{ OPTION_QUANTIZE: 'awq' }`. */
  readonly overrideEnvironment?: Readonly<Record<string, string>>;
}

export interface OptimizationTechniques {
  readonly compilation?: OptimizationTechniqueSpec;
  readonly quantization?: OptimizationTechniqueSpec;
  readonly sharding?: OptimizationTechniqueSpec;
}

export interface OptimizationJobSpec {
  readonly jobName: string;
  /** The source model: an S3 prefix (ending with `/`) of its uncompressed files (`ModelSource.S3.S3Uri`). */
  readonly modelDataUrl: string;
  /** `ModelSource.S3.ModelAccessConfig.AcceptEula`, for models whose licence must be accepted. */
  readonly acceptEula?: boolean;
  readonly deploymentInstanceType: string;
  /** `OptimizationEnvironment`: the model container's variables while it is optimized. */
  readonly environment?: Readonly<Record<string, string>>;
  readonly techniques: OptimizationTechniques;
  readonly outputUri: string;
  readonly maxRuntimeSeconds: number;
  readonly tags: Readonly<Record<string, string>>;
  /** The run's model framework: local mode optimizes ONNX models only. */
  readonly framework: string;
}

export interface OptimizationJobDescription {
  readonly jobName: string;
  readonly status: OptimizationStatus;
  readonly failureReason?: string;
  /** Where the optimized model is, once COMPLETED. */
  readonly modelData?: {
    readonly uri: string;
    /**
     * `false`: an S3 prefix of uncompressed files (SageMaker writes the optimized model so), which
     * CreateModel takes as `ModelDataSource` with `CompressionType: None`; `true`: a model.tar.gz.
     */
    readonly compressed: boolean;
  };
  /** `OptimizationOutput.RecommendedInferenceImage`: the image SageMaker recommends to serve it. */
  readonly recommendedImage?: string;
  /** What was really optimized for, when it differs from the instance type (local mode says so). */
  readonly note?: string;
}

/** SageMaker inference optimization jobs (CreateOptimizationJob and friends). Idempotent creates. */
export interface ModelOptimizer {
  createOptimizationJob(spec: OptimizationJobSpec): Promise<void>;
  describeOptimizationJob(jobName: string): Promise<OptimizationJobDescription | undefined>;
  stopOptimizationJob(jobName: string): Promise<void>;
}

/**
 * Opens a load-test transport to an endpoint: SageMaker Runtime on AWS, HTTP to the local model
 * server in local mode. `connections` is the most requests the worker will have in flight.
 */
export type TransportFactory = (target: {
  readonly endpointName: string;
  readonly connections: number;
  readonly requestTimeoutMs: number;
}) => InvokeTransport;

/**
 * The same for a plan that streams responses (`loadPlan.response.mode` `stream`):
 * `InvokeEndpointWithResponseStream` on AWS, chunked HTTP to the local model server.
 */
export type StreamTransportFactory = (target: Parameters<TransportFactory>[0]) => StreamInvokeTransport;

/** One endpoint's answer to one request, its body kept: what the output-quality guard compares. */
export type EndpointAnswer =
  | {
      readonly ok: true;
      readonly body: Uint8Array;
      readonly contentType?: string;
      /**
       * The local model server's `X-Output-Shape` for a raw float32 body. SageMaker's InvokeEndpoint
       * passes on the container's body, `Content-Type` and custom attributes only, so on AWS it is
       * absent and a raw answer reads as one flat row.
       */
      readonly outputShape?: string;
    }
  | { readonly ok: false; readonly problem: string };

/** Sends one request to an endpoint and returns its answer: InvokeEndpoint on AWS, HTTP locally. */
export interface EndpointAnswerer {
  answer(endpointName: string, request: InvokeRequest, timeoutMs: number): Promise<EndpointAnswer>;
}

/**
 * One call of the user's scorer (`quality.rule.scorer`): both answers of one input, as their tokens;
 * the score it gave (a number, checked against 0–1 by the verdict), or why it gave none.
 */
export interface ScorerPair {
  readonly reference: { readonly tokens: readonly string[] };
  readonly candidate: { readonly tokens: readonly string[] };
}
export type ScorerCall =
  { readonly ok: true; readonly score: number } | { readonly ok: false; readonly problem: string };

/** The user's scorer: a local command in local mode, a Lambda function on AWS. */
export interface QualityScorer {
  score(pair: ScorerPair, timeoutMs: number): Promise<ScorerCall>;
}

/** Average and maximum of one endpoint metric over a load test's window. */
export interface MetricSummary {
  readonly average: number;
  readonly maximum: number;
}

/**
 * What the endpoint itself reported while it was load tested: SageMaker's own latency split
 * (time in the model container vs SageMaker's overhead) and the instances' utilization. Absent
 * fields were not reported (e.g. GPU metrics on a CPU instance).
 */
export interface EndpointMetrics {
  readonly source: 'cloudwatch' | 'local-process';
  readonly modelLatencyMs?: MetricSummary;
  readonly overheadLatencyMs?: MetricSummary;
  /** Summed over cores, as SageMaker reports it: up to 100 × vCPUs. */
  readonly cpuUtilizationPercent?: MetricSummary;
  readonly memoryUtilizationPercent?: MetricSummary;
  readonly gpuUtilizationPercent?: MetricSummary;
  readonly gpuMemoryUtilizationPercent?: MetricSummary;
}

export interface EndpointMetricsQuery {
  readonly endpointName: string;
  readonly variantName: string;
  readonly startEpochMs: number;
  readonly endEpochMs: number;
}

/** Reads an endpoint's metrics over a window; `undefined` when nothing was recorded. */
export interface EndpointMetricsReader {
  read(query: EndpointMetricsQuery): Promise<EndpointMetrics | undefined>;
}

/**
 * How the requests of a window spread over an endpoint's instances. `instance`: one count per
 * instance (locally, from the routing front). `variant`: SageMaker publishes no per-instance
 * count, only the variant's `InvocationsPerInstance` (invocations normalized by the instance
 * count), so one entry stands for every instance.
 */
export interface InvocationsPerInstance {
  readonly scope: 'instance' | 'variant';
  readonly instances: readonly { readonly instance: string; readonly invocations: number }[];
  /** Where the figures come from and what they cover, one sentence. */
  readonly note: string;
}

/** Reads how an endpoint's invocations spread over its instances; `undefined` when nothing was recorded. */
export interface InvocationsPerInstanceReader {
  read(query: EndpointMetricsQuery): Promise<InvocationsPerInstance | undefined>;
}

/**
 * Where a run stands in the project's state machines: its executions are named after the run id.
 * An execution that is RUNNING or PENDING_REDRIVE is under way; the janitor never touches a
 * resource of such a run, whatever its age.
 */
export interface RunState {
  /** The workflows (e.g. `optimization`, `async-inference`) in which the run is under way. */
  readonly liveIn: readonly string[];
  /**
   * When the last of its ended executions stopped (DescribeExecution `stopDate`); absent when no
   * execution of the run was found in any workflow, or when it is under way.
   */
  readonly endedEpochMs?: number;
  /** Whether an execution of the run was found in any workflow. */
  readonly found: boolean;
}

export interface RunActivity {
  /**
   * Where `runId` stands. Throws when a status cannot be read (throttled, access denied): the
   * caller must then assume the run may be live.
   */
  runState(runId: string): Promise<RunState>;
}

/**
 * An account's SageMaker quota of instances of one type for endpoints ("ml.g5.xlarge for endpoint
 * usage"): per account and region, shared by every endpoint there, the project's and others'.
 */
export interface InstanceQuota {
  readonly instanceType: string;
  /** The quota as Service Quotas names it, e.g. "ml.g5.xlarge for endpoint usage". */
  readonly quotaName: string;
  /** Service Quotas' code (`L-…`), for `request-service-quota-increase`; absent when unknown. */
  readonly quotaCode?: string;
  /** Instances of the type all endpoints of the account may hold at once in the region. */
  readonly value: number;
  /** `applied`: the account's value; `default`: AWS's default (no applied value was listed). */
  readonly source: 'applied' | 'default';
}

/**
 * Reads instance quotas for endpoints. Types without a listed quota are left out (locally: all,
 * the local host has no per-type quota). Throws when the quotas cannot be read (access denied,
 * throttled): the caller decides whether that matters.
 */
export interface InstanceQuotaReader {
  endpointInstanceQuotas(instanceTypes: readonly string[]): Promise<readonly InstanceQuota[]>;
}

/** What DescribeExecution says of an execution, as far as the run summary (notify-run-summary) and the
 * failed-run clean-up (clean-up-failed-run) need it. */
export interface ExecutionDescription {
  readonly status: string;
  readonly startEpochMs: number;
  readonly stopEpochMs?: number;
  /** The execution's output (JSON text), on success. */
  readonly output?: string;
  readonly error?: string;
  readonly cause?: string;
  /**
   * How many times the execution was redriven (DescribeExecution `redriveCount`: 0 until a redrive
   * succeeds; a redrive keeps the execution ARN, so the same run can be RUNNING again).
   */
  readonly redriveCount?: number;
  /** `REDRIVABLE`, `NOT_REDRIVABLE` or `REDRIVABLE_BY_MAP_RUN` (DescribeExecution `redriveStatus`). */
  readonly redriveStatus?: string;
}

/** Reads executions (Step Functions DescribeExecution). */
export interface ExecutionDescriber {
  describe(executionArn: string): Promise<ExecutionDescription>;
}
