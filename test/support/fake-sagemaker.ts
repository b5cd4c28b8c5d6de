import { QuotaExceededError } from '../../core/contracts/errors.js';
import type { Clock, InvokeOutcome, InvokeTransport } from '../../core/load-test/index.js';
import type {
  AsyncInferenceSpec,
  CompilationJobDescription,
  CompilationJobSpec,
  EndpointDescription,
  EndpointStatus,
  HostedResource,
  ModelCompiler,
  ModelHost,
  ModelSpec,
  ProductionVariantSpec,
  ProjectResources,
  ProjectResourcesQuery,
  RunResources,
  TransportFactory,
} from '../../core/ports/index.js';
import type { HostedResourceNames } from '../../core/contracts/hosted-resources.js';

export interface FakeSageMakerFaults {
  /** Instance types for which CreateEndpoint fails with the account quota reached. */
  readonly quotaExceededFor?: readonly string[];
  /** Endpoint-name fragment → FailureReason: such endpoints go Creating → Failed. */
  readonly endpointFailures?: Readonly<Record<string, string>>;
  /** Target → FailureReason: such compilation jobs end FAILED. */
  readonly compilationFailures?: Readonly<Record<string, string>>;
  /** DescribeEndpoint calls answered `Creating` before `InService`. @default 1 */
  readonly describesUntilInService?: number;
  /**
   * Name fragment → DeleteEndpoint, DeleteEndpointConfig and DeleteModel of a matching name fail
   * with an `AccessDeniedException` carrying this message, and the resource stays.
   */
  readonly deleteDenied?: Readonly<Record<string, string>>;
  /**
   * Endpoint-name fragment → DescribeEndpoint calls answered `Creating` before the endpoint settles
   * (overrides `describesUntilInService` for those endpoints). While Creating, DeleteEndpoint of such
   * an endpoint fails as SageMaker's does (a ValidationException), so a clean-up that does not wait shows.
   */
  readonly creatingFor?: Readonly<Record<string, number>>;
  /**
   * Instance type → the account's quota: CreateEndpoint fails with the quota reached when the
   * endpoints already holding instances of the type (any status until deleted) and the new one
   * would need more, as SageMaker's "<type> for endpoint usage" quota does.
   */
  readonly instanceQuotas?: Readonly<Record<string, number>>;
}

export interface FakeSageMakerOptions {
  /** The clock that stamps creation times (what `listProjectResources` reports). @default Date.now */
  readonly now?: () => number;
}

type FakeResourceKind = 'model' | 'endpoint-config' | 'endpoint';

interface FakeEndpoint {
  configName: string;
  status: EndpointStatus;
  describes: number;
  failureReason?: string;
  variant?: ProductionVariantSpec;
  /** Names of further production variants (an existing endpoint's), after `variant`. */
  otherVariants?: readonly string[];
  asyncInference?: AsyncInferenceSpec;
}

/**
 * An in-memory SageMaker (hosting + compilation) for workflow tests: the real status life cycles,
 * idempotent creates, quota and failure injection, and a log of every mutating call.
 */
export class FakeSageMaker implements ModelHost, ModelCompiler {
  readonly calls: string[] = [];
  readonly models = new Map<string, ModelSpec>();
  readonly endpointConfigs = new Map<string, ProductionVariantSpec>();
  /** The `AsyncInferenceConfig` of endpoint configs created with one, by config name. */
  readonly asyncInferenceConfigs = new Map<string, AsyncInferenceSpec>();
  readonly endpoints = new Map<string, FakeEndpoint>();
  readonly compilationJobs = new Map<
    string,
    { spec: CompilationJobSpec; describes: number; stopped: boolean }
  >();

  /** The most instances of each type that endpoints held at once (for quota assertions). */
  readonly peakInstances = new Map<string, number>();
  /** CreateEndpoint calls refused because an instance quota was reached. */
  quotaRefusals = 0;

  /** Creation time and tags by `<kind>/<name>`, as SageMaker's List* and ListTags report them. */
  private readonly created = new Map<string, { atEpochMs: number; tags: Readonly<Record<string, string>> }>();

  constructor(
    private readonly faults: FakeSageMakerFaults = {},
    private readonly options: FakeSageMakerOptions = {},
  ) {}

  private stamp(kind: FakeResourceKind, name: string, tags: Readonly<Record<string, string>> = {}): void {
    this.created.set(`${kind}/${name}`, { atEpochMs: (this.options.now ?? Date.now)(), tags });
  }

  createModel(spec: ModelSpec): Promise<void> {
    this.calls.push(`CreateModel ${spec.modelName}`);
    this.models.set(spec.modelName, spec);
    this.stamp('model', spec.modelName, spec.tags);
    return Promise.resolve();
  }

  createEndpointConfig(spec: {
    endpointConfigName: string;
    variant: ProductionVariantSpec;
    tags?: Readonly<Record<string, string>>;
    asyncInference?: AsyncInferenceSpec;
  }): Promise<void> {
    this.calls.push(`CreateEndpointConfig ${spec.endpointConfigName}`);
    this.endpointConfigs.set(spec.endpointConfigName, spec.variant);
    if (spec.asyncInference !== undefined) {
      this.asyncInferenceConfigs.set(spec.endpointConfigName, spec.asyncInference);
    }
    this.stamp('endpoint-config', spec.endpointConfigName, spec.tags);
    return Promise.resolve();
  }

  createEndpoint(spec: {
    endpointName: string;
    endpointConfigName: string;
    tags?: Readonly<Record<string, string>>;
  }): Promise<void> {
    this.calls.push(`CreateEndpoint ${spec.endpointName}`);
    const variant = this.endpointConfigs.get(spec.endpointConfigName);
    const asyncInference = this.asyncInferenceConfigs.get(spec.endpointConfigName);
    if (variant?.instanceType !== undefined && this.faults.quotaExceededFor?.includes(variant.instanceType)) {
      return Promise.reject(
        new QuotaExceededError(
          `The account-level service limit 'ml.${variant.instanceType} for endpoint usage' is 0 Instances; request a quota increase in Service Quotas`,
        ),
      );
    }
    const quotaError = this.instanceQuotaError(spec.endpointName, variant);
    if (quotaError !== undefined) {
      this.quotaRefusals += 1;
      return Promise.reject(quotaError);
    }
    const failure = Object.entries(this.faults.endpointFailures ?? {}).find(([fragment]) =>
      spec.endpointName.includes(fragment),
    );
    this.endpoints.set(spec.endpointName, {
      configName: spec.endpointConfigName,
      status: 'Creating',
      describes: 0,
      ...(failure === undefined ? {} : { failureReason: failure[1] }),
      ...(variant === undefined ? {} : { variant }),
      ...(asyncInference === undefined ? {} : { asyncInference }),
    });
    this.stamp('endpoint', spec.endpointName, spec.tags);
    if (variant?.instanceType !== undefined) {
      const inUse = this.instancesInUse(variant.instanceType);
      this.peakInstances.set(
        variant.instanceType,
        Math.max(inUse, this.peakInstances.get(variant.instanceType) ?? 0),
      );
    }
    return Promise.resolve();
  }

  /** Instances of a type that existing endpoints hold (an endpoint holds them until deleted). */
  private instancesInUse(instanceType: string): number {
    return [...this.endpoints.values()]
      .filter((endpoint) => endpoint.variant?.instanceType === instanceType)
      .reduce((sum, endpoint) => sum + (endpoint.variant?.initialInstanceCount ?? 1), 0);
  }

  /** SageMaker's ResourceLimitExceeded message, as the adapter turns it into QuotaExceededError. */
  private instanceQuotaError(
    endpointName: string,
    variant: ProductionVariantSpec | undefined,
  ): QuotaExceededError | undefined {
    const type = variant?.instanceType;
    const quota = type === undefined ? undefined : this.faults.instanceQuotas?.[type];
    if (type === undefined || quota === undefined || this.endpoints.has(endpointName)) return undefined;
    const inUse = this.instancesInUse(type);
    const delta = variant?.initialInstanceCount ?? 1;
    if (inUse + delta <= quota) return undefined;
    return new QuotaExceededError(
      `CreateEndpoint for endpoint ${endpointName} failed: the account's SageMaker quota is reached (SageMaker says: The account-level service limit '${type} for endpoint usage' is ${quota} Instances, with current utilization of ${inUse} Instances and a request delta of ${delta} Instances.)`,
    );
  }

  describeEndpoint(endpointName: string): Promise<EndpointDescription | undefined> {
    const endpoint = this.endpoints.get(endpointName);
    if (endpoint === undefined) return Promise.resolve(undefined);
    endpoint.describes += 1;
    const creatingFor = this.creatingDescribes(endpointName) ?? this.faults.describesUntilInService ?? 1;
    if (endpoint.status === 'Creating' && endpoint.describes > creatingFor) {
      endpoint.status = endpoint.failureReason === undefined ? 'InService' : 'Failed';
    }
    return Promise.resolve({
      endpointName,
      status: endpoint.status,
      ...(endpoint.status === 'Failed' && endpoint.failureReason !== undefined
        ? { failureReason: endpoint.failureReason }
        : {}),
      ...(endpoint.variant?.instanceType === undefined
        ? {}
        : { instanceType: endpoint.variant.instanceType }),
      ...(endpoint.variant?.initialInstanceCount === undefined
        ? {}
        : { instanceCount: endpoint.variant.initialInstanceCount }),
      // Like SageMaker's DescribeEndpoint: the live variant once the endpoint is in service.
      ...(endpoint.status !== 'InService' || endpoint.variant === undefined
        ? {}
        : {
            variantName: endpoint.variant.variantName,
            variantNames: [endpoint.variant.variantName, ...(endpoint.otherVariants ?? [])],
            currentInstanceCount: endpoint.variant.initialInstanceCount ?? 1,
          }),
      ...(endpoint.asyncInference === undefined ? {} : { asyncInference: endpoint.asyncInference }),
    });
  }

  addTags(resources: HostedResourceNames, tags: Readonly<Record<string, string>>): Promise<void> {
    this.calls.push(`AddTags ${resources.endpointName}`);
    const entries: [FakeResourceKind, string][] = [
      ['endpoint', resources.endpointName],
      ['endpoint-config', resources.endpointConfigName],
      ['model', resources.modelName],
    ];
    for (const [kind, name] of entries) {
      const created = this.created.get(`${kind}/${name}`);
      if (created !== undefined)
        this.created.set(`${kind}/${name}`, { ...created, tags: { ...created.tags, ...tags } });
    }
    return Promise.resolve();
  }

  /** The tags a resource carries now, as ListTags would report them. */
  tagsOf(kind: FakeResourceKind, name: string): Readonly<Record<string, string>> {
    return this.created.get(`${kind}/${name}`)?.tags ?? {};
  }

  /**
   * Adds an endpoint the project did not create (for `existingEndpoint` runs): one variant,
   * `AllTraffic` on one instance unless told, and optionally further variants.
   */
  addExistingEndpoint(
    endpointName: string,
    instanceType: string,
    options: {
      readonly instanceCount?: number;
      readonly variantName?: string;
      readonly otherVariants?: readonly string[];
    } = {},
  ): void {
    this.endpoints.set(endpointName, {
      configName: `${endpointName}-config`,
      status: 'InService',
      describes: 0,
      variant: {
        variantName: options.variantName ?? 'AllTraffic',
        modelName: 'theirs',
        instanceType,
        initialInstanceCount: options.instanceCount ?? 1,
      },
      ...(options.otherVariants === undefined ? {} : { otherVariants: options.otherVariants }),
    });
    this.stamp('endpoint', endpointName);
  }

  deleteEndpoint(endpointName: string): Promise<boolean> {
    this.calls.push(`DeleteEndpoint ${endpointName}`);
    const denied = this.deleteDenial('DeleteEndpoint', endpointName);
    if (denied !== undefined) return Promise.reject(denied);
    const endpoint = this.endpoints.get(endpointName);
    if (endpoint?.status === 'Creating' && this.creatingDescribes(endpointName) !== undefined) {
      return Promise.reject(
        Object.assign(new Error(`Cannot delete endpoint ${endpointName} in status Creating`), {
          name: 'ValidationException',
        }),
      );
    }
    return Promise.resolve(this.endpoints.delete(endpointName));
  }

  deleteEndpointConfig(name: string): Promise<boolean> {
    this.calls.push(`DeleteEndpointConfig ${name}`);
    const denied = this.deleteDenial('DeleteEndpointConfig', name);
    if (denied !== undefined) return Promise.reject(denied);
    return Promise.resolve(this.endpointConfigs.delete(name));
  }

  deleteModel(name: string): Promise<boolean> {
    this.calls.push(`DeleteModel ${name}`);
    const denied = this.deleteDenial('DeleteModel', name);
    if (denied !== undefined) return Promise.reject(denied);
    return Promise.resolve(this.models.delete(name));
  }

  /** The `AccessDeniedException` a `deleteDenied` fault makes `operation` throw on `name`, if any. */
  private deleteDenial(operation: string, name: string): Error | undefined {
    const denial = Object.entries(this.faults.deleteDenied ?? {}).find(([fragment]) =>
      name.includes(fragment),
    );
    if (denial === undefined) return undefined;
    return Object.assign(new Error(`${denial[1]} (sagemaker:${operation} on ${name})`), {
      name: 'AccessDeniedException',
    });
  }

  /** The `creatingFor` fault's describe count for an endpoint, when one matches its name. */
  private creatingDescribes(endpointName: string): number | undefined {
    return Object.entries(this.faults.creatingFor ?? {}).find(([fragment]) =>
      endpointName.includes(fragment),
    )?.[1];
  }

  listRunResources(_runId: string, namePrefix: string): Promise<RunResources> {
    const owned = (names: Iterable<string>): string[] =>
      [...names].filter((name) => name.startsWith(namePrefix));
    return Promise.resolve({
      endpoints: owned(this.endpoints.keys()),
      endpointConfigs: owned(this.endpointConfigs.keys()),
      models: owned(this.models.keys()),
      compilationJobs: owned(this.compilationJobs.keys()),
    });
  }

  /** Like SageMaker's: endpoints of any age, configs and models created before the cutoff. */
  listProjectResources(query: ProjectResourcesQuery): Promise<ProjectResources> {
    const hosted = (kind: FakeResourceKind, name: string): HostedResource => {
      const created = this.created.get(`${kind}/${name}`);
      return { name, createdEpochMs: created?.atEpochMs ?? 0, tags: created?.tags ?? {} };
    };
    const listed = (resource: HostedResource, byAge: boolean): boolean =>
      resource.name.startsWith(query.namePrefix) &&
      (!byAge || resource.createdEpochMs < query.createdBeforeEpochMs);
    return Promise.resolve({
      endpoints: [...this.endpoints.entries()]
        .map(([name, endpoint]) => {
          const variant = endpoint.variant ?? this.endpointConfigs.get(endpoint.configName);
          return {
            ...hosted('endpoint', name),
            status: endpoint.status,
            endpointConfigName: endpoint.configName,
            variantNames: variant === undefined ? [] : [variant.variantName],
            modelNames: variant === undefined ? [] : [variant.modelName],
          };
        })
        .filter((endpoint) => listed(endpoint, false)),
      endpointConfigs: [...this.endpointConfigs.entries()]
        .map(([name, variant]) => ({ ...hosted('endpoint-config', name), modelNames: [variant.modelName] }))
        .filter((config) => listed(config, true)),
      models: [...this.models.keys()].map((name) => hosted('model', name)).filter((m) => listed(m, true)),
    });
  }

  createCompilationJob(spec: CompilationJobSpec): Promise<void> {
    this.calls.push(`CreateCompilationJob ${spec.jobName}`);
    if (!this.compilationJobs.has(spec.jobName)) {
      this.compilationJobs.set(spec.jobName, { spec, describes: 0, stopped: false });
    }
    return Promise.resolve();
  }

  describeCompilationJob(jobName: string): Promise<CompilationJobDescription | undefined> {
    const job = this.compilationJobs.get(jobName);
    if (job === undefined) return Promise.resolve(undefined);
    job.describes += 1;
    if (job.stopped) return Promise.resolve({ jobName, status: 'STOPPED' });
    if (job.describes < 2) return Promise.resolve({ jobName, status: 'INPROGRESS' });
    const failure = this.faults.compilationFailures?.[job.spec.target];
    if (failure !== undefined) return Promise.resolve({ jobName, status: 'FAILED', failureReason: failure });
    return Promise.resolve({
      jobName,
      status: 'COMPLETED',
      artifactUri: `${job.spec.outputUri}model-${job.spec.target}.tar.gz`,
    });
  }

  stopCompilationJob(jobName: string): Promise<void> {
    this.calls.push(`StopCompilationJob ${jobName}`);
    const job = this.compilationJobs.get(jobName);
    if (job !== undefined) job.stopped = true;
    return Promise.resolve();
  }

  /** What is still running or stored: the assertion that nothing was left behind. */
  leftovers(): { endpoints: string[]; endpointConfigs: string[]; models: string[] } {
    return {
      endpoints: [...this.endpoints.keys()],
      endpointConfigs: [...this.endpointConfigs.keys()],
      models: [...this.models.keys()],
    };
  }
}

export interface StubEndpointBehaviour {
  /** Service time of one request, in ms. */
  readonly latencyMs: number;
  /** Answer every request with this model error instead. */
  readonly modelError?: { readonly statusCode: number; readonly message: string };
}

/**
 * A transport factory whose endpoints answer after a fixed delay, or with model errors. On `clock`
 * (a VirtualClock) the delay is simulated: every request takes exactly `latencyMs`, so a load
 * window's figures are the same on every run and cost no real time. Without it, a real timer,
 * whose lateness on a busy machine is in the latency.
 */
export function stubTransports(
  behaviourOf: (endpointName: string) => StubEndpointBehaviour,
  clock?: Clock,
): TransportFactory {
  return ({ endpointName }) => {
    const behaviour = behaviourOf(endpointName);
    // Simulated time moves only when every request waits on it: an answer in no time never ends.
    if (clock !== undefined && !(behaviour.latencyMs > 0)) {
      throw new Error(
        `stubTransports: endpoint ${endpointName} answers in ${behaviour.latencyMs} ms on simulated time; expected more than 0`,
      );
    }
    const answer: InvokeOutcome =
      behaviour.modelError === undefined ? { kind: 'ok' } : { kind: 'model-error', ...behaviour.modelError };
    const aborted: InvokeOutcome = { kind: 'timeout', message: 'aborted' };
    const onClock = (clockOf: Clock): InvokeTransport => ({
      invoke: async (_request, signal) => {
        await clockOf.sleepUntil(clockOf.nowUs() + behaviour.latencyMs * 1000, signal);
        return signal.aborted ? aborted : answer;
      },
    });
    const onTimers: InvokeTransport = {
      invoke: (_request, signal) =>
        new Promise<InvokeOutcome>((resolve) => {
          const timer = setTimeout(() => {
            resolve(answer);
          }, behaviour.latencyMs);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve(aborted);
          });
        }),
    };
    return clock === undefined ? onTimers : onClock(clock);
  };
}
