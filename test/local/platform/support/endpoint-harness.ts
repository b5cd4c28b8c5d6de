import { type InferenceNotification, parseNotification } from '../../../../core/async/notification.js';
import type { AsyncInferenceSpec, AsyncScalingPolicy } from '../../../../core/ports/index.js';
import { LocalAsyncEndpoint } from '../../../../local/platform/async-endpoint.js';
import { LocalAsyncPlatform } from '../../../../local/platform/async-platform.js';
import type { LocalNotification } from '../../../../local/platform/notification-bus.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';
import { waitFor } from './model-artifacts.js';
import { type StubLauncherOptions, stubCommand, stubLauncher } from './stub-instances.js';

export const SUCCESS_TOPIC = 'arn:aws:sns:local:000000000000:mso-async-success';
export const ERROR_TOPIC = 'arn:aws:sns:local:000000000000:mso-async-errors';

export const ASYNC_CONFIG: AsyncInferenceSpec = {
  s3OutputPath: 's3://local-artifacts/runs/r1/async/output/',
  s3FailurePath: 's3://local-artifacts/runs/r1/async/failures/',
  successTopicArn: SUCCESS_TOPIC,
  errorTopicArn: ERROR_TOPIC,
};

export interface HarnessOptions {
  readonly initialInstanceCount?: number;
  readonly maxConcurrentInvocationsPerInstance?: number;
  readonly policy?: AsyncScalingPolicy;
  readonly cooldownTimeScale?: number;
  readonly stub?: StubLauncherOptions;
}

/** One local async endpoint over stub instances, with every notification it published. */
export class EndpointHarness {
  readonly store = new MemoryObjectStore();
  readonly platform: LocalAsyncPlatform;
  readonly endpoint: LocalAsyncEndpoint;
  readonly pids: number[];
  readonly published: LocalNotification[] = [];
  readonly failures: string[] = [];
  private inputs = 0;

  constructor(options: HarnessOptions = {}) {
    this.platform = new LocalAsyncPlatform({
      logger: silentLogger,
      tickMs: 20,
      cooldownTimeScale: options.cooldownTimeScale ?? 0.01,
    });
    const launcher = stubLauncher(options.stub);
    this.pids = launcher.pids;
    for (const topic of [SUCCESS_TOPIC, ERROR_TOPIC]) {
      this.platform.notifications.subscribe(topic, (notification) => {
        this.published.push(notification);
      });
    }
    if (options.policy !== undefined) {
      void this.platform.scaling.configureAsyncScaling('mso-r1-async', 'AllTraffic', options.policy);
    }
    this.endpoint = new LocalAsyncEndpoint({
      endpointName: 'mso-r1-async',
      variantName: 'AllTraffic',
      config: {
        ...ASYNC_CONFIG,
        ...(options.maxConcurrentInvocationsPerInstance === undefined
          ? {}
          : { maxConcurrentInvocationsPerInstance: options.maxConcurrentInvocationsPerInstance }),
      },
      initialInstanceCount: options.initialInstanceCount ?? 1,
      launchInstance: launcher.launch,
      store: this.store,
      platform: this.platform,
      onFailed: (reason) => {
        this.failures.push(reason);
      },
    });
  }

  /** Writes a stub command as an input and queues it. */
  invoke(
    command: Parameters<typeof stubCommand>[0],
    request: { invocationTimeoutSeconds?: number; requestTtlSeconds?: number } = {},
  ): ReturnType<LocalAsyncEndpoint['enqueue']> & { inputLocation: string } {
    this.inputs += 1;
    const inputLocation = `s3://local-artifacts/inputs/${String(this.inputs).padStart(4, '0')}.json`;
    this.store.seed(inputLocation, stubCommand(command));
    const receipt = this.endpoint.enqueue({
      inferenceId: `inference-${this.inputs}`,
      inputLocation,
      contentType: 'application/json',
      invocationTimeoutSeconds: request.invocationTimeoutSeconds ?? 30,
      requestTtlSeconds: request.requestTtlSeconds ?? 60,
    });
    return { ...receipt, inputLocation };
  }

  async waitForNotifications(count: number, timeoutMs = 10_000): Promise<LocalNotification[]> {
    await waitFor(
      `${count} notification(s), got ${this.published.length}`,
      () => this.published.length >= count,
      timeoutMs,
    );
    return this.published;
  }

  /** The parsed notification of an inference id (fails the test when it is not one). */
  notificationOf(inferenceId: string): {
    topicArn: string;
    notification: InferenceNotification;
    raw: unknown;
  } {
    for (const published of this.published) {
      const parsed = parseNotification(published.message);
      if (parsed.kind === 'notification' && parsed.notification.inferenceId === inferenceId) {
        return {
          topicArn: published.topicArn,
          notification: parsed.notification,
          raw: JSON.parse(published.message),
        };
      }
    }
    throw new Error(`No readable notification for ${inferenceId}`);
  }

  text(uri: string): string {
    const object = this.store.objects.get(uri);
    if (object === undefined) throw new Error(`Nothing written at ${uri}`);
    return new TextDecoder().decode(object.body);
  }
}
