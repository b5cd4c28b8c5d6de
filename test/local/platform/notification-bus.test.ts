import { describe, expect, it } from '@jest/globals';
import { LocalNotificationBus, type LocalNotification } from '../../../local/platform/notification-bus.js';
import { CapturingLogger } from '../../core/async/support/fakes.js';

const TOPIC = 'arn:aws:sns:local:000000000000:mso-async-success';
const OTHER_TOPIC = 'arn:aws:sns:local:000000000000:mso-async-errors';

describe('LocalNotificationBus', () => {
  it('delivers after publish returns, never inside it', async () => {
    // Prepare
    const bus = new LocalNotificationBus({ logger: new CapturingLogger() });
    const received: LocalNotification[] = [];
    bus.subscribe(TOPIC, (notification) => {
      received.push(notification);
    });

    // Act
    const messageId = bus.publish(TOPIC, '{"inferenceId":"a"}');
    const duringPublish = received.length;
    await bus.idle();

    // Assert
    expect(duringPublish).toBe(0);
    expect(received).toEqual([
      expect.objectContaining({ messageId, topicArn: TOPIC, message: '{"inferenceId":"a"}' }),
    ]);
  });

  it('delivers to every subscriber of the topic and to no other topic', async () => {
    // Prepare
    const bus = new LocalNotificationBus({ logger: new CapturingLogger() });
    const seen: string[] = [];
    bus.subscribe(TOPIC, () => {
      seen.push('first');
    });
    bus.subscribe(TOPIC, () => {
      seen.push('second');
    });
    bus.subscribe(OTHER_TOPIC, () => {
      seen.push('other topic');
    });

    // Act
    bus.publish(TOPIC, '{}');
    await bus.idle();

    // Assert
    expect(seen.sort()).toEqual(['first', 'second']);
  });

  it('delivers again when the subscriber throws, like a Lambda retrying an asynchronous invocation', async () => {
    // Prepare
    const bus = new LocalNotificationBus({ logger: new CapturingLogger(), maxAttempts: 3, retryDelayMs: 5 });
    let calls = 0;
    bus.subscribe(TOPIC, () => {
      calls += 1;
      if (calls < 3) throw new Error('DynamoDB unavailable');
    });

    // Act
    bus.publish(TOPIC, '{}');
    await bus.idle();

    // Assert
    expect(calls).toBe(3);
    expect(bus.undelivered()).toEqual([]);
  });

  it('fails when every attempt throws: logged as an error and kept as undelivered', async () => {
    // Prepare
    const logger = new CapturingLogger();
    const bus = new LocalNotificationBus({ logger, maxAttempts: 2, retryDelayMs: 5 });
    bus.subscribe(TOPIC, () => Promise.reject(new TypeError('handler bug')));

    // Act
    const messageId = bus.publish(TOPIC, '{}');
    await bus.idle();

    // Assert
    expect(bus.undelivered()).toEqual([
      {
        notification: expect.objectContaining({ messageId }),
        attempts: 2,
        lastError: 'TypeError: handler bug',
      },
    ]);
    expect(logger.messages()).toEqual([
      'Notification delivery failed; it will be delivered again',
      'Notification undelivered after every attempt',
    ]);
  });

  it('warns when a topic has no subscriber: the message is dropped, as SNS drops it', async () => {
    // Prepare
    const logger = new CapturingLogger();
    const bus = new LocalNotificationBus({ logger });

    // Act
    bus.publish(TOPIC, '{}');
    await bus.idle();

    // Assert
    expect(logger.messages()).toEqual(['Notification published to a topic without subscribers: dropped']);
  });

  it('stops delivering to a subscriber once it unsubscribed', async () => {
    // Prepare
    const bus = new LocalNotificationBus({ logger: new CapturingLogger() });
    let calls = 0;
    const unsubscribe = bus.subscribe(TOPIC, () => {
      calls += 1;
    });

    // Act
    unsubscribe();
    bus.publish(TOPIC, '{}');
    await bus.idle();

    // Assert
    expect(calls).toBe(0);
  });
});
