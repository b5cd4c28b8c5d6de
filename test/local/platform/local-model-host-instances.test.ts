/**
 * The local model host with real-time variants of several instances: one process per instance
 * behind a local front. Instances are stub processes (`stubLauncher`): the front, the counts and
 * the life cycle are the host's, the model server is tested on its own.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { QuotaExceededError } from '../../../core/contracts/errors.js';
import { FileObjectStore } from '../../../local/platform/file-object-store.js';
import { LocalModelHost } from '../../../local/platform/local-model-host.js';
import { silentLogger } from '../../support/memory-object-store.js';
import { exampleModelArchive, isAlive, waitFor } from './support/model-artifacts.js';
import { stubCommand, stubLauncher, type StubAnswer, type StubLauncher } from './support/stub-instances.js';
import type { RoutingStrategy } from '../../../core/contracts/routing-strategy.js';

const MODEL_URI = 's3://local-artifacts/runs/r1/model/model.tar.gz';

let workDir: string;
let store: FileObjectStore;
let host: LocalModelHost;
let stubs: StubLauncher;

beforeEach(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'local-model-host-instances-'));
  store = new FileObjectStore({ rootDir: workDir });
  await store.putBytes(MODEL_URI, await exampleModelArchive());
  stubs = stubLauncher();
  host = new LocalModelHost({
    store,
    logger: silentLogger,
    availableCpus: 2,
    instanceLauncher: () => stubs.launch,
  });
});

afterEach(async () => {
  await host.shutdown();
  await rm(workDir, { recursive: true, force: true });
});

async function deploy(
  name: string,
  instanceCount: number,
  routingStrategy?: RoutingStrategy,
): Promise<string> {
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
      initialInstanceCount: instanceCount,
      ...(routingStrategy === undefined ? {} : { routingStrategy }),
    },
    tags: {},
  });
  const endpointName = `mso-r1-ep-${name}`;
  await host.createEndpoint({ endpointName, endpointConfigName: `mso-r1-ec-${name}`, tags: {} });
  return endpointName;
}

async function inService(endpointName: string): Promise<void> {
  await waitFor(
    `${endpointName} to leave Creating`,
    async () => (await host.describeEndpoint(endpointName))?.status !== 'Creating',
  );
}

describe('LocalModelHost with several instances', () => {
  it('starts one process per instance, each with one instance’s CPU budget, and says N in DescribeEndpoint', async () => {
    // Act
    const endpointName = await deploy('two', 2);
    await inService(endpointName);

    // Assert
    expect(await host.describeEndpoint(endpointName)).toEqual({
      endpointName,
      status: 'InService',
      instanceType: 'ml.c5.large',
      instanceCount: 2,
      variantName: 'AllTraffic',
      currentInstanceCount: 2,
    });
    expect(stubs.pids.filter(isAlive)).toEqual(stubs.pids);
    expect(
      host.launchedServers().map(({ pid, cpu }) => [pid, cpu.requestedVcpus, cpu.intraOpThreads]),
    ).toEqual([
      [stubs.pids[0], 2, 2],
      [stubs.pids[1], 2, 2],
    ]);
  });

  it('serves invocations through the front and counts them per instance', async () => {
    // Prepare
    const endpointName = await deploy('count', 2);
    await inService(endpointName);
    const url = host.endpointUrl(endpointName) ?? '';

    // Act
    const answers: StubAnswer[] = [];
    for (let i = 0; i < 20; i += 1) {
      const response = await fetch(`${url}/invocations`, { method: 'POST', body: stubCommand({}) });
      answers.push((await response.json()) as StubAnswer);
    }

    // Assert
    expect(
      host.invocationsPerInstance(endpointName)?.map(({ pid, invocations }) => [pid, invocations]),
    ).toEqual(stubs.pids.map((pid) => [pid, answers.filter((answer) => answer.pid === pid).length]));
  });

  it('routes as the variant’s LEAST_OUTSTANDING_REQUESTS says: a request goes to the idle instance while the other is busy', async () => {
    // Prepare
    const endpointName = await deploy('lor', 2, 'LEAST_OUTSTANDING_REQUESTS');
    await inService(endpointName);
    const url = host.endpointUrl(endpointName) ?? '';
    const invoke = async (command: Parameters<typeof stubCommand>[0]): Promise<StubAnswer> =>
      (await (
        await fetch(`${url}/invocations`, { method: 'POST', body: stubCommand(command) })
      ).json()) as StubAnswer;

    // Act: a slow request holds one instance; five quick ones follow while it runs.
    const slow = invoke({ sleepMs: 1500 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const quick: StubAnswer[] = [];
    for (let i = 0; i < 5; i += 1) quick.push(await invoke({}));
    const busy = await slow;

    // Assert: RANDOM would send each quick one to the busy instance half the time.
    const idle = stubs.pids.find((pid) => pid !== busy.pid);
    expect(quick.map((answer) => answer.pid)).toEqual([idle, idle, idle, idle, idle]);
  });

  it('stops every instance process when the endpoint is deleted', async () => {
    // Prepare
    const endpointName = await deploy('delete', 3);
    await inService(endpointName);

    // Act
    const deleted = await host.deleteEndpoint(endpointName);

    // Assert
    expect(deleted).toBe(true);
    expect(stubs.pids).toHaveLength(3);
    expect(stubs.pids.filter(isAlive)).toEqual([]);
    expect((await host.listRunResources('r1', 'mso-r1-')).endpoints).toEqual([]);
  });

  it('keeps the per-instance invocation counts after the endpoint is deleted, as CloudWatch keeps metrics', async () => {
    // Prepare
    const endpointName = await deploy('kept', 2);
    await inService(endpointName);
    await fetch(`${host.endpointUrl(endpointName) ?? ''}/invocations`, {
      method: 'POST',
      body: stubCommand({}),
    });

    // Act
    await host.deleteEndpoint(endpointName);

    // Assert
    const counts = host.invocationsPerInstance(endpointName) ?? [];
    expect(counts.map(({ pid }) => pid)).toEqual(stubs.pids);
    expect(counts.reduce((sum, { invocations }) => sum + invocations, 0)).toBe(1);
  });

  it('stops every instance process of an interrupted run (Ctrl-C) and marks the endpoint Failed', async () => {
    // Prepare
    const endpointName = await deploy('abort', 2);
    await inService(endpointName);

    // Act
    await host.stopAllServers('the run was interrupted');

    // Assert
    expect(stubs.pids.filter(isAlive)).toEqual([]);
    expect(await host.describeEndpoint(endpointName)).toMatchObject({
      status: 'Failed',
      failureReason: 'the run was interrupted',
    });
  });

  it('stops every instance process on shutdown, including an endpoint still starting', async () => {
    // Prepare
    await deploy('started', 2);
    await inService('mso-r1-ep-started');
    await deploy('starting', 2);

    // Act
    await host.shutdown();

    // Assert
    expect(stubs.pids.length).toBeGreaterThanOrEqual(2);
    expect(stubs.pids.filter(isAlive)).toEqual([]);
  });

  it('starts and stops processes when the desired instance count changes', async () => {
    // Prepare
    const endpointName = await deploy('scale', 2);
    await inService(endpointName);

    // Act
    await host.updateDesiredInstanceCount(endpointName, 3);
    const grown = (await host.describeEndpoint(endpointName))?.currentInstanceCount;
    await host.updateDesiredInstanceCount(endpointName, 1);
    const described = await host.describeEndpoint(endpointName);

    // Assert
    expect(grown).toBe(3);
    expect(described).toMatchObject({ status: 'InService', currentInstanceCount: 1 });
    expect(stubs.pids.filter(isAlive)).toEqual([stubs.pids[0]]);
  });

  it('refuses a desired instance count change on an endpoint that does not exist', async () => {
    // Act
    const change = host.updateDesiredInstanceCount('mso-r1-ep-missing', 2);

    // Assert
    await expect(change).rejects.toThrow(
      'UpdateEndpointWeightsAndCapacities mso-r1-ep-missing: got an endpoint that is missing, expected a real-time endpoint of at least two instances InService',
    );
  });

  it('fails with QuotaExceededError when the instances together need more threads than the local quota, advising on the endpoint, not on maxConcurrentCandidates', async () => {
    // Act: 5 × ml.c5.large = 10 threads; the quota is 2 cores × 4 = 8.
    const creating = deploy('big', 5);

    // Assert
    await expect(creating).rejects.toThrow(QuotaExceededError);
    await expect(creating).rejects.toThrow(
      'Local quota: endpoint mso-r1-ep-big needs 10 threads but 0 endpoint(s) already use 0 of the 8 this machine allows (2 cores × 4); the endpoint alone needs more than the 8 threads this machine allows (10 = 1 worker(s) × 2 thread(s) × 5 instance(s)), whatever runs beside it: give it fewer instances, fewer workers (SAGEMAKER_MODEL_SERVER_WORKERS) or fewer threads (MODEL_SERVER_INTRA_OP_THREADS, OMP_NUM_THREADS), or run it on a machine with more cores',
    );
    expect(stubs.pids).toEqual([]);
  });
});
