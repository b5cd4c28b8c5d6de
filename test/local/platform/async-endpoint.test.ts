import { afterEach, describe, expect, it } from '@jest/globals';
import { isAlive, waitFor } from './support/model-artifacts.js';
import {
  ERROR_TOPIC,
  EndpointHarness,
  type HarnessOptions,
  SUCCESS_TOPIC,
} from './support/endpoint-harness.js';
import type { StubAnswer } from './support/stub-instances.js';

let harness: EndpointHarness | undefined;

async function startHarness(options: HarnessOptions = {}): Promise<EndpointHarness> {
  harness = new EndpointHarness(options);
  await harness.endpoint.start();
  return harness;
}

afterEach(async () => {
  await harness?.endpoint.shutdown('test over');
  harness = undefined;
});

/** Most intervals open at once, from [start, end] pairs (an end at the same ms as a start closes first). */
function maxOverlap(intervals: readonly (readonly [number, number])[]): number {
  const events = intervals.flatMap(([start, end]) => [
    [start, 1],
    [end, -1],
  ]);
  events.sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0) || (a[1] ?? 0) - (b[1] ?? 0));
  let open = 0;
  let most = 0;
  for (const [, delta] of events) {
    open += delta ?? 0;
    most = Math.max(most, open);
  }
  return most;
}

describe('LocalAsyncEndpoint', () => {
  it('never has more than MaxConcurrentInvocationsPerInstance × instances requests at the model', async () => {
    // Prepare: 2 instances × 2 concurrent invocations, 12 requests of 150 ms
    const endpoint = await startHarness({ initialInstanceCount: 2, maxConcurrentInvocationsPerInstance: 2 });
    const receipts = Array.from({ length: 12 }, () => endpoint.invoke({ sleepMs: 150 }));

    // Act
    await endpoint.waitForNotifications(12);

    // Assert: measured at the model, from the times each stub received and answered
    const answers = receipts.map(
      (receipt) => JSON.parse(endpoint.text(receipt.outputLocation)) as StubAnswer,
    );
    const intervals = answers.map((answer): [number, number] => [answer.startedAt, answer.endedAt]);
    expect(maxOverlap(intervals)).toBe(4);
    for (const pid of new Set(answers.map((answer) => answer.pid))) {
      const own = answers.filter((answer) => answer.pid === pid);
      expect(
        maxOverlap(own.map((answer): [number, number] => [answer.startedAt, answer.endedAt])),
      ).toBeLessThanOrEqual(2);
    }
    expect(new Set(answers.map((answer) => answer.pid)).size).toBe(2);
  });

  it('processes one request at a time per instance when the config does not say (local default 1)', async () => {
    // Prepare
    const endpoint = await startHarness({ initialInstanceCount: 1 });
    const receipts = Array.from({ length: 4 }, () => endpoint.invoke({ sleepMs: 80 }));

    // Act
    await endpoint.waitForNotifications(4);

    // Assert
    const intervals = receipts.map((receipt) => {
      const answer = JSON.parse(endpoint.text(receipt.outputLocation)) as StubAnswer;
      return [answer.startedAt, answer.endedAt] as [number, number];
    });
    expect(endpoint.endpoint.maxConcurrentInvocationsPerInstance).toBe(1);
    expect(maxOverlap(intervals)).toBe(1);
  });

  it('writes the answer to <S3OutputPath><uuid>.out and publishes a Completed notification the notification Lambda parses', async () => {
    // Prepare
    const endpoint = await startHarness();

    // Act
    const receipt = endpoint.invoke({ echo: 'hello' });
    await endpoint.waitForNotifications(1);

    // Assert
    expect(receipt.outputLocation).toMatch(
      /^s3:\/\/local-artifacts\/runs\/r1\/async\/output\/[0-9a-f-]{36}\.out$/,
    );
    const answer = JSON.parse(endpoint.text(receipt.outputLocation)) as StubAnswer;
    expect(answer).toMatchObject({ echo: 'hello', contentType: 'application/json' });
    const { topicArn, notification, raw } = endpoint.notificationOf(receipt.inferenceId);
    expect(topicArn).toBe(SUCCESS_TOPIC);
    expect(notification).toMatchObject({
      outcome: 'completed',
      inferenceId: 'inference-1',
      endpointName: 'mso-r1-async',
      inputLocation: receipt.inputLocation,
      outputLocation: receipt.outputLocation,
    });
    expect(raw).toMatchObject({
      awsRegion: 'local',
      invocationStatus: 'Completed',
      requestParameters: {
        contentType: 'application/json',
        endpointName: 'mso-r1-async',
        inputLocation: receipt.inputLocation,
      },
      responseParameters: { contentType: 'application/json', outputLocation: receipt.outputLocation },
      eventVersion: '1.0',
      eventSource: 'aws:sagemaker',
      eventName: 'InferenceResult',
    });
    const times = raw as { receivedTime: string; eventTime: string };
    expect(Date.parse(times.eventTime)).toBeGreaterThanOrEqual(Date.parse(times.receivedTime));
  });

  it('turns a model error into a Failed notification with the error body at <S3FailurePath><uuid>-error.out', async () => {
    // Prepare
    const endpoint = await startHarness();

    // Act
    const receipt = endpoint.invoke({ status: 500, error: 'tensor shape mismatch' });
    await endpoint.waitForNotifications(1);

    // Assert
    expect(receipt.failureLocation).toMatch(
      /^s3:\/\/local-artifacts\/runs\/r1\/async\/failures\/[0-9a-f-]{36}-error\.out$/,
    );
    expect(JSON.parse(endpoint.text(receipt.failureLocation ?? ''))).toEqual({
      error: 'tensor shape mismatch',
    });
    expect(endpoint.store.objects.has(receipt.outputLocation)).toBe(false);
    const { topicArn, notification } = endpoint.notificationOf(receipt.inferenceId);
    expect(topicArn).toBe(ERROR_TOPIC);
    expect(notification).toMatchObject({
      outcome: 'failed',
      invocationStatus: 'Failed',
      failureLocation: receipt.failureLocation,
    });
    expect(notification.outcome === 'failed' && notification.failureReason).toMatch(
      /^ClientError: Received server error \(500\) from model with message ".*tensor shape mismatch.*"$/,
    );
  });

  it('fails a request whose RequestTTLSeconds passes while it waits in the queue', async () => {
    // Prepare: one slot, busy for 600 ms
    const endpoint = await startHarness({ initialInstanceCount: 1 });
    endpoint.invoke({ sleepMs: 600 });

    // Act
    const expiring = endpoint.invoke({}, { requestTtlSeconds: 0.2 });
    await endpoint.waitForNotifications(1);

    // Assert
    const { topicArn, notification } = endpoint.notificationOf(expiring.inferenceId);
    expect(topicArn).toBe(ERROR_TOPIC);
    expect(notification).not.toHaveProperty('failureLocation');
    expect(notification.outcome === 'failed' && notification.failureReason).toMatch(
      /^Request expired: it waited 0\.\d s in the queue of endpoint mso-r1-async, longer than its RequestTTLSeconds \(0\.2 s\)/,
    );
  });

  it('fails a request the model does not answer within InvocationTimeoutSeconds, and frees its slot', async () => {
    // Prepare
    const endpoint = await startHarness({ initialInstanceCount: 1 });

    // Act
    const slow = endpoint.invoke({ sleepMs: 5000 }, { invocationTimeoutSeconds: 0.3 });
    const next = endpoint.invoke({ echo: 'after the timeout' });
    await endpoint.waitForNotifications(2);

    // Assert
    const timedOut = endpoint.notificationOf(slow.inferenceId).notification;
    expect(timedOut.outcome === 'failed' && timedOut.failureReason).toMatch(
      /^ModelError: Your invocation timed out while waiting for a response from the model: no answer within InvocationTimeoutSeconds \(0\.3 s\)/,
    );
    expect(endpoint.notificationOf(next.inferenceId).notification.outcome).toBe('completed');
  });

  it('scales out from zero when requests wait and back in to zero after the cooldown, recording each activity', async () => {
    // Prepare: no instance; scale-in cooldown 2 s × 0.1 = 200 ms
    const since = Date.now();
    const endpoint = await startHarness({
      initialInstanceCount: 0,
      cooldownTimeScale: 0.1,
      policy: {
        minInstanceCount: 0,
        maxInstanceCount: 2,
        targetBacklogPerInstance: 1,
        scaleInCooldownSeconds: 2,
        scaleOutCooldownSeconds: 0,
      },
    });
    expect(endpoint.endpoint.currentInstanceCount).toBe(0);

    // Act
    for (let index = 0; index < 4; index += 1) endpoint.invoke({ sleepMs: 100 });
    await endpoint.waitForNotifications(4);
    await waitFor(
      'scale-in to zero',
      () =>
        endpoint.endpoint.snapshot().desiredInstanceCount === 0 &&
        endpoint.endpoint.instancePids.length === 0,
    );

    // Assert
    const activities = await endpoint.platform.observer.scalingActivities(
      'mso-r1-async',
      'AllTraffic',
      since,
    );
    expect(activities.map((activity) => [activity.toInstanceCount, activity.status])).toEqual([
      [1, 'Successful'],
      [2, 'Successful'],
      [0, 'Successful'],
    ]);
    // One at a time, as on SageMaker (the endpoint is Updating until an activity completes).
    expect(activities[0]?.endEpochMs).toBeLessThanOrEqual(activities[1]?.startEpochMs ?? 0);
    expect(activities[0]?.description).toMatch(
      /^Setting desired instance count to 1\. Cause: HasBacklogWithoutCapacity/,
    );
    expect(activities[1]?.description).toMatch(/ApproximateBacklogSizePerInstance \d+ above the target 1/);
    expect(activities[2]?.description).toMatch(
      /no backlog for 0\.\d+ s \(scale-in cooldown 2 s × time scale 0\.1\)/,
    );
    expect(endpoint.pids).toHaveLength(2);
    for (const pid of endpoint.pids) expect(isAlive(pid)).toBe(false);
    const metrics = await endpoint.platform.observer.backlogMetrics('mso-r1-async', since, Date.now());
    expect(metrics.maxBacklogSize).toBe(4);
    // The first request waited for a process to start: the local scale-out delay.
    expect(metrics.timeInBacklogMs?.maximum).toBeGreaterThan(0);
  });

  it('fails queued and running requests when deleted, and leaves no instance process', async () => {
    // Prepare
    const endpoint = await startHarness({ initialInstanceCount: 1 });
    const running = endpoint.invoke({ sleepMs: 5000 });
    const queued = endpoint.invoke({});
    await waitFor('the first request to run', () => endpoint.endpoint.snapshot().inFlight === 1);
    const [pid] = endpoint.pids;

    // Act
    await endpoint.endpoint.shutdown('Endpoint mso-r1-async was deleted');
    await endpoint.platform.notifications.idle();

    // Assert
    const reasonOf = (inferenceId: string): string | false => {
      const { notification } = endpoint.notificationOf(inferenceId);
      return notification.outcome === 'failed' && notification.failureReason;
    };
    expect(reasonOf(running.inferenceId)).toBe(
      'Endpoint mso-r1-async was deleted while the request was being processed',
    );
    expect(reasonOf(queued.inferenceId)).toBe(
      'Endpoint mso-r1-async was deleted before the request left the queue',
    );
    expect(pid).toBeDefined();
    expect(isAlive(pid ?? 0)).toBe(false);
    expect(() => endpoint.invoke({})).toThrow(/shutting down/);
  });

  it('replaces an instance that dies while in service', async () => {
    // Prepare
    const endpoint = await startHarness({ initialInstanceCount: 1 });
    const [first] = endpoint.pids;

    // Act
    process.kill(first ?? 0, 'SIGKILL');
    await waitFor(
      'a replacement in service',
      () => endpoint.pids.length === 2 && endpoint.endpoint.currentInstanceCount === 1,
    );
    const receipt = endpoint.invoke({});
    await endpoint.waitForNotifications(1);

    // Assert
    const answer = JSON.parse(endpoint.text(receipt.outputLocation)) as StubAnswer;
    expect(endpoint.pids).toHaveLength(2);
    expect(answer.pid).toBe(endpoint.pids[1]);
  });

  it('fails when its instances cannot start, with the reason', async () => {
    // Prepare
    harness = new EndpointHarness({ initialInstanceCount: 1, stub: { failStart: true } });

    // Act
    const started = harness.endpoint.start();

    // Assert
    await expect(started).rejects.toThrow(
      /^3 instance start\(s\) failed in a row; the last: stub instance \(pid \d+\) exited with code 3 before it was ready$/,
    );
    expect(harness.failures).toHaveLength(1);
  });
});
