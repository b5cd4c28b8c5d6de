/**
 * The local stand-in for the SNS topics an async endpoint publishes to, and for the Lambda
 * subscribed to them. Each publication is delivered to every subscriber of its topic:
 *
 * - asynchronously (never inside `publish`): the endpoint that publishes is never re-entered by
 *   what the subscriber does;
 * - at least once, as Lambda does for an asynchronous invocation: a subscriber that throws is
 *   called again, up to `maxAttempts` in all (Lambda: the first try and two retries, "Asynchronous
 *   invocation", Lambda developer guide), with a pause that grows with each attempt (Lambda waits
 *   1 then 2 minutes; locally `retryDelayMs` then twice that). A delivery that still fails is
 *   logged as an error and kept in `undelivered()` (Lambda's on-failure destination).
 */
import { randomUUID } from 'node:crypto';
import { describeError } from '../../core/contracts/index.js';
import type { Logger } from '../../core/ports/index.js';

export interface LocalNotification {
  /** SNS `MessageId`. */
  readonly messageId: string;
  readonly topicArn: string;
  /** SNS `Message`: SageMaker's JSON document. */
  readonly message: string;
  readonly publishedAtEpochMs: number;
}

export type NotificationSubscriber = (notification: LocalNotification) => Promise<void> | void;

export interface UndeliveredNotification {
  readonly notification: LocalNotification;
  readonly attempts: number;
  readonly lastError: string;
}

export interface LocalNotificationBusOptions {
  readonly logger: Logger;
  /** Deliveries per subscriber, the first included. @default 3 (Lambda's asynchronous invocation) */
  readonly maxAttempts?: number;
  /** Pause before the second attempt; the n-th retry waits n times this. @default 200 ms */
  readonly retryDelayMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

const DEFAULT_MAX_ATTEMPTS = 3;
const DEFAULT_RETRY_DELAY_MS = 200;

export class LocalNotificationBus {
  private readonly subscribers = new Map<string, Set<NotificationSubscriber>>();
  private readonly pending = new Set<Promise<void>>();
  private readonly failed: UndeliveredNotification[] = [];
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;
  private readonly now: () => number;

  constructor(private readonly options: LocalNotificationBusOptions) {
    this.maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
    this.retryDelayMs = Math.max(0, options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS);
    this.now = options.now ?? Date.now;
  }

  /** Subscribes to one topic; returns the unsubscribe function. */
  subscribe(topicArn: string, subscriber: NotificationSubscriber): () => void {
    const set = this.subscribers.get(topicArn) ?? new Set<NotificationSubscriber>();
    set.add(subscriber);
    this.subscribers.set(topicArn, set);
    return () => {
      set.delete(subscriber);
    };
  }

  /** Queues the message for every subscriber of the topic and returns its `MessageId` at once. */
  publish(topicArn: string, message: string): string {
    const notification: LocalNotification = {
      messageId: randomUUID(),
      topicArn,
      message,
      publishedAtEpochMs: this.now(),
    };
    const subscribers = [...(this.subscribers.get(topicArn) ?? [])];
    if (subscribers.length === 0) {
      // SNS drops a message nobody subscribed to; say so, since a result is lost with it.
      this.options.logger.warn('Notification published to a topic without subscribers: dropped', {
        topicArn,
        messageId: notification.messageId,
      });
    }
    for (const subscriber of subscribers) this.track(this.deliver(notification, subscriber));
    return notification.messageId;
  }

  /** Resolves once every delivery under way (retries included) has ended. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Deliveries that failed every attempt, oldest first. */
  undelivered(): readonly UndeliveredNotification[] {
    return [...this.failed];
  }

  private track(delivery: Promise<void>): void {
    this.pending.add(delivery);
    void delivery.finally(() => this.pending.delete(delivery));
  }

  private async deliver(notification: LocalNotification, subscriber: NotificationSubscriber): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      // The first attempt too waits for a later turn of the event loop: never inside `publish`.
      await pause(attempt === 1 ? 0 : this.retryDelayMs * (attempt - 1));
      try {
        await subscriber(notification);
        return;
      } catch (error) {
        const where = {
          topicArn: notification.topicArn,
          messageId: notification.messageId,
          attempt,
          maxAttempts: this.maxAttempts,
          error: describeError(error),
        };
        if (attempt < this.maxAttempts) {
          this.options.logger.warn('Notification delivery failed; it will be delivered again', where);
          continue;
        }
        this.options.logger.error('Notification undelivered after every attempt', where);
        this.failed.push({ notification, attempts: attempt, lastError: describeError(error) });
        return;
      }
    }
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
