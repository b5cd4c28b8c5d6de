import {
  ResourceInUse,
  ResourceNotFound,
  type SageMakerClient,
  SageMakerServiceException,
} from '@aws-sdk/client-sagemaker';
import { type AwsRecorder, installFake, serviceError } from './recorder.js';

/**
 * SageMaker's control plane as the adapters meet it: names unique per account and kind, endpoints
 * `Creating` → `InService` (or `Failed`), compilation jobs `INPROGRESS` → `COMPLETED`, tags by
 * ARN, List* with `NameContains`/`CreationTimeBefore`/pagination. Errors are shaped as the SDK
 * throws them: SageMaker has no "not found" or "already exists" class for hosting resources, both
 * are a `ValidationException` whose message says so (lambdas/adapters/sagemaker-errors.ts);
 * compilation and optimization jobs use the modeled `ResourceInUse` / `ResourceNotFound`.
 * Optimization jobs go `INPROGRESS` → `COMPLETED` as compilation jobs do.
 *
 * Inference components: created only on an endpoint that is InService and whose config's variant
 * serves no model (the API answers "Inference Components are not supported in this Endpoint"
 * otherwise, as reported in pulumi/pulumi-aws#4940), on a variant of that config, with an existing
 * model; `Creating` → `InService` (or `Failed` with a FailureReason); deleted from a settled
 * status only (a `Creating` component could not be deleted in aws/amazon-sagemaker-examples#3432),
 * `Deleting` for one look, then gone; and an endpoint that still hosts components is not deleted
 * (SageMaker developer guide, "Delete Endpoints and Resources": components first; the API refuses,
 * aws/amazon-sagemaker-feedback#49).
 */

export const ACCOUNT_ID = '123456789012';
export const REGION = 'us-east-1';

type Input = Record<string, unknown>;

interface Resource {
  readonly name: string;
  readonly arn: string;
  readonly createdAt: Date;
  readonly input: Input;
  tags: Record<string, string>;
}

interface Endpoint extends Resource {
  status: string;
  describes: number;
  configName: string;
  failureReason?: string;
}

interface InferenceComponent extends Resource {
  status: string;
  describes: number;
  endpointName: string;
  failureReason?: string;
}

interface CompilationJob extends Resource {
  status: string;
  describes: number;
}

export interface SageMakerFaults {
  /** DescribeEndpoint answers `Creating` this many times before `InService`. @default 1 */
  readonly describesUntilInService?: number;
  /** DescribeCompilationJob answers `INPROGRESS` this many times first. @default 1 */
  readonly describesUntilCompiled?: number;
  /** DescribeInferenceComponent answers `Creating` this many times before it settles. @default 1 */
  readonly describesUntilComponentSettles?: number;
  /** Components that fail to start, by name, with SageMaker's FailureReason. */
  readonly failingComponents?: Readonly<Record<string, string>>;
}

/**
 * A variant's instance count as autoscaling leaves it: a registered scalable target whose minimum
 * is 0 scales an idle async endpoint in to zero (AWS does so after about 15 minutes without
 * backlog; the fake at once). `undefined`: not autoscaled, the configured count.
 */
export type AutoscaledCount = (endpointName: string, variantName: string) => number | undefined;

export class FakeSageMakerService {
  readonly models = new Map<string, Resource>();
  readonly endpointConfigs = new Map<string, Resource>();
  readonly endpoints = new Map<string, Endpoint>();
  readonly compilationJobs = new Map<string, CompilationJob>();
  readonly optimizationJobs = new Map<string, CompilationJob>();
  readonly inferenceComponents = new Map<string, InferenceComponent>();
  private clock = Date.UTC(2026, 0, 1);

  constructor(
    private readonly faults: SageMakerFaults = {},
    private readonly autoscaledCount: AutoscaledCount = () => undefined,
  ) {}

  install(client: SageMakerClient, recorder: AwsRecorder): void {
    installFake({
      client,
      clientName: 'SageMakerClient',
      recorder,
      validationError: (message) => validation(message),
      handle: (command, input) => this.handle(command, input),
    });
  }

  /** An endpoint the project did not create, in service, with its config and model. */
  addExistingEndpoint(options: {
    readonly endpointName: string;
    readonly instanceType: string;
    readonly instanceCount: number;
    readonly asyncInference?: Input;
    /** The role its model was created with (DescribeModel's `ExecutionRoleArn`). */
    readonly executionRoleArn?: string;
  }): void {
    // Names of at most 63 characters, whatever the endpoint's.
    const modelName = `${options.endpointName.slice(0, 55)}-model`;
    const configName = `${options.endpointName.slice(0, 55)}-config`;
    this.createResource(
      this.models,
      'model',
      {
        ModelName: modelName,
        ...(options.executionRoleArn === undefined ? {} : { ExecutionRoleArn: options.executionRoleArn }),
      },
      modelName,
    );
    this.createResource(
      this.endpointConfigs,
      'endpoint-config',
      {
        EndpointConfigName: configName,
        ProductionVariants: [
          {
            VariantName: 'AllTraffic',
            ModelName: modelName,
            InstanceType: options.instanceType,
            InitialInstanceCount: options.instanceCount,
          },
        ],
        ...(options.asyncInference === undefined ? {} : { AsyncInferenceConfig: options.asyncInference }),
      },
      configName,
    );
    const endpoint = this.createResource(
      this.endpoints,
      'endpoint',
      { EndpointName: options.endpointName, EndpointConfigName: configName },
      options.endpointName,
    );
    this.endpoints.set(options.endpointName, { ...endpoint, status: 'InService', describes: 0, configName });
  }

  /**
   * Why the data plane refuses an invocation of an InService endpoint, given the component it names
   * (`InferenceComponentName`); `undefined` when it is served. An endpoint made for components
   * answers only through one ("Inference Component Name header is required for endpoints to which
   * you plan to deploy inference components", as SageMaker answers it in
   * aws-samples/amazon-kendra-langchain-extensions#64); a named component must be in service on
   * that endpoint (this wording is the fake's).
   */
  invocationRefusal(endpointName: string, componentName: string | undefined): string | undefined {
    const endpoint = this.endpoints.get(endpointName);
    const variants = (this.endpointConfigs.get(endpoint?.configName ?? '')?.input.ProductionVariants ??
      []) as Input[];
    const forComponents = variants.length > 0 && variants.every((variant) => variant.ModelName === undefined);
    if (componentName === undefined) {
      return forComponents
        ? 'Inference Component Name header is required for endpoints to which you plan to deploy inference ' +
            'components. Please include Inference Component Name header or consider using SageMaker models.'
        : undefined;
    }
    const component = this.inferenceComponents.get(componentName);
    if (component?.endpointName !== endpointName || component.status !== 'InService') {
      return `Inference component ${componentName} is not in service on endpoint ${endpointName}.`;
    }
    return undefined;
  }

  private now(): Date {
    this.clock += 1000;
    return new Date(this.clock);
  }

  private arn(kind: string, name: string): string {
    // SageMaker ARNs carry the name in lower case.
    return `arn:aws:sagemaker:${REGION}:${ACCOUNT_ID}:${kind}/${name.toLowerCase()}`;
  }

  private createResource<R extends Resource>(
    into: Map<string, R>,
    kind: string,
    input: Input,
    name: string,
  ): Resource {
    if (into.has(name)) {
      throw validation(`Cannot create already existing ${label(kind)} "${this.arn(kind, name)}".`);
    }
    const resource: Resource = {
      name,
      arn: this.arn(kind, name),
      createdAt: this.now(),
      input,
      tags: tagsOf(input.Tags),
    };
    into.set(name, resource as R);
    return resource;
  }

  private find<R extends Resource>(from: Map<string, R>, kind: string, name: unknown): R {
    const found = from.get(String(name));
    if (found === undefined)
      throw validation(`Could not find ${label(kind)} "${this.arn(kind, String(name))}".`);
    return found;
  }

  handle(command: string, input: Input): unknown {
    switch (command) {
      case 'CreateModelCommand':
        return { ModelArn: this.createResource(this.models, 'model', input, String(input.ModelName)).arn };
      case 'CreateEndpointConfigCommand': {
        for (const variant of (input.ProductionVariants ?? []) as Input[]) {
          if (variant.ModelName !== undefined) this.find(this.models, 'model', variant.ModelName);
        }
        const name = String(input.EndpointConfigName);
        return {
          EndpointConfigArn: this.createResource(this.endpointConfigs, 'endpoint-config', input, name).arn,
        };
      }
      case 'CreateEndpointCommand': {
        const configName = String(input.EndpointConfigName);
        this.find(this.endpointConfigs, 'endpoint-config', configName);
        const resource = this.createResource(this.endpoints, 'endpoint', input, String(input.EndpointName));
        this.endpoints.set(resource.name, { ...resource, status: 'Creating', describes: 0, configName });
        return { EndpointArn: resource.arn };
      }
      case 'DescribeEndpointCommand':
        return this.describeEndpoint(this.find(this.endpoints, 'endpoint', input.EndpointName));
      case 'DescribeEndpointConfigCommand': {
        const config = this.find(this.endpointConfigs, 'endpoint-config', input.EndpointConfigName);
        return {
          EndpointConfigName: config.name,
          EndpointConfigArn: config.arn,
          ProductionVariants: config.input.ProductionVariants,
          ...(config.input.AsyncInferenceConfig === undefined
            ? {}
            : { AsyncInferenceConfig: config.input.AsyncInferenceConfig }),
          CreationTime: config.createdAt,
        };
      }
      case 'DeleteEndpointCommand': {
        const endpoint = this.find(this.endpoints, 'endpoint', input.EndpointName);
        const hosted = [...this.inferenceComponents.values()].filter((c) => c.endpointName === endpoint.name);
        if (hosted.length > 0) {
          throw validation(
            `Endpoint "${endpoint.arn}" hosts inference components (${hosted.map((c) => c.name).join(', ')}); ` +
              'delete them before the endpoint.',
          );
        }
        this.endpoints.delete(endpoint.name);
        return {};
      }
      case 'CreateInferenceComponentCommand':
        return { InferenceComponentArn: this.createInferenceComponent(input).arn };
      case 'DescribeInferenceComponentCommand':
        return this.describeInferenceComponent(
          this.find(this.inferenceComponents, 'inference-component', input.InferenceComponentName),
        );
      case 'DeleteInferenceComponentCommand': {
        const component = this.find(
          this.inferenceComponents,
          'inference-component',
          input.InferenceComponentName,
        );
        if (component.status === 'Creating' || component.status === 'Updating') {
          throw validation(
            `Inference component "${component.arn}" is ${component.status}: it can be deleted once it is InService or Failed.`,
          );
        }
        if (component.status !== 'Deleting') {
          component.status = 'Deleting';
          component.describes = 0;
        }
        return {};
      }
      case 'ListInferenceComponentsCommand': {
        // A component being deleted is listed once more, then gone.
        for (const component of [...this.inferenceComponents.values()]) this.settleDeletion(component);
        const onEndpoint =
          typeof input.EndpointNameEquals === 'string' ? input.EndpointNameEquals : undefined;
        const components = new Map(
          [...this.inferenceComponents].filter(
            ([, c]) => onEndpoint === undefined || c.endpointName === onEndpoint,
          ),
        );
        return this.list(
          components,
          input,
          (c) => ({
            InferenceComponentName: c.name,
            InferenceComponentArn: c.arn,
            EndpointName: c.endpointName,
            EndpointArn: this.arn('endpoint', c.endpointName),
            VariantName: c.input.VariantName,
            InferenceComponentStatus: c.status,
            CreationTime: c.createdAt,
            LastModifiedTime: c.createdAt,
          }),
          'InferenceComponents',
        );
      }
      case 'DeleteEndpointConfigCommand':
        this.find(this.endpointConfigs, 'endpoint-config', input.EndpointConfigName);
        this.endpointConfigs.delete(String(input.EndpointConfigName));
        return {};
      // DescribeModel (SageMaker API reference): the model's containers and the role it runs with.
      case 'DescribeModelCommand': {
        const model = this.find(this.models, 'model', input.ModelName);
        return {
          ModelName: model.name,
          ModelArn: model.arn,
          CreationTime: model.createdAt,
          ...(model.input.PrimaryContainer === undefined
            ? {}
            : { PrimaryContainer: model.input.PrimaryContainer }),
          ...(model.input.ExecutionRoleArn === undefined
            ? {}
            : { ExecutionRoleArn: model.input.ExecutionRoleArn }),
        };
      }
      case 'DeleteModelCommand':
        this.find(this.models, 'model', input.ModelName);
        this.models.delete(String(input.ModelName));
        return {};
      case 'AddTagsCommand': {
        const resource = this.byArn(String(input.ResourceArn));
        resource.tags = { ...resource.tags, ...tagsOf(input.Tags) };
        return { Tags: input.Tags };
      }
      case 'ListTagsCommand':
        return {
          Tags: Object.entries(this.byArn(String(input.ResourceArn)).tags).map(([Key, Value]) => ({
            Key,
            Value,
          })),
        };
      case 'ListEndpointsCommand':
        return this.list(
          this.endpoints,
          input,
          (e) => ({
            EndpointName: e.name,
            EndpointArn: e.arn,
            CreationTime: e.createdAt,
            LastModifiedTime: e.createdAt,
            EndpointStatus: e.status,
          }),
          'Endpoints',
        );
      case 'ListEndpointConfigsCommand':
        return this.list(
          this.endpointConfigs,
          input,
          (c) => ({
            EndpointConfigName: c.name,
            EndpointConfigArn: c.arn,
            CreationTime: c.createdAt,
          }),
          'EndpointConfigs',
        );
      case 'ListModelsCommand':
        return this.list(
          this.models,
          input,
          (m) => ({ ModelName: m.name, ModelArn: m.arn, CreationTime: m.createdAt }),
          'Models',
        );
      case 'ListCompilationJobsCommand':
        return this.list(
          this.compilationJobs,
          input,
          (j) => ({
            CompilationJobName: j.name,
            CompilationJobArn: j.arn,
            CreationTime: j.createdAt,
            CompilationJobStatus: j.status,
          }),
          'CompilationJobSummaries',
        );
      case 'CreateCompilationJobCommand': {
        const name = String(input.CompilationJobName);
        if (this.compilationJobs.has(name)) {
          throw new ResourceInUse({
            message: `Compilation job ${name} already exists`,
            $metadata: { httpStatusCode: 400 },
          });
        }
        const job: CompilationJob = {
          name,
          arn: this.arn('compilation-job', name),
          createdAt: this.now(),
          input,
          tags: tagsOf(input.Tags),
          status: 'INPROGRESS',
          describes: 0,
        };
        this.compilationJobs.set(name, job);
        return { CompilationJobArn: job.arn };
      }
      case 'DescribeCompilationJobCommand':
        return this.describeCompilationJob(String(input.CompilationJobName));
      case 'StopCompilationJobCommand': {
        const job = this.compilationJobs.get(String(input.CompilationJobName));
        if (job === undefined) throw notFoundJob(String(input.CompilationJobName));
        job.status = 'STOPPED';
        return {};
      }
      case 'ListOptimizationJobsCommand':
        return this.list(
          this.optimizationJobs,
          input,
          (j) => ({
            OptimizationJobName: j.name,
            OptimizationJobArn: j.arn,
            CreationTime: j.createdAt,
            OptimizationJobStatus: j.status,
            DeploymentInstanceType: j.input.DeploymentInstanceType,
            OptimizationTypes: [],
          }),
          'OptimizationJobSummaries',
        );
      case 'CreateOptimizationJobCommand': {
        const name = String(input.OptimizationJobName);
        if (this.optimizationJobs.has(name)) {
          throw new ResourceInUse({
            message: `Optimization job ${name} already exists`,
            $metadata: { httpStatusCode: 400 },
          });
        }
        const job: CompilationJob = {
          name,
          arn: this.arn('optimization-job', name),
          createdAt: this.now(),
          input,
          tags: tagsOf(input.Tags),
          status: 'INPROGRESS',
          describes: 0,
        };
        this.optimizationJobs.set(name, job);
        return { OptimizationJobArn: job.arn };
      }
      case 'DescribeOptimizationJobCommand':
        return this.describeOptimizationJob(String(input.OptimizationJobName));
      case 'StopOptimizationJobCommand': {
        const job = this.optimizationJobs.get(String(input.OptimizationJobName));
        if (job === undefined) throw notFoundJob(String(input.OptimizationJobName), 'optimization job');
        job.status = 'STOPPED';
        return {};
      }
      default:
        throw new Error(`FakeSageMakerService: ${command} is not faked; add it to the fake`);
    }
  }

  private describeEndpoint(endpoint: Endpoint): unknown {
    endpoint.describes += 1;
    if (endpoint.status === 'Creating' && endpoint.describes > (this.faults.describesUntilInService ?? 1)) {
      endpoint.status = endpoint.failureReason === undefined ? 'InService' : 'Failed';
    }
    const config = this.endpointConfigs.get(endpoint.configName);
    const variants = (config?.input.ProductionVariants ?? []) as Input[];
    return {
      EndpointName: endpoint.name,
      EndpointArn: endpoint.arn,
      EndpointConfigName: endpoint.configName,
      EndpointStatus: endpoint.status,
      CreationTime: endpoint.createdAt,
      LastModifiedTime: endpoint.createdAt,
      ...(endpoint.status === 'Failed' ? { FailureReason: endpoint.failureReason } : {}),
      // Like SageMaker: the live variants only once the endpoint is in service.
      ...(endpoint.status === 'InService'
        ? {
            ProductionVariants: variants.map((variant) => {
              const count =
                this.autoscaledCount(endpoint.name, String(variant.VariantName)) ??
                Number(variant.InitialInstanceCount ?? 0);
              return {
                VariantName: variant.VariantName,
                CurrentInstanceCount: count,
                DesiredInstanceCount: count,
                CurrentWeight: 1,
                DesiredWeight: 1,
              };
            }),
          }
        : {}),
    };
  }

  private createInferenceComponent(input: Input): Resource {
    const endpoint = this.find(this.endpoints, 'endpoint', input.EndpointName);
    if (endpoint.status !== 'InService') {
      throw validation(
        `Endpoint "${endpoint.arn}" is ${endpoint.status}: inference components are created on an InService endpoint.`,
      );
    }
    const variants = (this.endpointConfigs.get(endpoint.configName)?.input.ProductionVariants ??
      []) as Input[];
    if (variants.some((variant) => variant.ModelName !== undefined)) {
      throw validation(
        'Inference Components are not supported in this Endpoint. Please make sure this endpoint can deploy inference components.',
      );
    }
    const variantName = typeof input.VariantName === 'string' ? input.VariantName : undefined;
    if (variantName !== undefined && !variants.some((variant) => variant.VariantName === variantName)) {
      throw validation(`Endpoint "${endpoint.arn}" has no variant ${variantName}.`);
    }
    // The SDK's input takes `Specification` or a `Specifications` list (one per instance type),
    // "either this parameter or the singular Specification parameter, but not both"; the
    // project sends the singular one, with a model.
    const specification = input.Specification as Input | undefined;
    if (specification === undefined || input.Specifications !== undefined) {
      throw validation('Exactly one of Specification and Specifications is required.');
    }
    this.find(this.models, 'model', specification.ModelName);
    const resource = this.createResource(
      this.inferenceComponents,
      'inference-component',
      input,
      String(input.InferenceComponentName),
    );
    const failureReason = this.faults.failingComponents?.[resource.name];
    this.inferenceComponents.set(resource.name, {
      ...resource,
      status: 'Creating',
      describes: 0,
      endpointName: endpoint.name,
      ...(failureReason === undefined ? {} : { failureReason }),
    });
    return resource;
  }

  private describeInferenceComponent(component: InferenceComponent): unknown {
    component.describes += 1;
    if (
      component.status === 'Creating' &&
      component.describes > (this.faults.describesUntilComponentSettles ?? 1)
    ) {
      component.status = component.failureReason === undefined ? 'InService' : 'Failed';
    }
    const answer = {
      InferenceComponentName: component.name,
      InferenceComponentArn: component.arn,
      EndpointName: component.endpointName,
      EndpointArn: this.arn('endpoint', component.endpointName),
      VariantName: component.input.VariantName,
      InferenceComponentStatus: component.status,
      ...(component.status === 'Failed' ? { FailureReason: component.failureReason } : {}),
      Specification: component.input.Specification,
      RuntimeConfig: {
        DesiredCopyCount: (component.input.RuntimeConfig as Input | undefined)?.CopyCount,
        CurrentCopyCount:
          component.status === 'InService'
            ? (component.input.RuntimeConfig as Input | undefined)?.CopyCount
            : 0,
      },
      CreationTime: component.createdAt,
      LastModifiedTime: component.createdAt,
    };
    this.settleDeletion(component);
    return answer;
  }

  /** A component being deleted is seen `Deleting` once, then it is gone. */
  private settleDeletion(component: InferenceComponent): void {
    if (component.status !== 'Deleting') return;
    if (component.describes > 0) this.inferenceComponents.delete(component.name);
    else component.describes += 1;
  }

  private describeCompilationJob(name: string): unknown {
    const job = this.compilationJobs.get(name);
    if (job === undefined) throw notFoundJob(name);
    job.describes += 1;
    if (job.status === 'INPROGRESS' && job.describes > (this.faults.describesUntilCompiled ?? 1)) {
      job.status = 'COMPLETED';
    }
    const output = job.input.OutputConfig as Input;
    const target = typeof output.TargetDevice === 'string' ? output.TargetDevice : 'platform';
    return {
      CompilationJobName: job.name,
      CompilationJobArn: job.arn,
      CompilationJobStatus: job.status,
      CreationTime: job.createdAt,
      LastModifiedTime: job.createdAt,
      RoleArn: job.input.RoleArn,
      InputConfig: job.input.InputConfig,
      OutputConfig: output,
      StoppingCondition: job.input.StoppingCondition,
      // A required member of the response, empty unless the job failed.
      FailureReason: '',
      ...(job.status === 'COMPLETED'
        ? {
            ModelArtifacts: { S3ModelArtifacts: `${String(output.S3OutputLocation)}model-${target}.tar.gz` },
            // Neo names the image that serves the compiled artifact (DescribeCompilationJob
            // `InferenceImage`); the account and repository here are stand-ins of that form.
            InferenceImage: `${NEO_IMAGE_ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/sagemaker-neo-${neoFramework(job)}:${target}`,
          }
        : {}),
    };
  }

  private describeOptimizationJob(name: string): unknown {
    const job = this.optimizationJobs.get(name);
    if (job === undefined) throw notFoundJob(name, 'optimization job');
    job.describes += 1;
    if (job.status === 'INPROGRESS' && job.describes > (this.faults.describesUntilCompiled ?? 1)) {
      job.status = 'COMPLETED';
    }
    return {
      OptimizationJobName: job.name,
      OptimizationJobArn: job.arn,
      OptimizationJobStatus: job.status,
      CreationTime: job.createdAt,
      LastModifiedTime: job.createdAt,
      RoleArn: job.input.RoleArn,
      ModelSource: job.input.ModelSource,
      DeploymentInstanceType: job.input.DeploymentInstanceType,
      OptimizationConfigs: job.input.OptimizationConfigs,
      OutputConfig: job.input.OutputConfig,
      StoppingCondition: job.input.StoppingCondition,
      ...(job.status === 'COMPLETED'
        ? {
            // The LMI image SageMaker recommends for the optimized model; account and tag are
            // stand-ins of that form.
            OptimizationOutput: {
              RecommendedInferenceImage: `${NEO_IMAGE_ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/djl-inference:lmi-optimized`,
            },
          }
        : {}),
    };
  }

  private byArn(arn: string): Resource {
    const all: Resource[] = [
      ...this.endpoints.values(),
      ...this.endpointConfigs.values(),
      ...this.models.values(),
      ...this.inferenceComponents.values(),
      ...this.compilationJobs.values(),
      ...this.optimizationJobs.values(),
    ];
    const found = all.find((resource) => resource.arn === arn.toLowerCase() || resource.arn === arn);
    if (found === undefined) throw validation(`Could not find resource "${arn}".`);
    return found;
  }

  private list<R extends Resource>(
    from: Map<string, R>,
    input: Input,
    summary: (resource: R) => Input,
    key: string,
  ): unknown {
    const contains = typeof input.NameContains === 'string' ? input.NameContains : '';
    const before = input.CreationTimeBefore instanceof Date ? input.CreationTimeBefore.getTime() : Infinity;
    const matching = [...from.values()].filter(
      (resource) => resource.name.includes(contains) && resource.createdAt.getTime() < before,
    );
    const start = typeof input.NextToken === 'string' ? Number(input.NextToken) : 0;
    const size = typeof input.MaxResults === 'number' ? input.MaxResults : 10;
    const page = matching.slice(start, start + size);
    const next = start + size < matching.length ? { NextToken: String(start + size) } : {};
    return { [key]: page.map(summary), ...next };
  }
}

const NEO_IMAGE_ACCOUNT = '763104351884';

function neoFramework(job: CompilationJob): string {
  const input = job.input.InputConfig as Input | undefined;
  return typeof input?.Framework === 'string' ? input.Framework.toLowerCase() : 'model';
}

function label(kind: string): string {
  if (kind === 'inference-component') return 'inference component';
  return kind === 'endpoint-config' ? 'endpoint configuration' : kind;
}

function tagsOf(tags: unknown): Record<string, string> {
  return Object.fromEntries(
    ((tags ?? []) as { Key: string; Value: string }[]).map((tag) => [tag.Key, tag.Value]),
  );
}

function validation(message: string): SageMakerServiceException {
  return serviceError(SageMakerServiceException, 'ValidationException', message);
}

function notFoundJob(name: string, kind = 'compilation job'): ResourceNotFound {
  return new ResourceNotFound({
    message: `Could not find ${kind} ${name}`,
    $metadata: { httpStatusCode: 400 },
  });
}
