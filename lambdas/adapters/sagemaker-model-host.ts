import {
  AddTagsCommand,
  type AsyncInferenceConfig,
  CreateEndpointCommand,
  type CreateEndpointCommandInput,
  CreateEndpointConfigCommand,
  type CreateEndpointConfigCommandInput,
  CreateModelCommand,
  type CreateModelCommandInput,
  DeleteEndpointCommand,
  DeleteEndpointConfigCommand,
  DeleteModelCommand,
  DescribeEndpointCommand,
  DescribeEndpointConfigCommand,
  type DescribeEndpointConfigCommandOutput,
  paginateListCompilationJobs,
  paginateListOptimizationJobs,
  paginateListEndpointConfigs,
  paginateListEndpoints,
  paginateListModels,
  paginateListTags,
  type SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import {
  type AsyncInferenceDescription,
  type AsyncInferenceSpec,
  type EndpointDescription,
  type EndpointStatus,
  EndpointStatuses,
  type HostedEndpoint,
  type HostedEndpointConfig,
  type HostedResource,
  type ModelHost,
  type ModelSpec,
  type ProductionVariantSpec,
  type ProjectResources,
  type ProjectResourcesQuery,
  type RunResources,
} from '../../core/ports/index.js';
import { errorName } from './aws-errors.js';
import { isAlreadyExists, isNotFound, type SageMakerCall, toStepError } from './sagemaker-errors.js';
import { toSageMakerTags } from './sagemaker-tags.js';
import {
  createEndpointConfigRequest,
  createEndpointRequest,
  createModelRequest,
} from '../../core/deployment/index.js';
import type { HostedResourceNames } from '../../core/contracts/index.js';

export interface SageMakerModelHostOptions {
  readonly client: SageMakerClient;
  /**
   * The role SageMaker assumes to pull the image and read the model artifact (CreateModel). Only
   * `createModel` needs it: steps that describe or delete leave it out.
   */
  readonly executionRoleArn?: string;
}

/** The List* APIs return at most 100 items per page (SageMaker API reference, `MaxResults`). */
const LIST_PAGE_SIZE = 100;

/** ListTags returns at most 100 tags per page (SageMaker API reference, ListTags `MaxResults`). */
const TAGS_PAGE_SIZE = 100;

/** One item of a List* page: enough to fetch its tags (by ARN) and judge its age. */
interface ListedSummary {
  readonly name: string;
  readonly arn: string;
  readonly createdEpochMs: number;
}

function toListedSummary(
  name: string | undefined,
  arn: string | undefined,
  creationTime: Date | undefined,
): ListedSummary[] {
  // The API always fills these; the SDK types them optional. An item without them cannot be judged.
  if (name === undefined || arn === undefined || creationTime === undefined) return [];
  return [{ name, arn, createdEpochMs: creationTime.getTime() }];
}

const KNOWN_ENDPOINT_STATUSES: ReadonlySet<string> = new Set(Object.values(EndpointStatuses));

function isEndpointStatus(value: string | undefined): value is EndpointStatus {
  return value !== undefined && KNOWN_ENDPOINT_STATUSES.has(value);
}

/** Statuses in which `describeEndpoint` also reads the endpoint config (see there). */
const STATUSES_WITH_CONFIG: ReadonlySet<EndpointStatus> = new Set<EndpointStatus>([
  EndpointStatuses.inService,
  EndpointStatuses.updating,
  EndpointStatuses.systemUpdating,
  EndpointStatuses.rollingBack,
  EndpointStatuses.outOfService,
  EndpointStatuses.updateRollbackFailed,
]);

/**
 * `ModelHost` over the SageMaker control plane. Creates are idempotent (a retried step finds its
 * resource and goes on), deletes of missing resources return `false`, and failures surface as
 * the project's errors where the workflow acts on them (see `toStepError`).
 */
export class SageMakerModelHost implements ModelHost {
  private readonly client: SageMakerClient;
  private readonly executionRoleArn: string | undefined;

  constructor(options: SageMakerModelHostOptions) {
    this.client = options.client;
    this.executionRoleArn = options.executionRoleArn;
  }

  private requireRole(): string {
    if (this.executionRoleArn === undefined) {
      throw new Error(
        `SageMakerModelHost.createModel needs the SageMaker execution role: got none, expected executionRoleArn ` +
          '(the SAGEMAKER_EXECUTION_ROLE_ARN variable of the steps that create SageMaker resources)',
      );
    }
    return this.executionRoleArn;
  }

  async createModel(spec: ModelSpec): Promise<void> {
    // The requests the report shows too (core/deployment/sagemaker-requests.ts). The casts
    // narrow InstanceType to the SDK's enum (the plan checked it against that enum) and make arrays
    // mutable.
    const command = new CreateModelCommand(
      createModelRequest(spec, this.requireRole()) as CreateModelCommandInput,
    );
    await this.create(() => this.client.send(command), {
      operation: 'CreateModel',
      kind: 'model',
      resourceName: spec.modelName,
    });
  }

  async createEndpointConfig(spec: {
    readonly endpointConfigName: string;
    readonly variant: ProductionVariantSpec;
    readonly tags: Readonly<Record<string, string>>;
    readonly asyncInference?: AsyncInferenceSpec;
  }): Promise<void> {
    const command = new CreateEndpointConfigCommand({
      ...(createEndpointConfigRequest(spec) as CreateEndpointConfigCommandInput),
      ...(spec.asyncInference === undefined
        ? {}
        : { AsyncInferenceConfig: toAsyncInferenceConfig(spec.asyncInference) }),
    });
    await this.create(() => this.client.send(command), {
      operation: 'CreateEndpointConfig',
      kind: 'endpoint configuration',
      resourceName: spec.endpointConfigName,
      ...(spec.variant.instanceType === undefined ? {} : { instanceType: spec.variant.instanceType }),
    });
  }

  async createEndpoint(spec: {
    readonly endpointName: string;
    readonly endpointConfigName: string;
    readonly tags: Readonly<Record<string, string>>;
  }): Promise<void> {
    const command = new CreateEndpointCommand(createEndpointRequest(spec) as CreateEndpointCommandInput);
    try {
      await this.client.send(command);
    } catch (error) {
      if (isAlreadyExists(error)) return;
      // The instance quota is checked when the endpoint is created; the config says which type.
      const instanceType =
        errorName(error) === 'ResourceLimitExceeded'
          ? await this.instanceTypeOf(spec.endpointConfigName)
          : undefined;
      throw toStepError(error, {
        operation: 'CreateEndpoint',
        kind: 'endpoint',
        resourceName: spec.endpointName,
        ...(instanceType === undefined ? {} : { instanceType }),
      });
    }
  }

  /**
   * DescribeEndpoint, plus DescribeEndpointConfig for what only the config says: the first
   * variant's instance type and the async-inference settings. The config is read for an endpoint
   * that exists and works (in service, updating, out of service, …), not while it is Creating, nor
   * when it is Failed or Deleting: skipping it in the Wait → Check loop of a new endpoint halves the
   * calls against a control plane that throttles. The first variant's name and current instance
   * count come from DescribeEndpoint itself (`ProductionVariants`, absent while creating).
   */
  async describeEndpoint(endpointName: string): Promise<EndpointDescription | undefined> {
    const call: SageMakerCall = {
      operation: 'DescribeEndpoint',
      kind: 'endpoint',
      resourceName: endpointName,
    };
    let endpoint;
    try {
      endpoint = await this.client.send(new DescribeEndpointCommand({ EndpointName: endpointName }));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw toStepError(error, call);
    }
    const status = endpoint.EndpointStatus;
    if (!isEndpointStatus(status)) {
      throw new Error(
        `DescribeEndpoint ${endpointName}: got the status ${JSON.stringify(status)}, expected one of ` +
          `${[...KNOWN_ENDPOINT_STATUSES].join(', ')}; update the ports' EndpointStatuses for this new status`,
      );
    }
    const live = endpoint.ProductionVariants?.[0];
    const variantNames = (endpoint.ProductionVariants ?? []).flatMap((v) => v.VariantName ?? []);
    const description: EndpointDescription = {
      endpointName,
      status,
      ...(endpoint.FailureReason === undefined ? {} : { failureReason: endpoint.FailureReason }),
      ...(live?.VariantName === undefined ? {} : { variantName: live.VariantName }),
      ...(variantNames.length === 0 ? {} : { variantNames }),
      ...(live?.CurrentInstanceCount === undefined
        ? {}
        : { currentInstanceCount: live.CurrentInstanceCount }),
    };
    if (!STATUSES_WITH_CONFIG.has(status) || endpoint.EndpointConfigName === undefined) {
      return description;
    }

    const config = await this.describeEndpointConfig(endpoint.EndpointConfigName);
    // The config's entry for the live variant: its order in the two lists need not match.
    const configured =
      config?.ProductionVariants?.find((v) => live !== undefined && v.VariantName === live.VariantName) ??
      config?.ProductionVariants?.[0];
    const instanceType = configured?.InstanceType;
    const instanceCount = live?.CurrentInstanceCount ?? configured?.InitialInstanceCount;
    const asyncInference =
      config?.AsyncInferenceConfig === undefined
        ? undefined
        : fromAsyncInferenceConfig(config.AsyncInferenceConfig);
    return {
      ...description,
      ...(description.variantName !== undefined || configured?.VariantName === undefined
        ? {}
        : { variantName: configured.VariantName }),
      ...(instanceType === undefined ? {} : { instanceType }),
      ...(instanceType === undefined || instanceCount === undefined ? {} : { instanceCount }),
      ...(asyncInference === undefined ? {} : { asyncInference }),
    };
  }

  /**
   * AddTags takes ARNs. DescribeEndpoint gives the endpoint's; its config and model share its
   * partition, Region and account (`arn:<partition>:sagemaker:<region>:<account>:<kind>/<name>`),
   * and the project's names are lower case, as SageMaker writes them in ARNs.
   */
  async addTags(resources: HostedResourceNames, tags: Readonly<Record<string, string>>): Promise<void> {
    const call: SageMakerCall = {
      operation: 'AddTags',
      kind: 'endpoint',
      resourceName: resources.endpointName,
    };
    let endpointArn: string | undefined;
    try {
      const endpoint = await this.client.send(
        new DescribeEndpointCommand({ EndpointName: resources.endpointName }),
      );
      endpointArn = endpoint.EndpointArn;
    } catch (error) {
      throw toStepError(error, call);
    }
    if (endpointArn === undefined) {
      throw new Error(
        `DescribeEndpoint ${resources.endpointName}: got no EndpointArn, expected the endpoint's ARN`,
      );
    }
    const prefix = endpointArn.slice(0, endpointArn.lastIndexOf(':endpoint/') + 1);
    const resourceArns = [
      endpointArn,
      `${prefix}endpoint-config/${resources.endpointConfigName}`,
      `${prefix}model/${resources.modelName}`,
    ];
    for (const resourceArn of resourceArns) {
      try {
        await this.client.send(new AddTagsCommand({ ResourceArn: resourceArn, Tags: toSageMakerTags(tags) }));
      } catch (error) {
        throw toStepError(error, { ...call, resourceName: resourceArn });
      }
    }
  }

  deleteEndpoint(endpointName: string): Promise<boolean> {
    return this.delete(() => this.client.send(new DeleteEndpointCommand({ EndpointName: endpointName })), {
      operation: 'DeleteEndpoint',
      kind: 'endpoint',
      resourceName: endpointName,
    });
  }

  deleteEndpointConfig(endpointConfigName: string): Promise<boolean> {
    return this.delete(
      () => this.client.send(new DeleteEndpointConfigCommand({ EndpointConfigName: endpointConfigName })),
      {
        operation: 'DeleteEndpointConfig',
        kind: 'endpoint configuration',
        resourceName: endpointConfigName,
      },
    );
  }

  deleteModel(modelName: string): Promise<boolean> {
    return this.delete(() => this.client.send(new DeleteModelCommand({ ModelName: modelName })), {
      operation: 'DeleteModel',
      kind: 'model',
      resourceName: modelName,
    });
  }

  /**
   * Everything whose name starts with the run's prefix. The prefix embeds a hash of the run id
   * (`runToken`), so another run cannot share it; `NameContains` narrows the listing server-side and
   * `startsWith` drops names that merely contain the prefix. Listing tags per resource instead
   * would cost one ListTags call per resource against the throttled control plane.
   */
  async listRunResources(_runId: string, namePrefix: string): Promise<RunResources> {
    const config = { client: this.client, pageSize: LIST_PAGE_SIZE };
    // A fresh input per listing: the SDK paginators write their NextToken into the input object.
    const input = (): { NameContains: string } => ({ NameContains: namePrefix });
    return {
      endpoints: await collectNames(
        'ListEndpoints',
        namePrefix,
        paginateListEndpoints(config, input()),
        (page) => (page.Endpoints ?? []).map((e) => e.EndpointName),
      ),
      endpointConfigs: await collectNames(
        'ListEndpointConfigs',
        namePrefix,
        paginateListEndpointConfigs(config, input()),
        (page) => (page.EndpointConfigs ?? []).map((c) => c.EndpointConfigName),
      ),
      models: await collectNames('ListModels', namePrefix, paginateListModels(config, input()), (page) =>
        (page.Models ?? []).map((m) => m.ModelName),
      ),
      compilationJobs: await collectNames(
        'ListCompilationJobs',
        namePrefix,
        paginateListCompilationJobs(config, input()),
        (page) => (page.CompilationJobSummaries ?? []).map((j) => j.CompilationJobName),
      ),
      // ListOptimizationJobs filters by NameContains too (SageMaker API reference, ListOptimizationJobs).
      optimizationJobs: await collectNames(
        'ListOptimizationJobs',
        namePrefix,
        paginateListOptimizationJobs(config, input()),
        (page) => (page.OptimizationJobSummaries ?? []).map((j) => j.OptimizationJobName),
      ),
    };
  }

  /**
   * The janitor's listing: List* narrowed server-side by `NameContains` (every project name starts
   * with the prefix) and, for endpoint configs and models, by `CreationTimeBefore`; then ListTags
   * per resource, and for endpoints and configs a Describe for what they use.
   *
   * Why ListTags per resource rather than one Resource Groups Tagging API `GetResources` call with
   * a tag filter: the workflows delete what they create, so the prefix leaves a handful of
   * resources; the tagging API would add a client, an IAM action (`tag:GetResources`) and a second
   * listing to join with (it returns no creation time or status), and its results are eventually
   * consistent. The calls run one at a time: SageMaker's control plane throttles per account.
   */
  async listProjectResources(query: ProjectResourcesQuery): Promise<ProjectResources> {
    const { namePrefix } = query;
    const config = { client: this.client, pageSize: LIST_PAGE_SIZE };
    const createdBefore = new Date(query.createdBeforeEpochMs);
    const endpointSummaries = await collectItems(
      'ListEndpoints',
      namePrefix,
      paginateListEndpoints(config, { NameContains: namePrefix }),
      (page) =>
        (page.Endpoints ?? []).flatMap((e) => toListedSummary(e.EndpointName, e.EndpointArn, e.CreationTime)),
    );
    const configSummaries = await collectItems(
      'ListEndpointConfigs',
      namePrefix,
      paginateListEndpointConfigs(config, { NameContains: namePrefix, CreationTimeBefore: createdBefore }),
      (page) =>
        (page.EndpointConfigs ?? []).flatMap((c) =>
          toListedSummary(c.EndpointConfigName, c.EndpointConfigArn, c.CreationTime),
        ),
    );
    const modelSummaries = await collectItems(
      'ListModels',
      namePrefix,
      paginateListModels(config, { NameContains: namePrefix, CreationTimeBefore: createdBefore }),
      (page) => (page.Models ?? []).flatMap((m) => toListedSummary(m.ModelName, m.ModelArn, m.CreationTime)),
    );

    const endpoints: HostedEndpoint[] = [];
    for (const summary of endpointSummaries) {
      const endpoint = await this.hostedEndpoint(summary);
      if (endpoint !== undefined) endpoints.push(endpoint);
    }
    const endpointConfigs: HostedEndpointConfig[] = [];
    for (const summary of configSummaries) {
      const tags = await this.tagsOf(summary, 'endpoint configuration');
      const described = tags === undefined ? undefined : await this.describeEndpointConfig(summary.name);
      if (tags === undefined || described === undefined) continue;
      endpointConfigs.push({ ...hosted(summary, tags), modelNames: usedBy(described).modelNames });
    }
    const models: HostedResource[] = [];
    for (const summary of modelSummaries) {
      const tags = await this.tagsOf(summary, 'model');
      if (tags !== undefined) models.push(hosted(summary, tags));
    }
    return { endpoints, endpointConfigs, models };
  }

  /** An endpoint with its tags, status, config and what the config serves; gone → `undefined`. */
  private async hostedEndpoint(summary: ListedSummary): Promise<HostedEndpoint | undefined> {
    const tags = await this.tagsOf(summary, 'endpoint');
    if (tags === undefined) return undefined;
    let endpoint;
    try {
      endpoint = await this.client.send(new DescribeEndpointCommand({ EndpointName: summary.name }));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw toStepError(error, {
        operation: 'DescribeEndpoint',
        kind: 'endpoint',
        resourceName: summary.name,
      });
    }
    const status = endpoint.EndpointStatus;
    if (!isEndpointStatus(status)) {
      throw new Error(
        `DescribeEndpoint ${summary.name}: got the status ${JSON.stringify(status)}, expected one of ` +
          `${[...KNOWN_ENDPOINT_STATUSES].join(', ')}; update the ports' EndpointStatuses for this new status`,
      );
    }
    const configName = endpoint.EndpointConfigName;
    const config = configName === undefined ? undefined : await this.describeEndpointConfig(configName);
    const fromConfig = config === undefined ? { variantNames: [], modelNames: [] } : usedBy(config);
    const liveVariants = (endpoint.ProductionVariants ?? []).flatMap((v) => v.VariantName ?? []);
    return {
      ...hosted(summary, tags),
      status,
      ...(configName === undefined ? {} : { endpointConfigName: configName }),
      variantNames: [...new Set([...liveVariants, ...fromConfig.variantNames])],
      modelNames: fromConfig.modelNames,
    };
  }

  /** Every tag of a resource (ListTags, paginated); `undefined` when the resource is gone. */
  private async tagsOf(
    summary: ListedSummary,
    kind: SageMakerCall['kind'],
  ): Promise<Record<string, string> | undefined> {
    const tags: Record<string, string> = {};
    try {
      const pages = paginateListTags(
        { client: this.client, pageSize: TAGS_PAGE_SIZE },
        { ResourceArn: summary.arn },
      );
      for await (const page of pages) {
        for (const tag of page.Tags ?? []) {
          if (tag.Key !== undefined && tag.Value !== undefined) tags[tag.Key] = tag.Value;
        }
      }
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw toStepError(error, { operation: 'ListTags', kind, resourceName: summary.name });
    }
    return tags;
  }

  private async create(send: () => Promise<unknown>, call: SageMakerCall): Promise<void> {
    try {
      await send();
    } catch (error) {
      if (isAlreadyExists(error)) return;
      throw toStepError(error, call);
    }
  }

  private async delete(send: () => Promise<unknown>, call: SageMakerCall): Promise<boolean> {
    try {
      await send();
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw toStepError(error, call);
    }
  }

  private async describeEndpointConfig(
    endpointConfigName: string,
  ): Promise<DescribeEndpointConfigCommandOutput | undefined> {
    try {
      return await this.client.send(
        new DescribeEndpointConfigCommand({ EndpointConfigName: endpointConfigName }),
      );
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw toStepError(error, {
        operation: 'DescribeEndpointConfig',
        kind: 'endpoint configuration',
        resourceName: endpointConfigName,
      });
    }
  }

  /** Best effort, for an error message only: never hides the error being reported. */
  private async instanceTypeOf(endpointConfigName: string): Promise<string | undefined> {
    try {
      const config = await this.describeEndpointConfig(endpointConfigName);
      return config?.ProductionVariants?.[0]?.InstanceType;
    } catch {
      return undefined;
    }
  }
}

/** Items of every page whose name starts with `prefix`; a failed page surfaces as the step's error. */
async function collectItems<Page>(
  operation: string,
  prefix: string,
  pages: AsyncIterable<Page>,
  itemsOf: (page: Page) => ListedSummary[],
): Promise<ListedSummary[]> {
  const items: ListedSummary[] = [];
  try {
    for await (const page of pages) {
      items.push(...itemsOf(page).filter((item) => item.name.startsWith(prefix)));
    }
  } catch (error) {
    throw toStepError(error, { operation, kind: 'run resources', resourceName: `${prefix}*` });
  }
  return items;
}

function hosted(summary: ListedSummary, tags: Readonly<Record<string, string>>): HostedResource {
  return { name: summary.name, createdEpochMs: summary.createdEpochMs, tags };
}

/** Variants and models of a config, shadow variants included (they serve models too). */
function usedBy(config: DescribeEndpointConfigCommandOutput): {
  variantNames: string[];
  modelNames: string[];
} {
  const variants = [...(config.ProductionVariants ?? []), ...(config.ShadowProductionVariants ?? [])];
  return {
    variantNames: variants.flatMap((v) => v.VariantName ?? []),
    modelNames: [...new Set(variants.flatMap((v) => v.ModelName ?? []))],
  };
}

/** Names from every page that start with `prefix`; a failed page surfaces as the step's error. */
async function collectNames<Page>(
  operation: string,
  prefix: string,
  pages: AsyncIterable<Page>,
  namesOf: (page: Page) => (string | undefined)[],
): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const page of pages) {
      names.push(...namesOf(page).filter((name): name is string => name?.startsWith(prefix) === true));
    }
  } catch (error) {
    throw toStepError(error, { operation, kind: 'run resources', resourceName: `${prefix}*` });
  }
  return names;
}

/**
 * The port's async spec as SageMaker's `AsyncInferenceConfig` (SageMaker API reference,
 * AsyncInferenceConfig / AsyncInferenceOutputConfig / AsyncInferenceNotificationConfig).
 * `IncludeInferenceResponseIn` stays unset: the notification Lambda reads results from S3, and a
 * response inside the SNS message would put model output into the topic and the Lambda's event.
 */
export function toAsyncInferenceConfig(spec: AsyncInferenceSpec): AsyncInferenceConfig {
  return {
    OutputConfig: {
      S3OutputPath: spec.s3OutputPath,
      S3FailurePath: spec.s3FailurePath,
      ...(spec.kmsKeyId === undefined ? {} : { KmsKeyId: spec.kmsKeyId }),
      NotificationConfig: { SuccessTopic: spec.successTopicArn, ErrorTopic: spec.errorTopicArn },
    },
    ...(spec.maxConcurrentInvocationsPerInstance === undefined
      ? {}
      : { ClientConfig: { MaxConcurrentInvocationsPerInstance: spec.maxConcurrentInvocationsPerInstance } }),
  };
}

/** What DescribeEndpointConfig says of the async settings; fields SageMaker leaves out stay absent. */
export function fromAsyncInferenceConfig(config: AsyncInferenceConfig): AsyncInferenceDescription {
  const output = config.OutputConfig;
  const notification = output?.NotificationConfig;
  const maxConcurrent = config.ClientConfig?.MaxConcurrentInvocationsPerInstance;
  return {
    ...(output?.S3OutputPath === undefined ? {} : { s3OutputPath: output.S3OutputPath }),
    ...(output?.S3FailurePath === undefined ? {} : { s3FailurePath: output.S3FailurePath }),
    ...(output?.KmsKeyId === undefined ? {} : { kmsKeyId: output.KmsKeyId }),
    ...(notification?.SuccessTopic === undefined ? {} : { successTopicArn: notification.SuccessTopic }),
    ...(notification?.ErrorTopic === undefined ? {} : { errorTopicArn: notification.ErrorTopic }),
    ...(maxConcurrent === undefined ? {} : { maxConcurrentInvocationsPerInstance: maxConcurrent }),
  };
}
