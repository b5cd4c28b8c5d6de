import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseNotification } from '../../../core/async/notification.js';
import type { AsyncInferenceSpec } from '../../../core/ports/index.js';
import { FileObjectStore } from '../../../local/platform/file-object-store.js';
import { LocalModelHost } from '../../../local/platform/local-model-host.js';
import { LocalAsyncPlatform } from '../../../local/platform/async-platform.js';
import { LocalAsyncInvoker } from '../../../local/async/local-async-invoker.js';
import type { LocalNotification } from '../../../local/platform/notification-bus.js';
import { examplePayload } from '../../../local/cli/example-objects.js';
import { silentLogger } from '../../support/memory-object-store.js';
import { exampleModelArchive, isAlive, waitFor } from './support/model-artifacts.js';

const MODEL_URI = 's3://local-artifacts/runs/r1/model/model.tar.gz';
const INPUT_URI = 's3://local-artifacts/runs/r1/inputs/0001.bin';
const BAD_INPUT_URI = 's3://local-artifacts/runs/r1/inputs/bad.bin';
const ASYNC: AsyncInferenceSpec = {
  s3OutputPath: 's3://local-artifacts/runs/r1/async/output/',
  s3FailurePath: 's3://local-artifacts/runs/r1/async/failures/',
  successTopicArn: 'arn:aws:sns:local:000000000000:success',
  errorTopicArn: 'arn:aws:sns:local:000000000000:errors',
  maxConcurrentInvocationsPerInstance: 2,
};

let workDir: string;
let store: FileObjectStore;
let host: LocalModelHost;
/** One endpoint for the file (a model server start is the slow part): served, then deleted. */
let endpointName: string;
const published: LocalNotification[] = [];

async function deployAsync(name: string): Promise<string> {
  await host.createModel({
    modelName: `mso-r1-m-${name}`,
    image: 'local',
    modelDataUrl: MODEL_URI,
    environment: {},
    tags: {},
  });
  await host.createEndpointConfig({
    endpointConfigName: `mso-r1-ec-${name}`,
    variant: {
      variantName: 'AllTraffic',
      modelName: `mso-r1-m-${name}`,
      instanceType: 'ml.c5.large',
      initialInstanceCount: 1,
    },
    asyncInference: ASYNC,
    tags: {},
  });
  const endpointName = `mso-r1-ep-${name}`;
  await host.createEndpoint({ endpointName, endpointConfigName: `mso-r1-ec-${name}`, tags: {} });
  await waitFor(
    `${endpointName} to leave Creating`,
    async () => (await host.describeEndpoint(endpointName))?.status !== 'Creating',
  );
  return endpointName;
}

function invoke(endpointName: string, inputLocation: string, inferenceId: string) {
  return new LocalAsyncInvoker(host).invokeEndpointAsync({
    endpointName,
    inputLocation,
    contentType: 'application/octet-stream',
    inferenceId,
    invocationTimeoutSeconds: 60,
    requestTtlSeconds: 3600,
  });
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'local-model-host-async-'));
  store = new FileObjectStore({ rootDir: workDir });
  await store.putBytes(MODEL_URI, await exampleModelArchive());
  await store.putBytes(INPUT_URI, examplePayload());
  await store.putBytes(BAD_INPUT_URI, new Uint8Array([1, 2, 3]));
  const asyncPlatform = new LocalAsyncPlatform({ logger: silentLogger });
  for (const topic of [ASYNC.successTopicArn, ASYNC.errorTopicArn]) {
    asyncPlatform.notifications.subscribe(topic, (notification) => {
      published.push(notification);
    });
  }
  host = new LocalModelHost({ store, logger: silentLogger, availableCpus: 2, asyncPlatform });
  endpointName = await deployAsync('serve');
});

afterAll(async () => {
  await host.shutdown();
  await rm(workDir, { recursive: true, force: true });
});

describe('LocalModelHost with an async endpoint config', () => {
  it('serves the example model asynchronously: InService, described as async, results and failures in the store', async () => {
    // Act
    const described = await host.describeEndpoint(endpointName);
    const ok = await invoke(endpointName, INPUT_URI, 'item-ok');
    const bad = await invoke(endpointName, BAD_INPUT_URI, 'item-bad');
    await waitFor('two notifications', () => published.length >= 2);

    // Assert
    expect(described).toEqual({
      endpointName,
      status: 'InService',
      instanceType: 'ml.c5.large',
      instanceCount: 1,
      asyncInference: ASYNC,
      variantName: 'AllTraffic',
      currentInstanceCount: 1,
    });
    const result = JSON.parse(new TextDecoder().decode(await store.getBytes(ok.outputLocation))) as {
      predictions: number[][];
    };
    expect(result.predictions).toHaveLength(1);
    expect(result.predictions[0]).toHaveLength(10);
    const outcomes = published.map((notification) => parseNotification(notification.message));
    expect(outcomes).toEqual(
      expect.arrayContaining([
        {
          kind: 'notification',
          notification: expect.objectContaining({
            inferenceId: 'item-ok',
            outcome: 'completed',
            outputLocation: ok.outputLocation,
          }),
        },
        {
          kind: 'notification',
          notification: expect.objectContaining({
            inferenceId: 'item-bad',
            outcome: 'failed',
            failureLocation: bad.failureLocation,
            failureReason: expect.stringMatching(
              /^ClientError: Received client error \(400\) from model with message/,
            ),
          }),
        },
      ]),
    );
    const errorBody = new TextDecoder().decode(await store.getBytes(bad.failureLocation ?? ''));
    expect(errorBody).toMatch(/"error"/);
  });

  it('deletes an async endpoint: its instance processes stop and its queued requests fail with the reason', async () => {
    // Prepare
    published.length = 0;
    const pid = host.launchedServers().find((server) => server.endpointName === endpointName)?.pid;
    const receipts = await Promise.all(
      Array.from({ length: 6 }, (_, index) => invoke(endpointName, INPUT_URI, `item-${index}`)),
    );

    // Act
    const deleted = await host.deleteEndpoint(endpointName);
    await host.asyncPlatform.notifications.idle();

    // Assert
    expect(deleted).toBe(true);
    expect(pid).toBeDefined();
    expect(isAlive(pid ?? 0)).toBe(false);
    expect(await host.describeEndpoint(endpointName)).toBeUndefined();
    // Deleted at once: two requests were at the instance, four queued; each got its notification.
    const reasons = published.map((notification) => {
      const parsed = parseNotification(notification.message);
      return parsed.kind === 'notification' && parsed.notification.outcome === 'failed'
        ? parsed.notification.failureReason
        : 'not a failure';
    });
    expect(reasons).toHaveLength(receipts.length);
    expect(reasons.filter((reason) => reason.endsWith('while the request was being processed'))).toHaveLength(
      2,
    );
    expect(reasons.filter((reason) => reason.endsWith('before the request left the queue'))).toHaveLength(4);
    for (const reason of reasons)
      expect(reason).toMatch(new RegExp(`^Endpoint ${endpointName} was deleted `));
  });

  it('fails to create an async endpoint config for a serverless variant', async () => {
    await expect(
      host.createEndpointConfig({
        endpointConfigName: 'mso-r1-ec-serverless',
        variant: {
          variantName: 'AllTraffic',
          modelName: 'm',
          serverless: { memorySizeMb: 2048, maxConcurrency: 1 },
        },
        asyncInference: ASYNC,
        tags: {},
      }),
    ).rejects.toMatchObject({ name: 'ValidationError' });
  });
});
