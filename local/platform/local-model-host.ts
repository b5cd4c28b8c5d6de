/**
 * The local stand-in for SageMaker hosting: CreateModel / CreateEndpointConfig / CreateEndpoint
 * become a model server process on a free loopback port, with SageMaker's endpoint life cycle
 * (`Creating` → `InService`, or `Failed` with a reason) and its idempotent creates.
 */
import { rm } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describeError, QuotaExceededError, ResourceNotFoundError } from '../../handlers/contracts/errors.js';
import { scratchDir } from './scratch.js';
import {
  type AsyncInferenceSpec,
  type EndpointDescription,
  type EndpointStatus,
  EndpointStatuses,
  type HostedResource,
  type Logger,
  type ModelHost,
  type HostedResourceNames,
  type ModelSpec,
  type ObjectStore,
  type ProductionVariantSpec,
  type ProjectResources,
  type ProjectResourcesQuery,
  RoutingStrategies,
  type RunResources,
} from '../../handlers/ports.js';
import { LocalAsyncEndpoint } from './async-endpoint.js';
import { LocalAsyncPlatform } from './async-platform.js';
import { LocalValidationError } from './errors.js';
import { type InstanceLauncher, modelServerLauncher, type ModelServerLauncherOptions } from './instances.js';
import { type InstanceInvocations, LocalRealtimeEndpoint } from './realtime-endpoint.js';
import { planServerCpu, type ServerCpuPlan } from './cpu-budget.js';
import { extractModelArchive } from './model-archive.js';
import { ModelServerProcess } from './model-server-process.js';

export interface LocalModelHostOptions {
  /** Where model artifacts (`s3://` or `file://`) are read from. */
  readonly store: ObjectStore;
  readonly logger: Logger;
  /** Cores the servers may use. @default os.availableParallelism() */
  readonly availableCpus?: number;
  /** Time a server has to listen and answer `/ping` before its endpoint fails. @default 60 s */
  readonly startTimeoutMs?: number;
  /** Time between SIGTERM and SIGKILL when an endpoint is deleted. @default 5 s */
  readonly stopGraceMs?: number;
  /**
   * Local quota: the threads of all endpoints creating or in service may add up to this many times
   * the cores; beyond it CreateEndpoint fails with QuotaExceededError, as SageMaker does when an
   * account's instance quota is reached. @default 4
   */
  readonly maxCpuOvercommit?: number;
  /** Names of compilation jobs, for `listRunResources` (the local compiler's). */
  readonly compilationJobNames?: () => readonly string[];
  /** The clock that stamps creation times (for `listProjectResources`). @default Date.now */
  readonly now?: () => number;
  /**
   * What async endpoints share: the notification bus, the scaling registry and their records
   * (`local/async/`). @default a platform of the host's own
   */
  readonly asyncPlatform?: LocalAsyncPlatform;
  /**
   * Starts the instances of real-time endpoints of several instances: tests pass a smaller server
   * that keeps the container contract. @default the project's model server (`modelServerLauncher`)
   */
  readonly instanceLauncher?: (options: ModelServerLauncherOptions) => InstanceLauncher;
}

/** What local mode launched for an endpoint: for progress output and tests. */
export interface LocalEndpointServer {
  readonly endpointName: string;
  readonly pid: number | undefined;
  readonly url: string | undefined;
  readonly cpu: ServerCpuPlan;
}

interface EndpointConfig {
  readonly variant: ProductionVariantSpec;
  readonly tags: Readonly<Record<string, string>>;
  readonly asyncInference?: AsyncInferenceSpec;
}

interface LocalEndpoint {
  readonly endpointName: string;
  readonly endpointConfigName: string;
  readonly variant: ProductionVariantSpec;
  /** Mutable: `addTags` updates it in place (running servers hold this object). */
  tags: Readonly<Record<string, string>>;
  status: EndpointStatus;
  failureReason?: string;
  server?: ModelServerProcess;
  url?: string;
  cpu?: ServerCpuPlan;
  /** The start attempt: settles once the endpoint is InService or Failed. */
  starting?: Promise<void>;
  /** Set for an endpoint config with `AsyncInferenceConfig`: its queue and instances. */
  readonly asyncInference?: AsyncInferenceSpec;
  asyncEndpoint?: LocalAsyncEndpoint;
  /** Set for a real-time variant of more than one instance: its instances behind a local front. */
  realtime?: LocalRealtimeEndpoint;
  /** Model-server processes the CPU plan is for (the quota counts each one's threads). */
  readonly processes: number;
}

export type EndpointFailureListener = (endpointName: string, failureReason: string) => void;

const DEFAULT_START_TIMEOUT_MS = 60_000;
const DEFAULT_STOP_GRACE_MS = 5000;
export const DEFAULT_MAX_CPU_OVERCOMMIT = 4;

export class LocalModelHost implements ModelHost {
  private readonly models = new Map<string, ModelSpec>();
  private readonly endpointConfigs = new Map<string, EndpointConfig>();
  private readonly endpoints = new Map<string, LocalEndpoint>();
  /** Creation times by `<kind>/<name>`, as SageMaker's List* report them. */
  private readonly createdAt = new Map<string, number>();
  private readonly failureListeners = new Set<EndpointFailureListener>();
  /** Per-instance invocations of deleted endpoints: CloudWatch's metrics outlive the endpoint too. */
  private readonly deletedInvocations = new Map<string, readonly InstanceInvocations[]>();
  private readonly launched: {
    endpointName: string;
    pid: number | undefined;
    url?: string;
    cpu: ServerCpuPlan;
  }[] = [];
  private readonly availableCpus: number;
  private workDir: Promise<string> | undefined;
  private closed = false;
  /** Shared by the async endpoints (notifications, autoscaling, records). */
  readonly asyncPlatform: LocalAsyncPlatform;

  constructor(private readonly options: LocalModelHostOptions) {
    this.availableCpus = options.availableCpus ?? availableParallelism();
    this.asyncPlatform = options.asyncPlatform ?? new LocalAsyncPlatform({ logger: options.logger });
  }

  addTags(resources: HostedResourceNames, tags: Readonly<Record<string, string>>): Promise<void> {
    const endpoint = this.endpoints.get(resources.endpointName);
    if (endpoint !== undefined) endpoint.tags = { ...endpoint.tags, ...tags };
    const config = this.endpointConfigs.get(resources.endpointConfigName);
    if (config !== undefined) {
      this.endpointConfigs.set(resources.endpointConfigName, {
        ...config,
        tags: { ...config.tags, ...tags },
      });
    }
    const model = this.models.get(resources.modelName);
    if (model !== undefined)
      this.models.set(resources.modelName, { ...model, tags: { ...model.tags, ...tags } });
    return Promise.resolve();
  }

  createModel(spec: ModelSpec): Promise<void> {
    if (!this.models.has(spec.modelName)) {
      this.models.set(spec.modelName, spec);
      this.stampCreation('model', spec.modelName);
      this.options.logger.info('Model registered', {
        modelName: spec.modelName,
        modelDataUrl: spec.modelDataUrl,
        image: spec.image,
        note: 'local mode ignores the image: the project model server serves every model',
      });
    }
    return Promise.resolve();
  }

  createEndpointConfig(spec: {
    readonly endpointConfigName: string;
    readonly variant: ProductionVariantSpec;
    readonly tags: Readonly<Record<string, string>>;
    readonly asyncInference?: AsyncInferenceSpec;
  }): Promise<void> {
    if (spec.asyncInference !== undefined && spec.variant.serverless !== undefined) {
      // SageMaker refuses it too: asynchronous inference runs on instances only.
      return Promise.reject(
        new LocalValidationError(
          `CreateEndpointConfig ${spec.endpointConfigName}: got AsyncInferenceConfig with a serverless variant, expected instances (instanceType) for an asynchronous endpoint`,
        ),
      );
    }
    if (!this.endpointConfigs.has(spec.endpointConfigName)) {
      this.endpointConfigs.set(spec.endpointConfigName, {
        variant: spec.variant,
        tags: spec.tags,
        ...(spec.asyncInference === undefined ? {} : { asyncInference: spec.asyncInference }),
      });
      this.stampCreation('endpoint-config', spec.endpointConfigName);
    }
    return Promise.resolve();
  }

  createEndpoint(spec: {
    readonly endpointName: string;
    readonly endpointConfigName: string;
    readonly tags: Readonly<Record<string, string>>;
  }): Promise<void> {
    if (this.endpoints.has(spec.endpointName)) return Promise.resolve();
    if (this.closed) {
      return Promise.reject(new Error(`Local model host is shut down: cannot create ${spec.endpointName}`));
    }
    const config = this.endpointConfigs.get(spec.endpointConfigName);
    if (config === undefined) {
      return Promise.reject(
        new ResourceNotFoundError(
          `CreateEndpoint ${spec.endpointName}: endpoint configuration ${spec.endpointConfigName} does not exist; expected CreateEndpointConfig first`,
          { endpointConfigName: spec.endpointConfigName },
        ),
      );
    }
    const model = this.models.get(config.variant.modelName);
    if (model === undefined) {
      return Promise.reject(
        new ResourceNotFoundError(
          `CreateEndpoint ${spec.endpointName}: model ${config.variant.modelName} does not exist; expected CreateModel first`,
          { modelName: config.variant.modelName },
        ),
      );
    }
    const instances = realtimeInstances(config);
    const cpu = planServerCpu({
      // One server per instance, each with one instance's vCPUs (async endpoints, and real-time
      // variants of several instances); the instances share this machine's cores.
      variant:
        config.asyncInference === undefined && instances <= 1
          ? config.variant
          : { ...config.variant, initialInstanceCount: 1 },
      environment: model.environment,
      availableCpus: this.availableCpus,
    });
    const processes = Math.max(1, instances);
    const quotaError = this.checkQuota(spec.endpointName, cpu, processes);
    if (quotaError !== undefined) return Promise.reject(quotaError);

    const endpoint: LocalEndpoint = {
      endpointName: spec.endpointName,
      endpointConfigName: spec.endpointConfigName,
      variant: config.variant,
      tags: spec.tags,
      status: EndpointStatuses.creating,
      cpu,
      processes,
      ...(config.asyncInference === undefined ? {} : { asyncInference: config.asyncInference }),
    };
    this.endpoints.set(spec.endpointName, endpoint);
    this.stampCreation('endpoint', spec.endpointName);
    endpoint.starting =
      config.asyncInference !== undefined
        ? this.startAsync(endpoint, model, cpu, config.asyncInference)
        : instances > 1
          ? this.startInstances(endpoint, model, cpu, instances)
          : this.start(endpoint, model, cpu);
    return Promise.resolve();
  }

  describeEndpoint(endpointName: string): Promise<EndpointDescription | undefined> {
    const endpoint = this.endpoints.get(endpointName);
    if (endpoint === undefined) return Promise.resolve(undefined);
    const { variant } = endpoint;
    return Promise.resolve({
      endpointName,
      status: endpoint.status,
      ...(endpoint.status === EndpointStatuses.failed && endpoint.failureReason !== undefined
        ? { failureReason: endpoint.failureReason }
        : {}),
      ...(variant.instanceType === undefined
        ? {}
        : { instanceType: variant.instanceType, instanceCount: variant.initialInstanceCount ?? 1 }),
      ...(endpoint.asyncInference === undefined
        ? {}
        : {
            asyncInference: endpoint.asyncInference,
            variantName: variant.variantName,
            currentInstanceCount: endpoint.asyncEndpoint?.currentInstanceCount ?? 0,
          }),
      // SageMaker lists the live variant (and its CurrentInstanceCount) once the endpoint exists.
      ...(endpoint.realtime === undefined || endpoint.status === EndpointStatuses.creating
        ? {}
        : { variantName: variant.variantName, currentInstanceCount: endpoint.realtime.currentInstanceCount }),
    });
  }

  /**
   * Invocations each instance of a real-time endpoint served, counted by its local front (the
   * stand-in for CloudWatch's per-instance `Invocations`), kept after the endpoint is deleted;
   * `undefined` for an endpoint without a front (one instance, serverless, async) or never created.
   */
  invocationsPerInstance(endpointName: string): readonly InstanceInvocations[] | undefined {
    return (
      this.endpoints.get(endpointName)?.realtime?.invocationsPerInstance() ??
      this.deletedInvocations.get(endpointName)
    );
  }

  /**
   * What UpdateEndpointWeightsAndCapacities' `DesiredInstanceCount` does to a real-time endpoint of
   * several instances: starts or stops instance processes until `count` are in service; the
   * endpoint is `Updating` meanwhile, as on SageMaker. Resolves once the change is complete.
   */
  async updateDesiredInstanceCount(endpointName: string, count: number): Promise<void> {
    const endpoint = this.endpoints.get(endpointName);
    if (endpoint?.realtime === undefined || endpoint.status !== EndpointStatuses.inService) {
      throw new LocalValidationError(
        `UpdateEndpointWeightsAndCapacities ${endpointName}: got an endpoint that is ${endpoint?.status ?? 'missing'}${endpoint !== undefined && endpoint.realtime === undefined ? ' without a local front' : ''}, expected a real-time endpoint of at least two instances InService`,
      );
    }
    endpoint.status = EndpointStatuses.updating;
    try {
      await endpoint.realtime.setDesiredInstanceCount(count);
    } finally {
      // Unless it was deleted or failed meanwhile.
      if (isUpdating(endpoint)) endpoint.status = EndpointStatuses.inService;
    }
  }

  /** The queue and instances of an async endpoint, once it started; `undefined` otherwise. */
  asyncEndpoint(endpointName: string): LocalAsyncEndpoint | undefined {
    return this.endpoints.get(endpointName)?.asyncEndpoint;
  }

  async deleteEndpoint(endpointName: string): Promise<boolean> {
    const endpoint = this.endpoints.get(endpointName);
    if (endpoint === undefined || endpoint.status === EndpointStatuses.deleting) return false;
    endpoint.status = EndpointStatuses.deleting;
    await this.stopServer(endpoint);
    const invocations = endpoint.realtime?.invocationsPerInstance();
    if (invocations !== undefined) this.deletedInvocations.set(endpointName, invocations);
    await this.removeModelCopy(endpointName);
    this.endpoints.delete(endpointName);
    this.options.logger.info('Endpoint deleted', { endpointName, pid: endpoint.server?.pid });
    return true;
  }

  deleteEndpointConfig(endpointConfigName: string): Promise<boolean> {
    return Promise.resolve(this.endpointConfigs.delete(endpointConfigName));
  }

  deleteModel(modelName: string): Promise<boolean> {
    return Promise.resolve(this.models.delete(modelName));
  }

  listRunResources(_runId: string, namePrefix: string): Promise<RunResources> {
    const owned = (names: Iterable<string>): string[] =>
      [...names].filter((name) => name.startsWith(namePrefix));
    return Promise.resolve({
      endpoints: owned(this.endpoints.keys()),
      endpointConfigs: owned(this.endpointConfigs.keys()),
      models: owned(this.models.keys()),
      compilationJobs: owned(this.options.compilationJobNames?.() ?? []),
    });
  }

  /** Like SageMaker's: endpoints of any age, configs and models created before the cutoff. */
  listProjectResources(query: ProjectResourcesQuery): Promise<ProjectResources> {
    const hosted = (kind: string, name: string, tags: Readonly<Record<string, string>>): HostedResource => ({
      name,
      createdEpochMs: this.createdAt.get(`${kind}/${name}`) ?? 0,
      tags,
    });
    const listed = (kind: string, resource: HostedResource): boolean =>
      resource.name.startsWith(query.namePrefix) &&
      (kind === 'endpoint' || resource.createdEpochMs < query.createdBeforeEpochMs);
    return Promise.resolve({
      endpoints: [...this.endpoints.values()]
        .map((e) => ({
          ...hosted('endpoint', e.endpointName, e.tags),
          status: e.status,
          endpointConfigName: e.endpointConfigName,
          variantNames: [e.variant.variantName],
          modelNames: [e.variant.modelName],
        }))
        .filter((e) => listed('endpoint', e)),
      endpointConfigs: [...this.endpointConfigs.entries()]
        .map(([name, config]) => ({
          ...hosted('endpoint-config', name, config.tags),
          modelNames: [config.variant.modelName],
        }))
        .filter((c) => listed('endpoint-config', c)),
      models: [...this.models.values()]
        .map((m) => hosted('model', m.modelName, m.tags))
        .filter((m) => listed('model', m)),
    });
  }

  private stampCreation(kind: 'model' | 'endpoint-config' | 'endpoint', name: string): void {
    this.createdAt.set(`${kind}/${name}`, (this.options.now ?? Date.now)());
  }

  /** The model server's origin while the endpoint is in service, else undefined. */
  endpointUrl(endpointName: string): string | undefined {
    const endpoint = this.endpoints.get(endpointName);
    return endpoint?.status === EndpointStatuses.inService ? endpoint.url : undefined;
  }

  /** Called when an endpoint fails (start failure, or its server exiting while in service). */
  onEndpointFailed(listener: EndpointFailureListener): () => void {
    this.failureListeners.add(listener);
    return () => {
      this.failureListeners.delete(listener);
    };
  }

  /** Every server launched so far, in order, including stopped ones. */
  launchedServers(): readonly LocalEndpointServer[] {
    return this.launched.map(({ endpointName, pid, url, cpu }) => ({ endpointName, pid, url, cpu }));
  }

  /**
   * Stops every server and marks its endpoint Failed with `reason` (an interrupted run), so that
   * the run's clean-up step can delete the endpoints as it would after any failure.
   */
  async stopAllServers(reason: string): Promise<void> {
    await Promise.all(
      [...this.endpoints.values()].map(async (endpoint) => {
        if (endpoint.status === EndpointStatuses.deleting) return;
        this.fail(endpoint, reason, { quiet: true });
        await this.stopServer(endpoint, `Endpoint ${endpoint.endpointName} stopped: ${reason}`);
      }),
    );
  }

  /** Synchronous SIGKILL of every server: for a forced exit (a second Ctrl-C). */
  killAllNow(): void {
    for (const endpoint of this.endpoints.values()) {
      endpoint.server?.kill();
      endpoint.asyncEndpoint?.killNow();
      endpoint.realtime?.killNow();
    }
  }

  /** Stops every server, forgets every resource and removes the extracted models. Idempotent. */
  async shutdown(): Promise<void> {
    this.closed = true;
    await Promise.all(
      [...this.endpoints.values()].map(async (endpoint) => {
        endpoint.status = EndpointStatuses.deleting;
        await this.stopServer(endpoint);
      }),
    );
    this.endpoints.clear();
    this.endpointConfigs.clear();
    this.models.clear();
    const workDir = this.workDir;
    this.workDir = undefined;
    if (workDir !== undefined) await rm(await workDir, { recursive: true, force: true });
  }

  private checkQuota(
    endpointName: string,
    cpu: ServerCpuPlan,
    processes: number,
  ): QuotaExceededError | undefined {
    const maxThreads = (this.options.maxCpuOvercommit ?? DEFAULT_MAX_CPU_OVERCOMMIT) * this.availableCpus;
    const active = [...this.endpoints.values()].filter(
      (e) => e.status === EndpointStatuses.creating || e.status === EndpointStatuses.inService,
    );
    const used = active.reduce(
      (sum, e) => sum + (e.cpu === undefined ? 0 : threadsOf(e.cpu) * e.processes),
      0,
    );
    const wanted = threadsOf(cpu) * processes;
    if (used + wanted <= maxThreads) return undefined;
    return new QuotaExceededError(
      `Local quota: endpoint ${endpointName} needs ${wanted} threads but ${active.length} endpoint(s) already use ${used} of the ${maxThreads} this machine allows (${this.availableCpus} cores × ${this.options.maxCpuOvercommit ?? DEFAULT_MAX_CPU_OVERCOMMIT}); lower maxConcurrentCandidates`,
      { endpointName, used, wanted, maxThreads },
    );
  }

  private async start(endpoint: LocalEndpoint, model: ModelSpec, cpu: ServerCpuPlan): Promise<void> {
    const { endpointName } = endpoint;
    try {
      for (const warning of cpu.warnings) this.options.logger.warn(warning, { endpointName });
      const modelDir = await this.extractModel(endpointName, model);
      if (!isCreating(endpoint)) return;
      const server = ModelServerProcess.start({
        modelDir,
        environment: { ...model.environment, ...cpu.addedEnvironment },
        startTimeoutMs: this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
      });
      endpoint.server = server;
      const launch: (typeof this.launched)[number] = { endpointName, pid: server.pid, cpu };
      this.launched.push(launch);
      void server.exited.then((exit) => {
        if (endpoint.status === EndpointStatuses.inService || endpoint.status === EndpointStatuses.creating) {
          this.fail(endpoint, server.describeExit(exit));
        }
      });
      const { url } = await server.ready;
      launch.url = url;
      // Deleted or failed while starting: the server is being stopped, it must not turn InService.
      if (!isCreating(endpoint)) return;
      endpoint.url = url;
      endpoint.status = EndpointStatuses.inService;
      this.options.logger.info('Endpoint in service', {
        endpointName,
        url,
        pid: server.pid,
        workers: cpu.workers,
        intraOpThreads: cpu.intraOpThreads,
      });
    } catch (error) {
      this.fail(endpoint, error instanceof Error ? error.message : describeError(error));
      await endpoint.server?.stop(this.options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS);
    }
  }

  /** `quiet`: the host stopped the server itself (an interrupted run), nothing to warn about. */
  private fail(endpoint: LocalEndpoint, reason: string, options: { readonly quiet?: boolean } = {}): void {
    if (endpoint.status === EndpointStatuses.failed || endpoint.status === EndpointStatuses.deleting) return;
    endpoint.status = EndpointStatuses.failed;
    endpoint.failureReason = reason;
    if (options.quiet !== true) {
      this.options.logger.warn('Endpoint failed', { endpointName: endpoint.endpointName, reason });
    }
    for (const listener of this.failureListeners) listener(endpoint.endpointName, reason);
  }

  private async stopServer(
    endpoint: LocalEndpoint,
    reason = `Endpoint ${endpoint.endpointName} was deleted`,
  ): Promise<void> {
    const grace = this.options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
    // A start still extracting the model may spawn its server after this: let it settle first.
    if (
      endpoint.server === undefined &&
      endpoint.asyncEndpoint === undefined &&
      endpoint.realtime === undefined
    )
      await endpoint.starting;
    // Queued and running requests fail with the reason (a notification each), then instances stop.
    await endpoint.asyncEndpoint?.shutdown(reason);
    await endpoint.realtime?.shutdown();
    await endpoint.server?.stop(grace);
  }

  /**
   * A real-time variant of several instances: the model extracted once, one model server per
   * instance (each with one instance's CPU plan) behind a local front that routes as the variant
   * says. InService once every initial instance answers `/ping` and the front listens.
   */
  private async startInstances(
    endpoint: LocalEndpoint,
    model: ModelSpec,
    cpu: ServerCpuPlan,
    instances: number,
  ): Promise<void> {
    const { endpointName } = endpoint;
    const routingStrategy = endpoint.variant.routingStrategy ?? RoutingStrategies.random;
    try {
      for (const warning of cpu.warnings) this.options.logger.warn(warning, { endpointName });
      const modelDir = await this.extractModel(endpointName, model);
      if (!isCreating(endpoint)) return;
      const realtime = new LocalRealtimeEndpoint({
        endpointName,
        initialInstanceCount: instances,
        routingStrategy,
        launchInstance: this.recordingLauncher(endpointName, cpu, modelDir, model),
        onInstanceLost: (reason) => {
          this.fail(endpoint, reason);
        },
      });
      endpoint.realtime = realtime;
      const url = await realtime.start();
      if (!isCreating(endpoint)) return;
      endpoint.url = url;
      endpoint.status = EndpointStatuses.inService;
      this.options.logger.info('Endpoint in service', {
        endpointName,
        url,
        instances: realtime.currentInstanceCount,
        routingStrategy,
        workers: cpu.workers,
        intraOpThreads: cpu.intraOpThreads,
        note: 'local instances share this machine’s cores',
      });
    } catch (error) {
      this.fail(endpoint, error instanceof Error ? error.message : describeError(error));
      await endpoint.realtime?.shutdown();
    }
  }

  /** Model-server instances whose launches are recorded in `launchedServers()`. */
  private recordingLauncher(
    endpointName: string,
    cpu: ServerCpuPlan,
    modelDir: string,
    model: ModelSpec,
  ): InstanceLauncher {
    const launchServer = (this.options.instanceLauncher ?? modelServerLauncher)({
      modelDir,
      environment: { ...model.environment, ...cpu.addedEnvironment },
      startTimeoutMs: this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
      stopGraceMs: this.options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS,
    });
    return (instanceId) => {
      const instance = launchServer(instanceId);
      const launch: (typeof this.launched)[number] = { endpointName, pid: instance.pid, cpu };
      this.launched.push(launch);
      void instance.ready.then(
        (url) => {
          launch.url = url;
        },
        () => undefined,
      );
      return instance;
    };
  }

  /**
   * An async endpoint: the model extracted once, then a `LocalAsyncEndpoint` whose instances are
   * model server processes (one per instance, each with one instance's CPU plan). InService once
   * its initial instances answer `/ping`.
   */
  private async startAsync(
    endpoint: LocalEndpoint,
    model: ModelSpec,
    cpu: ServerCpuPlan,
    asyncInference: AsyncInferenceSpec,
  ): Promise<void> {
    const { endpointName } = endpoint;
    try {
      for (const warning of cpu.warnings) this.options.logger.warn(warning, { endpointName });
      const modelDir = await this.extractModel(endpointName, model);
      if (!isCreating(endpoint)) return;
      const asyncEndpoint = new LocalAsyncEndpoint({
        endpointName,
        variantName: endpoint.variant.variantName,
        config: asyncInference,
        initialInstanceCount: endpoint.variant.initialInstanceCount ?? 1,
        launchInstance: this.recordingLauncher(endpointName, cpu, modelDir, model),
        store: this.options.store,
        platform: this.asyncPlatform,
        onFailed: (reason) => {
          this.fail(endpoint, reason);
        },
      });
      endpoint.asyncEndpoint = asyncEndpoint;
      await asyncEndpoint.start();
      if (!isCreating(endpoint)) return;
      endpoint.status = EndpointStatuses.inService;
      this.options.logger.info('Async endpoint in service', {
        endpointName,
        instances: asyncEndpoint.currentInstanceCount,
        maxConcurrentInvocationsPerInstance: asyncEndpoint.maxConcurrentInvocationsPerInstance,
        workers: cpu.workers,
        intraOpThreads: cpu.intraOpThreads,
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : describeError(error);
      this.fail(endpoint, reason);
      await endpoint.asyncEndpoint?.shutdown(`Endpoint ${endpointName} failed (${reason})`);
    }
  }

  /**
   * SageMaker downloads and extracts model.tar.gz onto each instance of an endpoint; so do we, into
   * a folder per endpoint (two endpoints of one model never share a half-extracted folder).
   */
  private async extractModel(endpointName: string, model: ModelSpec): Promise<string> {
    // Under this process's scratch folder: swept by the next run if this one is killed.
    this.workDir ??= Promise.resolve(scratchDir('model-host'));
    const directory = join(await this.workDir, endpointName);
    // Local mode refuses a Hugging Face Hub model before it starts (local/cli/local-input.ts).
    if (model.modelDataUrl === undefined) {
      throw new LocalValidationError(
        `Model ${model.modelName} has no ModelDataUrl: the local model server serves model.tar.gz archives only`,
      );
    }
    const archive = await this.options.store.getBytes(model.modelDataUrl);
    await extractModelArchive(archive, directory, model.modelDataUrl);
    return directory;
  }

  private async removeModelCopy(endpointName: string): Promise<void> {
    if (this.workDir === undefined) return;
    await rm(join(await this.workDir, endpointName), { recursive: true, force: true });
  }
}

/** Instances of a real-time instance variant (0 for async or serverless: no front for them). */
function realtimeInstances(config: EndpointConfig): number {
  if (config.asyncInference !== undefined || config.variant.instanceType === undefined) return 0;
  return config.variant.initialInstanceCount ?? 1;
}

function threadsOf(cpu: ServerCpuPlan): number {
  return cpu.workers * cpu.intraOpThreads;
}

/** A function, not an inline comparison: the status can change while `start` awaits. */
function isCreating(endpoint: LocalEndpoint): boolean {
  return endpoint.status === EndpointStatuses.creating;
}

/** Like `isCreating`: the status can change while a desired count change awaits. */
function isUpdating(endpoint: LocalEndpoint): boolean {
  return endpoint.status === EndpointStatuses.updating;
}
