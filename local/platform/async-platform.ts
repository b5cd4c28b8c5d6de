/**
 * The services local async endpoints share, as SageMaker's async endpoints share SNS, Application
 * Auto Scaling and CloudWatch: the notification bus, the scaling registry, the endpoints' records
 * and the observer that reads them. The local model host takes one (or makes its own); the local
 * environment subscribes the notification handler to the bus and hands the registry and observer
 * to the workflow's steps.
 */
import type { Logger } from '../../core/ports/index.js';
import { LOCAL_REGION } from '../runner/index.js';
import { LocalNotificationBus, type LocalNotificationBusOptions } from './notification-bus.js';
import { LocalScalingRegistry } from './scaling.js';
import { AsyncEndpointTelemetry, LocalAsyncEndpointObserver } from './telemetry.js';

export interface LocalAsyncPlatformOptions {
  readonly logger: Logger;
  /** `awsRegion` of the notifications. @default 'local' (the runner's stand-in region) */
  readonly region?: string;
  /**
   * Scaling cooldowns last `cooldownSeconds × cooldownTimeScale`. @default 0.01 (600 s → 6 s):
   * a local run shows scale-in without waiting minutes. Process starts are never scaled.
   */
  readonly cooldownTimeScale?: number;
  /**
   * Requests one instance processes at once when the endpoint config does not say. SageMaker then
   * picks a value itself (AsyncInferenceClientConfig reference); locally it is 1. @default 1
   */
  readonly defaultMaxConcurrentInvocationsPerInstance?: number;
  /** How often each endpoint re-evaluates its queue and scaling without an event. @default 100 ms */
  readonly tickMs?: number;
  /** Consecutive failed instance starts after which an endpoint fails. @default 3 */
  readonly maxConsecutiveLaunchFailures?: number;
  /** Retries of a notification delivery (see `LocalNotificationBus`). */
  readonly notifications?: Omit<LocalNotificationBusOptions, 'logger' | 'now'>;
  /** @default Date.now */
  readonly now?: () => number;
}

const DEFAULT_COOLDOWN_TIME_SCALE = 0.01;
const DEFAULT_TICK_MS = 100;
const DEFAULT_MAX_CONSECUTIVE_LAUNCH_FAILURES = 3;

export class LocalAsyncPlatform {
  readonly notifications: LocalNotificationBus;
  readonly scaling = new LocalScalingRegistry();
  readonly telemetry = new AsyncEndpointTelemetry();
  readonly observer: LocalAsyncEndpointObserver;
  readonly logger: Logger;
  readonly region: string;
  readonly cooldownTimeScale: number;
  readonly defaultMaxConcurrentInvocationsPerInstance: number;
  readonly tickMs: number;
  readonly maxConsecutiveLaunchFailures: number;
  readonly now: () => number;

  constructor(options: LocalAsyncPlatformOptions) {
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
    this.notifications = new LocalNotificationBus({
      logger: options.logger,
      now: this.now,
      ...options.notifications,
    });
    this.observer = new LocalAsyncEndpointObserver(this.telemetry);
    this.region = options.region ?? LOCAL_REGION;
    this.cooldownTimeScale = positive(
      options.cooldownTimeScale ?? DEFAULT_COOLDOWN_TIME_SCALE,
      'cooldownTimeScale',
      true,
    );
    this.defaultMaxConcurrentInvocationsPerInstance = positive(
      options.defaultMaxConcurrentInvocationsPerInstance ?? 1,
      'defaultMaxConcurrentInvocationsPerInstance',
    );
    this.tickMs = positive(options.tickMs ?? DEFAULT_TICK_MS, 'tickMs');
    this.maxConsecutiveLaunchFailures = positive(
      options.maxConsecutiveLaunchFailures ?? DEFAULT_MAX_CONSECUTIVE_LAUNCH_FAILURES,
      'maxConsecutiveLaunchFailures',
    );
  }
}

function positive(value: number, name: string, allowZero = false): number {
  if (Number.isFinite(value) && (allowZero ? value >= 0 : value > 0)) return value;
  throw new RangeError(
    `LocalAsyncPlatform ${name}: got ${value}, expected a finite number ${allowZero ? 'of at least 0' : 'above 0'}`,
  );
}
