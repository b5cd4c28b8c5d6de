/**
 * The local stand-in for SageMaker hosting: CreateModel / CreateEndpointConfig / CreateEndpoint
 * become a model server process on a free loopback port, with SageMaker's endpoint life cycle
 * (`Creating` → `InService`, or `Failed` with a reason) and its idempotent creates.
 */
import type {
  EndpointInstanceLimit,
  HostedResourceNames,
  RealtimeScalingRequests,
} from '../../core/contracts/index.js';
import { localQuotaMessage } from '../../core/report/index.js';
import { rm } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import {
  describeError,
  QuotaExceededError,
  ResourceNotFoundError,
  RoutingStrategies,
} from '../../core/contracts/index.js';
import { scratchDir } from './scratch.js';
import {
  type AsyncInferenceSpec,
  type EndpointDescription,
  type EndpointStatus,
  EndpointStatuses,
  type HostedResource,
  type Logger,
  type ModelHost,
  type ModelSpec,
  type ObjectStore,
  type ProductionVariantSpec,
  type ProjectResources,
  type ProjectResourcesQuery,
  type AsyncScalingPolicy,
  type EndpointInstanceSeriesReader,
  type RealtimeScalingApplier,
  type RunResources,
  type ScalingRegistry,
} from '../../core/ports/index.js';
import type { InstanceCountPoint } from '../../core/serving/index.js';
import { LocalAsyncEndpoint } from './async-endpoint.js';
import { LocalAsyncPlatform } from './async-platform.js';
import { LocalValidationError } from './errors.js';
import { type InstanceLauncher, modelServerLauncher, type ModelServerLauncherOptions } from './instances.js';
import {
  type InstanceCountSample,
  type InstanceInvocations,
  LocalRealtimeEndpoint,
} from './realtime-endpoint.js';
import {
  LocalRealtimeAutoscaler,
  type RealtimeScalingActivity,
  type ScalableRealtimeEndpoint,
} from './realtime-scaling.js';
import { checkRealtimeScalingRequests } from './realtime-scaling-requests.js';
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
  /** The local optimization jobs' names, which run clean-up lists (and stops) as SageMaker's. */
  readonly optimizationJobNames?: () => readonly string[];
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
  /** How `applyRealtimeScaling` runs a real-time endpoint's policy. @default see each field */
  readonly realtimeScaling?: LocalRealtimeScalingOptions;
}

/** The local stand-ins for what autoscaling a real-time endpoint takes on SageMaker. */
export interface LocalRealtimeScalingOptions {
  /**
   * Time a scale-out's instance takes, once its server answers `/ping`, before it takes traffic:
   * a SageMaker instance downloads and loads the model, which a local process does in a second.
   * Applied to instances launched while a policy is attached (the initial ones are awaited by the
   * workflow's InService wait, where the delay changes nothing measured). @default 3000
   */
  readonly instanceStartDelayMs?: number;
  /** Multiplies the policy's cooldowns, as the async endpoints' do. @default 0.01 */
  readonly cooldownTimeScale?: number;
  /**
   * The window InvocationsPerInstance is measured over: CloudWatch's one-minute period, shortened
   * like the cooldowns, but long enough to hold a few requests at local rates. @default 5000
   */
  readonly metricWindowMs?: number;
  /** How often the policy is evaluated. @default 500 */
  readonly tickIntervalMs?: number;
}

const DEFAULT_INSTANCE_START_DELAY_MS = 3000;
const DEFAULT_COOLDOWN_TIME_SCALE = 0.01;
const DEFAULT_METRIC_WINDOW_MS = 5000;
const DEFAULT_TICK_INTERVAL_MS = 500;

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
  /** The real-time variant's target tracking policy, while one is attached (`applyRealtimeScaling`). */
  autoscaler?: LocalRealtimeAutoscaler;
  /** Model-server processes the CPU plan is for (the quota counts each one's threads). */
  readonly processes: number;
}

export type EndpointFailureListener = (endpointName: string, failureReason: string) => void;

const DEFAULT_START_TIMEOUT_MS = 60_000;
const DEFAULT_STOP_GRACE_MS = 5000;
export const DEFAULT_MAX_CPU_OVERCOMMIT = 4;

export class LocalModelHost
  implements ModelHost, ScalingRegistry, RealtimeScalingApplier, EndpointInstanceSeriesReader
{
  private readonly models = new Map<string, ModelSpec>();
  private readonly endpointConfigs = new Map<string, EndpointConfig>();
  private readonly endpoints = new Map<string, LocalEndpoint>();
  /** Creation times by `<kind>/<name>`, as SageMaker's List* report them. */
  private readonly createdAt = new Map<string, number>();
  private readonly failureListeners = new Set<EndpointFailureListener>();
  /** Per-instance invocations of deleted endpoints: CloudWatch's metrics outlive the endpoint too. */
  private readonly deletedInvocations = new Map<string, readonly InstanceInvocations[]>();
  /** Instance-count series of deleted endpoints: scaling activities outlive the endpoint too. */
  private readonly deletedSeries = new Map<string, readonly InstanceCountSample[]>();
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

  /**
   * RegisterScalableTarget + PutScalingPolicy for a real-time variant: the requests checked as
   * Application Auto Scaling would (`checkRealtimeScalingRequests`), then a
   * `LocalRealtimeAutoscaler` attached to the endpoint's front, ticking until the variant is
   * deregistered or the endpoint deleted. Applying again replaces the policy (PutScalingPolicy
   * overwrites one of the same name).
   */
  async applyRealtimeScaling(requests: RealtimeScalingRequests): Promise<void> {
    const { endpointName, variantName, policy } = checkRealtimeScalingRequests(requests);
    const endpoint = this.endpoints.get(endpointName);
    const field = 'registerScalableTarget.ResourceId';
    if (endpoint === undefined || endpoint.status === EndpointStatuses.deleting) {
      throw new LocalValidationError(
        `Local autoscaling: ${field} names endpoint ${endpointName}, which does not exist; expected an endpoint created with CreateEndpoint first`,
      );
    }
    if (endpoint.variant.variantName !== variantName) {
      throw new LocalValidationError(
        `Local autoscaling: ${field} names variant ${variantName}, expected ${endpoint.variant.variantName}, the variant of endpoint ${endpointName}`,
      );
    }
    const realtime = endpoint.realtime;
    if (realtime === undefined || endpoint.status !== EndpointStatuses.inService) {
      const kind =
        endpoint.asyncInference !== undefined
          ? 'an asynchronous endpoint'
          : endpoint.variant.instanceType === undefined
            ? 'a serverless endpoint'
            : realtime === undefined
              ? 'a real-time endpoint of one instance (local mode puts a front only before two or more)'
              : `a real-time endpoint that is ${endpoint.status}`;
      throw new LocalValidationError(
        `Local autoscaling: ${field} names ${kind}; expected a real-time endpoint of at least two instances InService (deploy it at the policy's MinCapacity, at least 2)`,
      );
    }
    const scaling = this.options.realtimeScaling ?? {};
    await this.detachAutoscaler(endpoint);
    realtime.setInstanceStartDelayMs(scaling.instanceStartDelayMs ?? DEFAULT_INSTANCE_START_DELAY_MS);
    const scalable: ScalableRealtimeEndpoint = {
      get currentInstanceCount() {
        return realtime.currentInstanceCount;
      },
      get desiredInstanceCount() {
        return realtime.desiredInstanceCount;
      },
      totalInvocations: () => realtime.totalInvocations(),
      // Through the host: the endpoint is `Updating` while a change runs, as on SageMaker.
      setDesiredInstanceCount: (count) => this.updateDesiredInstanceCount(endpointName, count),
    };
    const autoscaler = new LocalRealtimeAutoscaler({
      endpoint: scalable,
      policy,
      cooldownTimeScale: scaling.cooldownTimeScale ?? DEFAULT_COOLDOWN_TIME_SCALE,
      metricWindowMs: scaling.metricWindowMs ?? DEFAULT_METRIC_WINDOW_MS,
    });
    endpoint.autoscaler = autoscaler;
    autoscaler.start(scaling.tickIntervalMs ?? DEFAULT_TICK_INTERVAL_MS);
    this.options.logger.info('Real-time autoscaling attached', { endpointName, variantName, ...policy });
  }

  /**
   * DeregisterScalableTarget: detaches a real-time variant's policy (waiting for a change in
   * progress) or forgets an async variant's. False when the variant had none.
   */
  async deregisterEndpointVariant(endpointName: string, variantName: string): Promise<boolean> {
    const endpoint = this.endpoints.get(endpointName);
    const realtime =
      endpoint?.variant.variantName === variantName && endpoint.autoscaler !== undefined
        ? await this.detachAutoscaler(endpoint)
        : false;
    const asynchronous = await this.asyncPlatform.scaling.deregisterEndpointVariant(
      endpointName,
      variantName,
    );
    return realtime || asynchronous;
  }

  /** The async endpoints' registry keeps the policy; their endpoints read it from there. */
  configureAsyncScaling(
    endpointName: string,
    variantName: string,
    policy: AsyncScalingPolicy,
  ): Promise<void> {
    return this.asyncPlatform.scaling.configureAsyncScaling(endpointName, variantName, policy);
  }

  /** The real-time front's instance counts over the window (kept after the endpoint is deleted). */
  instanceSeries(
    endpointName: string,
    fromEpochMs: number,
    toEpochMs: number,
  ): Promise<readonly InstanceCountPoint[]> {
    const series =
      this.endpoints.get(endpointName)?.realtime?.instanceCountSeries() ??
      this.deletedSeries.get(endpointName) ??
      [];
    const first = series.findLastIndex((sample) => sample.atEpochMs <= fromEpochMs);
    return Promise.resolve(
      series.filter(
        (sample, index) =>
          index === first || (sample.atEpochMs > fromEpochMs && sample.atEpochMs <= toEpochMs),
      ),
    );
  }

  /** The policy's activities so far (as DescribeScalingActivities lists them); empty without one. */
  realtimeScalingActivities(endpointName: string): readonly RealtimeScalingActivity[] {
    return this.endpoints.get(endpointName)?.autoscaler?.activities() ?? [];
  }

  /** Stops the endpoint's autoscaler ticking now; resolves once a change in progress settled. */
  private async detachAutoscaler(endpoint: LocalEndpoint): Promise<boolean> {
    const autoscaler = endpoint.autoscaler;
    if (autoscaler === undefined) return false;
    endpoint.autoscaler = undefined;
    endpoint.realtime?.setInstanceStartDelayMs(0);
    await autoscaler.stop();
    return true;
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
    const series = endpoint.realtime?.instanceCountSeries();
    if (series !== undefined) this.deletedSeries.set(endpointName, series);
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
      optimizationJobs: owned(this.options.optimizationJobNames?.() ?? []),
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
      void endpoint.autoscaler?.stop();
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

  /**
   * The most instances one endpoint can have here: each is a model server of at least one thread,
   * and the host runs at most maxCpuOvercommit × cores threads at once (`checkQuota`). Recommend
   * sizes no count above it, as on AWS none above the account's quota.
   */
  endpointInstanceLimit(): EndpointInstanceLimit {
    const overcommit = this.options.maxCpuOvercommit ?? DEFAULT_MAX_CPU_OVERCOMMIT;
    return {
      instances: overcommit * this.availableCpus,
      name: `this machine's model-server budget (${this.availableCpus} cores × ${overcommit} threads, one instance at least one thread)`,
      fix:
        'the local host can never deploy that many, so nothing is proven or recommended at this target; ' +
        "size it on AWS, where the account's quota of the instance type bounds it, or lower the target",
    };
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
      localQuotaMessage({
        endpointName,
        wanted,
        workers: cpu.workers,
        threadsPerWorker: cpu.intraOpThreads,
        instances: processes,
        activeEndpoints: active.length,
        used,
        maxThreads,
        cores: this.availableCpus,
        overcommit: this.options.maxCpuOvercommit ?? DEFAULT_MAX_CPU_OVERCOMMIT,
      }),
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
    // A failed endpoint takes no update: the policy stays registered (until deregistered or the
    // endpoint deleted) but stops deciding, rather than failing an activity every tick.
    void endpoint.autoscaler?.stop();
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
    // Every path that stops an endpoint (delete, interruption, shutdown) stops its autoscaler
    // first: no tick may start instances on an endpoint going away. Its change in progress ends
    // when the instances stop below.
    const autoscaling = this.detachAutoscaler(endpoint);
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
    await autoscaling;
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
