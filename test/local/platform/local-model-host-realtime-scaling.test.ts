/**
 * The local model host as Application Auto Scaling for a real-time endpoint: the report's
 * RegisterScalableTarget/PutScalingPolicy requests attach a target tracking policy to the
 * endpoint's front; deregistering or deleting the endpoint leaves nothing running. Instances are
 * stub processes (`stubLauncher`); timers are real and short (the autoscaler ticks on its own).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { scalingPolicyFor } from '../../../core/serving/scaling-policy.js';
import { FileObjectStore } from '../../../local/platform/file-object-store.js';
import {
  LocalModelHost,
  type LocalRealtimeScalingOptions,
} from '../../../local/platform/local-model-host.js';
import { silentLogger } from '../../support/memory-object-store.js';
import { exampleModelArchive, isAlive, waitFor } from './support/model-artifacts.js';
import { stubCommand, stubLauncher, type StubLauncher } from './support/stub-instances.js';
import type { RealtimeScalingRequests } from '../../../core/contracts/scaling-requests.js';

const MODEL_URI = 's3://local-artifacts/runs/r1/model/model.tar.gz';

/**
 * Target 1 TPS × 60 × 1 = 60 invocations per instance per minute, min 2, max 3 (peak 3 TPS):
 * a few requests a second put the metric far above the target.
 */
function policyFor(endpointName: string): RealtimeScalingRequests {
  return scalingPolicyFor({
    endpointName,
    variantName: 'AllTraffic',
    perInstanceTps: 1,
    headroom: 1,
    minInstances: 2,
    peakTps: 3,
    scaleInCooldownSeconds: 300,
    scaleOutCooldownSeconds: 60,
  });
}

/** Short enough for a test, long enough to be seen: a scale-in would take 300 s × 0.01 = 3 s. */
const FAST: LocalRealtimeScalingOptions = {
  instanceStartDelayMs: 400,
  cooldownTimeScale: 0.01,
  metricWindowMs: 1000,
  tickIntervalMs: 50,
};

let workDir: string;
let store: FileObjectStore;
let host: LocalModelHost;
let stubs: StubLauncher;

function createHost(realtimeScaling: LocalRealtimeScalingOptions): LocalModelHost {
  stubs = stubLauncher();
  host = new LocalModelHost({
    store,
    logger: silentLogger,
    availableCpus: 2,
    instanceLauncher: () => stubs.launch,
    realtimeScaling,
  });
  return host;
}

beforeEach(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'local-model-host-scaling-'));
  store = new FileObjectStore({ rootDir: workDir });
  await store.putBytes(MODEL_URI, await exampleModelArchive());
});

afterEach(async () => {
  await host.shutdown();
  await rm(workDir, { recursive: true, force: true });
});

/** A real-time endpoint of two instances, InService. */
async function deployTwo(name: string): Promise<string> {
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
      initialInstanceCount: 2,
    },
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

/** `count` requests one after the other through the front. */
async function invoke(endpointName: string, count: number): Promise<void> {
  const url = host.endpointUrl(endpointName) ?? '';
  for (let i = 0; i < count; i += 1) {
    const response = await fetch(`${url}/invocations`, { method: 'POST', body: stubCommand({}) });
    await response.arrayBuffer();
  }
}

async function currentInstanceCount(endpointName: string): Promise<number | undefined> {
  return (await host.describeEndpoint(endpointName))?.currentInstanceCount;
}

describe('LocalModelHost.applyRealtimeScaling', () => {
  it('scales a real-time endpoint out once invocations pass the target, the new instance in service after the start delay', async () => {
    // Prepare
    createHost(FAST);
    const endpointName = await deployTwo('out');
    const appliedAt = Date.now();
    await host.applyRealtimeScaling(policyFor(endpointName));

    // Act
    await invoke(endpointName, 40);
    await waitFor(
      'the third instance in service',
      async () => (await currentInstanceCount(endpointName)) === 3,
    );

    // Assert
    const series = await host.instanceSeries(endpointName, appliedAt, Date.now());
    expect(series.map(({ inService, starting }) => ({ inService, starting }))).toEqual([
      { inService: 2, starting: 0 },
      { inService: 2, starting: 1 },
      { inService: 3, starting: 0 },
    ]);
    const [, launched, inService] = series;
    expect((inService?.atEpochMs ?? 0) - (launched?.atEpochMs ?? 0)).toBeGreaterThanOrEqual(400);
    expect(
      host.realtimeScalingActivities(endpointName).map(({ fromInstanceCount, toInstanceCount, failure }) => ({
        fromInstanceCount,
        toInstanceCount,
        failure,
      })),
    ).toEqual([{ fromInstanceCount: 2, toInstanceCount: 3, failure: undefined }]);
  });

  it('keeps traffic on the instances in service while a scale-out is starting', async () => {
    // Prepare
    createHost({ ...FAST, instanceStartDelayMs: 60_000 });
    const endpointName = await deployTwo('starting');
    await host.applyRealtimeScaling(policyFor(endpointName));

    // Act
    await invoke(endpointName, 40);
    await waitFor('a third instance launched', () => stubs.pids.length === 3);

    // Assert
    expect(await host.describeEndpoint(endpointName)).toMatchObject({
      status: 'Updating',
      currentInstanceCount: 2,
    });
  });

  it('refuses an endpoint that does not exist, naming the ResourceId', async () => {
    // Prepare
    createHost(FAST);

    // Act
    const applying = host.applyRealtimeScaling(policyFor('mso-r1-ep-missing'));

    // Assert
    await expect(applying).rejects.toThrow(
      'Local autoscaling: registerScalableTarget.ResourceId names endpoint mso-r1-ep-missing, which does not exist; expected an endpoint created with CreateEndpoint first',
    );
  });

  it('refuses a variant the endpoint does not have, naming the ResourceId', async () => {
    // Prepare
    createHost(FAST);
    const endpointName = await deployTwo('variant');
    const requests = scalingPolicyFor({
      endpointName,
      variantName: 'Blue',
      perInstanceTps: 1,
      headroom: 1,
      minInstances: 2,
      peakTps: 3,
      scaleInCooldownSeconds: 300,
      scaleOutCooldownSeconds: 60,
    });

    // Act
    const applying = host.applyRealtimeScaling(requests);

    // Assert
    await expect(applying).rejects.toThrow(
      `Local autoscaling: registerScalableTarget.ResourceId names variant Blue, expected AllTraffic, the variant of endpoint ${endpointName}`,
    );
  });

  it('refuses requests Application Auto Scaling would refuse before looking at the endpoint', async () => {
    // Prepare
    createHost(FAST);
    const endpointName = await deployTwo('invalid');
    const valid = policyFor(endpointName);
    const requests: RealtimeScalingRequests = {
      ...valid,
      registerScalableTarget: { ...valid.registerScalableTarget, MinCapacity: 4 },
    };

    // Act
    const applying = host.applyRealtimeScaling(requests);

    // Assert
    await expect(applying).rejects.toThrow(
      `Local autoscaling of endpoint/${endpointName}/variant/AllTraffic: registerScalableTarget.MaxCapacity: got 3, expected an integer of at least registerScalableTarget.MinCapacity (4).`,
    );
  });
});

describe('LocalModelHost: a real-time policy removed', () => {
  it('deregistering the variant detaches the policy: load no longer scales the endpoint', async () => {
    // Prepare
    createHost(FAST);
    const endpointName = await deployTwo('detached');
    await host.applyRealtimeScaling(policyFor(endpointName));

    // Act
    const deregistered = await host.deregisterEndpointVariant(endpointName, 'AllTraffic');
    await invoke(endpointName, 40);
    // Several ticks' worth and more than the metric window: an attached policy would have scaled.
    await new Promise((resolve) => setTimeout(resolve, 1500));

    // Assert
    expect(deregistered).toBe(true);
    expect(await host.describeEndpoint(endpointName)).toMatchObject({
      status: 'InService',
      currentInstanceCount: 2,
    });
    expect(stubs.pids).toHaveLength(2);
    expect(await host.deregisterEndpointVariant(endpointName, 'AllTraffic')).toBe(false);
  });

  it('a failed endpoint stops deciding: load after an instance is lost starts no activity', async () => {
    // Prepare: the front's address kept, as a load generator would hold it after the failure.
    createHost(FAST);
    const endpointName = await deployTwo('failed');
    const url = host.endpointUrl(endpointName) ?? '';
    await host.applyRealtimeScaling(policyFor(endpointName));
    const [lost] = stubs.pids;
    process.kill(lost ?? 0, 'SIGKILL');
    await waitFor(
      `${endpointName} to fail`,
      async () => (await host.describeEndpoint(endpointName))?.status === 'Failed',
    );

    // Act
    for (let i = 0; i < 40; i += 1) {
      const response = await fetch(`${url}/invocations`, { method: 'POST', body: stubCommand({}) });
      await response.arrayBuffer();
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));

    // Assert
    expect(host.realtimeScalingActivities(endpointName)).toEqual([]);
    expect(stubs.pids).toHaveLength(2);
    expect(await host.deregisterEndpointVariant(endpointName, 'AllTraffic')).toBe(true);
  });

  it('deleting the endpoint mid-scale-out stops the autoscaler and every instance, the starting one too', async () => {
    // Prepare: a start delay no test waits for, so the scale-out is in progress at the delete.
    createHost({ ...FAST, instanceStartDelayMs: 60_000 });
    const endpointName = await deployTwo('deleted');
    await host.applyRealtimeScaling(policyFor(endpointName));
    await invoke(endpointName, 40);
    await waitFor('a third instance launched', () => stubs.pids.length === 3);

    // Act
    const startedAt = Date.now();
    await host.deleteEndpoint(endpointName);
    const deleteMs = Date.now() - startedAt;

    // Assert
    expect(deleteMs).toBeLessThan(10_000);
    await waitFor('every instance to exit', () => stubs.pids.every((pid) => !isAlive(pid)));
    expect(await host.deregisterEndpointVariant(endpointName, 'AllTraffic')).toBe(false);
    expect(
      (await host.instanceSeries(endpointName, 0, Date.now())).map(({ inService, starting }) => ({
        inService,
        starting,
      })),
    ).toEqual([
      { inService: 0, starting: 1 },
      { inService: 0, starting: 2 },
      { inService: 1, starting: 1 },
      { inService: 2, starting: 0 },
      { inService: 2, starting: 1 },
      { inService: 1, starting: 1 },
      { inService: 0, starting: 1 },
      { inService: 0, starting: 0 },
    ]);
  });
});
