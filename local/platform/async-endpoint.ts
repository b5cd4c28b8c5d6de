/**
 * A local SageMaker asynchronous endpoint: `InvokeEndpointAsync` queues a request; instances (model
 * server processes) take requests from the queue in order, at most
 * `MaxConcurrentInvocationsPerInstance` each; every request ends with its result or failure
 * written to the store and a notification published to the endpoint's success or error topic, in
 * SageMaker's own JSON shape. Nothing ends silently: a request that expires in the queue, times
 * out, meets a model error, or is still queued or running when the endpoint is deleted gets a
 * `Failed` notification saying why.
 *
 * With a scaling policy in the platform's registry the instance count follows the backlog (see
 * `scaling.ts`); without one it stays at the variant's initial count, as on SageMaker without
 * autoscaling. An instance that dies is replaced; an endpoint whose instances fail to start
 * `maxConsecutiveLaunchFailures` times in a row fails (its queued requests fail with the reason).
 */
import { randomUUID } from 'node:crypto';
import type { AsyncInvocationReceipt } from '../../core/async/index.js';
import { describeError } from '../../core/contracts/index.js';
import type { AsyncInferenceSpec, ObjectStore } from '../../core/ports/index.js';
import type { LocalAsyncPlatform } from './async-platform.js';
import type { AsyncInstance, InstanceLauncher } from './instances.js';
import { type NotificationOutcome, notificationMessage } from './notification-message.js';
import { decideScaling } from './scaling.js';
import type { ActivityHandle } from './telemetry.js';

/** What `InvokeEndpointAsync` asks of the endpoint. */
export interface AsyncInvocation {
  readonly inferenceId: string;
  readonly inputLocation: string;
  readonly contentType: string;
  readonly invocationTimeoutSeconds: number;
  readonly requestTtlSeconds: number;
}

/** A request in the endpoint's queue. */
export interface QueuedRequest extends AsyncInvocation {
  readonly receivedAt: number;
  readonly outputLocation: string;
  readonly failureLocation: string;
}

export interface LocalAsyncEndpointOptions {
  readonly endpointName: string;
  readonly variantName: string;
  readonly config: AsyncInferenceSpec;
  /** Instances started with the endpoint (the variant's `InitialInstanceCount`). */
  readonly initialInstanceCount: number;
  readonly launchInstance: InstanceLauncher;
  /** Where inputs are read and results and failures written. */
  readonly store: ObjectStore;
  readonly platform: LocalAsyncPlatform;
  /** Called once if the endpoint fails (its instances cannot be started). */
  readonly onFailed?: (reason: string) => void;
}

/** Counts for progress output. */
export interface AsyncEndpointSnapshot {
  readonly received: number;
  readonly completed: number;
  readonly failed: number;
  readonly queued: number;
  readonly inFlight: number;
  readonly instancesInService: number;
  readonly instancesStarting: number;
  readonly desiredInstanceCount: number;
}

type InstanceState = 'starting' | 'in-service' | 'stopping' | 'gone';

interface Instance {
  readonly id: string;
  readonly process: AsyncInstance;
  state: InstanceState;
  url?: string;
  inFlight: number;
}

interface Running {
  readonly controller: AbortController;
  readonly instance: Instance;
}

/** Abort reasons of a running request. */
class InvocationTimeout extends Error {}
class EndpointStopping extends Error {}

/** Characters of a model's error body quoted in a failure reason. */
const MAX_QUOTED_ERROR_CHARS = 500;

export class LocalAsyncEndpoint {
  readonly endpointName: string;
  readonly variantName: string;
  readonly config: AsyncInferenceSpec;
  /** `ClientConfig.MaxConcurrentInvocationsPerInstance`, or the platform's local default. */
  readonly maxConcurrentInvocationsPerInstance: number;
  private readonly queue: QueuedRequest[] = [];
  private readonly instances: Instance[] = [];
  private readonly running = new Map<QueuedRequest, Running>();
  private readonly processing = new Set<Promise<void>>();
  private readonly counts = { received: 0, completed: 0, failed: 0 };
  private desired: number;
  private activity: { readonly handle: ActivityHandle; readonly scalesOut: boolean } | undefined;
  /** When the last scale-out completed: the scale-out cooldown counts from there. */
  private lastScaleOutAt = Number.NEGATIVE_INFINITY;
  private backlogEmptySince: number | undefined;
  private launchFailures = 0;
  private instanceNumber = 0;
  private timer: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;
  private failure: string | undefined;
  private startWaiter: { resolve: () => void; reject: (error: Error) => void } | undefined;

  constructor(private readonly options: LocalAsyncEndpointOptions) {
    this.endpointName = options.endpointName;
    this.variantName = options.variantName;
    this.config = options.config;
    this.maxConcurrentInvocationsPerInstance =
      options.config.maxConcurrentInvocationsPerInstance ??
      options.platform.defaultMaxConcurrentInvocationsPerInstance;
    this.desired = options.initialInstanceCount;
  }

  /** Starts the initial instances; resolves once they are all in service. */
  start(): Promise<void> {
    const started = new Promise<void>((resolve, reject) => {
      this.startWaiter = { resolve, reject };
    });
    this.timer = setInterval(() => {
      this.pump();
    }, this.options.platform.tickMs);
    this.timer.unref();
    this.pump();
    this.checkStarted();
    return started;
  }

  /** `InvokeEndpointAsync`: queues the request and says where its result or failure will be. */
  enqueue(invocation: AsyncInvocation): AsyncInvocationReceipt {
    if (this.closing !== undefined) {
      throw new Error(`Endpoint ${this.endpointName} is shutting down: it no longer accepts requests`);
    }
    const id = randomUUID();
    const request: QueuedRequest = {
      ...invocation,
      receivedAt: this.now(),
      // SageMaker's names: `<S3OutputPath>/<uuid>.out` and `<S3FailurePath>/<uuid>-error.out`.
      outputLocation: under(this.config.s3OutputPath, `${id}.out`),
      failureLocation: under(this.config.s3FailurePath, `${id}-error.out`),
    };
    this.queue.push(request);
    this.counts.received += 1;
    this.pump();
    return {
      inferenceId: request.inferenceId,
      outputLocation: request.outputLocation,
      failureLocation: request.failureLocation,
    };
  }

  /** Instances in service now (0 when scaled in). */
  get currentInstanceCount(): number {
    return this.instances.filter((instance) => instance.state === 'in-service').length;
  }

  /** Why the endpoint failed, if it did. */
  get failureReason(): string | undefined {
    return this.failure;
  }

  /** Pids of the instance processes alive or stopping now. */
  get instancePids(): readonly number[] {
    return this.instances.flatMap((instance) =>
      instance.process.pid === undefined ? [] : [instance.process.pid],
    );
  }

  snapshot(): AsyncEndpointSnapshot {
    return {
      ...this.counts,
      queued: this.queue.length,
      inFlight: this.running.size,
      instancesInService: this.currentInstanceCount,
      instancesStarting: this.instances.filter((instance) => instance.state === 'starting').length,
      desiredInstanceCount: this.desired,
    };
  }

  /**
   * Stops the endpoint: queued requests fail with `<reason> before the request left the queue`,
   * running ones with `<reason> while the request was being processed`, then every instance is
   * stopped. Resolves once the processes have exited and every notification is published.
   */
  shutdown(reason: string): Promise<void> {
    this.closing ??= this.close(reason);
    return this.closing;
  }

  /** SIGKILL of every instance, synchronous: for a forced exit. */
  killNow(): void {
    for (const instance of this.instances) instance.process.kill();
  }

  private async close(reason: string): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    const now = this.now();
    for (const request of this.queue.splice(0)) {
      this.publish(request, {
        status: 'failed',
        failureReason: `${reason} before the request left the queue`,
      });
    }
    for (const { controller } of this.running.values()) controller.abort(new EndpointStopping(reason));
    this.startWaiter?.reject(new Error(reason));
    this.startWaiter = undefined;
    this.activity?.handle.fail(now, reason);
    await Promise.allSettled(
      this.instances.map((instance) => {
        instance.state = 'stopping';
        return instance.process.stop();
      }),
    );
    while (this.processing.size > 0) await Promise.allSettled([...this.processing]);
    this.options.platform.telemetry.recordBacklog(this.endpointName, this.now(), 0);
  }

  /** One step of the endpoint's loop: expire, scale, start or stop instances, dispatch. Synchronous. */
  private pump(): void {
    if (this.closing !== undefined) return;
    try {
      const now = this.now();
      this.expireQueued(now);
      this.scale(now);
      this.reconcile(now);
      this.dispatch(now);
      this.options.platform.telemetry.recordBacklog(this.endpointName, now, this.backlog());
    } catch (error) {
      // A bug here must not crash the process from a timer: log it, the next tick tries again.
      this.options.platform.logger.error('Async endpoint loop failed', {
        endpointName: this.endpointName,
        error: describeError(error),
      });
    }
  }

  private backlog(): number {
    return this.queue.length + this.running.size;
  }

  /** `RequestTTLSeconds`: a request still queued past its TTL fails (SageMaker drops it). */
  private expireQueued(now: number): void {
    for (let index = 0; index < this.queue.length;) {
      const request = this.queue[index];
      if (request === undefined || now < request.receivedAt + request.requestTtlSeconds * 1000) {
        index += 1;
        continue;
      }
      this.queue.splice(index, 1);
      this.publish(request, {
        status: 'failed',
        failureReason: `Request expired: it waited ${seconds(now - request.receivedAt)} s in the queue of endpoint ${this.endpointName}, longer than its RequestTTLSeconds (${request.requestTtlSeconds} s); ${this.currentInstanceCount} instance(s) were in service`,
      });
    }
  }

  private scale(now: number): void {
    const policy = this.options.platform.scaling.policyOf(this.endpointName, this.variantName);
    const backlog = this.backlog();
    if (backlog > 0) this.backlogEmptySince = undefined;
    else this.backlogEmptySince ??= now;
    if (policy === undefined || this.failure !== undefined) return;
    // While an activity is in progress the endpoint is Updating: SageMaker takes no other change
    // then, so Application Auto Scaling's next decision waits for this one to complete.
    if (this.activity?.handle.inProgress === true) return;
    const decision = decideScaling(
      policy,
      {
        desired: this.desired,
        backlog,
        idleForMs: this.backlogEmptySince === undefined ? 0 : now - this.backlogEmptySince,
        sinceScaleOutMs: now - this.lastScaleOutAt,
      },
      this.options.platform.cooldownTimeScale,
    );
    if (decision === undefined) return;
    this.activity = {
      scalesOut: decision.to > this.desired,
      handle: this.options.platform.telemetry.startActivity(this.endpointName, this.variantName, {
        atEpochMs: now,
        toInstanceCount: decision.to,
        cause: decision.cause,
      }),
    };
    this.options.platform.logger.info('Async endpoint scaling', {
      endpointName: this.endpointName,
      from: this.desired,
      to: decision.to,
      cause: decision.cause,
    });
    this.desired = decision.to;
  }

  /** Starts or stops instances until the live ones match the desired count. */
  private reconcile(now: number): void {
    if (this.failure !== undefined) return;
    const live = this.instances.filter(
      (instance) => instance.state === 'starting' || instance.state === 'in-service',
    );
    for (let missing = this.desired - live.length; missing > 0; missing -= 1) this.launch();
    const surplus = live.length - this.desired;
    if (surplus > 0) {
      // Scale-in happens with no backlog, so instances are idle; starting ones go first.
      const idle = live
        .filter((instance) => instance.inFlight === 0)
        .sort((a, b) => Number(b.state === 'starting') - Number(a.state === 'starting'));
      for (const instance of idle.slice(0, surplus)) this.stopInstance(instance);
    }
    const settled =
      this.instances.every((instance) => instance.state === 'in-service') &&
      this.instances.length === this.desired;
    if (settled && this.activity?.handle.inProgress === true) {
      // Complete once the instances it asked for are in service (or gone, scaling in).
      this.activity.handle.succeed(now);
      if (this.activity.scalesOut) this.lastScaleOutAt = now;
    }
  }

  private launch(): void {
    this.instanceNumber += 1;
    const id = `${this.endpointName}/instance-${this.instanceNumber}`;
    let process: AsyncInstance;
    try {
      process = this.options.launchInstance(id);
    } catch (error) {
      this.launchFailed(id, describeError(error));
      return;
    }
    const instance: Instance = { id, process, state: 'starting', inFlight: 0 };
    this.instances.push(instance);
    this.options.platform.logger.info('Async endpoint instance starting', {
      endpointName: this.endpointName,
      instanceId: id,
      pid: process.pid,
    });
    process.ready.then(
      (url) => {
        if (instance.state !== 'starting') return;
        instance.url = url;
        instance.state = 'in-service';
        this.launchFailures = 0;
        this.options.platform.logger.info('Async endpoint instance in service', {
          endpointName: this.endpointName,
          instanceId: id,
          pid: process.pid,
          url,
        });
        this.checkStarted();
        this.pump();
      },
      (error: unknown) => {
        // An instance stopped on purpose while starting is not a failure.
        if (instance.state !== 'starting') return;
        this.remove(instance);
        void process.stop();
        this.launchFailed(id, error instanceof Error ? error.message : describeError(error));
      },
    );
    void process.exited.then((exit) => {
      const was = instance.state;
      // A start that fails is handled by `ready`'s rejection, which follows the exit.
      if (was === 'starting') return;
      this.remove(instance);
      if (was === 'in-service' && this.closing === undefined) {
        this.options.platform.logger.warn('Async endpoint instance exited; it will be replaced', {
          endpointName: this.endpointName,
          instanceId: id,
          exit,
        });
      }
      this.pump();
    });
  }

  private launchFailed(instanceId: string, reason: string): void {
    if (this.closing !== undefined) return;
    this.launchFailures += 1;
    this.activity?.handle.fail(this.now(), reason);
    this.options.platform.logger.warn('Async endpoint instance failed to start', {
      endpointName: this.endpointName,
      instanceId,
      reason,
      consecutiveFailures: this.launchFailures,
    });
    if (this.launchFailures >= this.options.platform.maxConsecutiveLaunchFailures) {
      this.fail(`${this.launchFailures} instance start(s) failed in a row; the last: ${reason}`);
      return;
    }
    this.pump();
  }

  private fail(reason: string): void {
    if (this.failure !== undefined) return;
    this.failure = reason;
    this.options.platform.logger.warn('Async endpoint failed', { endpointName: this.endpointName, reason });
    this.startWaiter?.reject(new Error(reason));
    this.startWaiter = undefined;
    this.options.onFailed?.(reason);
    void this.shutdown(`Endpoint ${this.endpointName} failed (${reason})`);
  }

  private stopInstance(instance: Instance): void {
    instance.state = 'stopping';
    this.options.platform.logger.info('Async endpoint instance stopping', {
      endpointName: this.endpointName,
      instanceId: instance.id,
      pid: instance.process.pid,
    });
    void instance.process.stop().then(() => {
      this.remove(instance);
      this.pump();
    });
  }

  private remove(instance: Instance): void {
    instance.state = 'gone';
    const index = this.instances.indexOf(instance);
    if (index >= 0) this.instances.splice(index, 1);
  }

  private checkStarted(): void {
    if (this.startWaiter === undefined) return;
    if (this.currentInstanceCount < this.options.initialInstanceCount) return;
    this.startWaiter.resolve();
    this.startWaiter = undefined;
  }

  /** Hands queued requests, oldest first, to the least busy instance that has a free slot. */
  private dispatch(now: number): void {
    while (this.queue.length > 0) {
      const instance = this.freeInstance();
      if (instance === undefined) return;
      const request = this.queue.shift();
      if (request === undefined) return;
      instance.inFlight += 1;
      this.options.platform.telemetry.recordQueueWait(this.endpointName, request.receivedAt, now);
      const controller = new AbortController();
      this.running.set(request, { controller, instance });
      const task = this.process(request, instance, controller);
      this.processing.add(task);
      void task.finally(() => this.processing.delete(task));
    }
  }

  private freeInstance(): Instance | undefined {
    let best: Instance | undefined;
    for (const instance of this.instances) {
      if (instance.state !== 'in-service' || instance.inFlight >= this.maxConcurrentInvocationsPerInstance)
        continue;
      if (best === undefined || instance.inFlight < best.inFlight) best = instance;
    }
    return best;
  }

  /** Runs one request to its notification; never rejects. */
  private async process(
    request: QueuedRequest,
    instance: Instance,
    controller: AbortController,
  ): Promise<void> {
    const timer = setTimeout(() => {
      controller.abort(new InvocationTimeout());
    }, request.invocationTimeoutSeconds * 1000);
    let outcome: NotificationOutcome;
    try {
      outcome = await this.invoke(request, instance, controller.signal);
    } catch (error) {
      outcome = {
        status: 'failed',
        failureReason: this.failureReasonOf(error, request, instance, controller.signal),
      };
    } finally {
      clearTimeout(timer);
    }
    instance.inFlight -= 1;
    this.running.delete(request);
    this.publish(request, outcome);
    this.pump();
  }

  private async invoke(
    request: QueuedRequest,
    instance: Instance,
    signal: AbortSignal,
  ): Promise<NotificationOutcome> {
    let input: Uint8Array;
    try {
      input = await this.options.store.getBytes(request.inputLocation);
    } catch (error) {
      return {
        status: 'failed',
        failureReason: `ClientError: could not read the input ${request.inputLocation}: ${describeError(error)}`,
      };
    }
    signal.throwIfAborted();
    if (instance.url === undefined) throw new Error(`instance ${instance.id} has no address`);
    const response = await fetch(`${instance.url}/invocations`, {
      method: 'POST',
      headers: { 'content-type': request.contentType },
      body: input,
      signal,
    });
    const body = new Uint8Array(await response.arrayBuffer());
    const contentType = response.headers.get('content-type') ?? 'application/octet-stream';
    if (response.ok) {
      await this.options.store.putBytes(request.outputLocation, body, contentType);
      return { status: 'completed', outputLocation: request.outputLocation, contentType };
    }
    const quoted = new TextDecoder().decode(body.subarray(0, MAX_QUOTED_ERROR_CHARS * 4)).trim();
    const kind = response.status >= 500 ? 'server' : 'client';
    const failureReason = `ClientError: Received ${kind} error (${response.status}) from model with message "${truncate(quoted === '' ? '(empty body)' : quoted)}"`;
    if (body.byteLength === 0) return { status: 'failed', failureReason };
    await this.options.store.putBytes(request.failureLocation, body, contentType);
    return { status: 'failed', failureReason, failureLocation: request.failureLocation, contentType };
  }

  private failureReasonOf(
    error: unknown,
    request: QueuedRequest,
    instance: Instance,
    signal: AbortSignal,
  ): string {
    const reason: unknown = signal.aborted ? signal.reason : undefined;
    if (reason instanceof InvocationTimeout) {
      return `ModelError: Your invocation timed out while waiting for a response from the model: no answer within InvocationTimeoutSeconds (${request.invocationTimeoutSeconds} s) on ${instance.id}`;
    }
    if (reason instanceof EndpointStopping) return `${reason.message} while the request was being processed`;
    const stopped =
      instance.state === 'gone' || instance.state === 'stopping' ? ' (the instance stopped)' : '';
    return `ModelError: no response from the model on ${instance.id}${stopped}: ${describeCause(error)}`;
  }

  private publish(request: QueuedRequest, outcome: NotificationOutcome): void {
    const { platform } = this.options;
    if (outcome.status === 'completed') this.counts.completed += 1;
    else {
      this.counts.failed += 1;
      platform.logger.warn('Async inference failed', {
        endpointName: this.endpointName,
        inferenceId: request.inferenceId,
        failureReason: outcome.failureReason,
      });
    }
    const topicArn = outcome.status === 'completed' ? this.config.successTopicArn : this.config.errorTopicArn;
    // "If no topic is provided, no notification is sent" (AsyncInferenceNotificationConfig reference).
    if (topicArn === '') return;
    const message = notificationMessage(
      { endpointName: this.endpointName, ...request, receivedAtEpochMs: request.receivedAt },
      outcome,
      { region: platform.region, finishedAtEpochMs: this.now() },
    );
    platform.notifications.publish(topicArn, message);
  }

  private now(): number {
    return this.options.platform.now();
  }
}

function under(prefix: string, name: string): string {
  return `${prefix}${prefix.endsWith('/') ? '' : '/'}${name}`;
}

function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}

function truncate(text: string): string {
  return text.length > MAX_QUOTED_ERROR_CHARS ? `${text.slice(0, MAX_QUOTED_ERROR_CHARS - 1)}…` : text;
}

/** `fetch failed` says little: its cause (ECONNREFUSED, a reset socket) says what happened. */
function describeCause(error: unknown): string {
  const cause = error instanceof Error && error.cause !== undefined ? `: ${describeError(error.cause)}` : '';
  return `${describeError(error)}${cause}`;
}
