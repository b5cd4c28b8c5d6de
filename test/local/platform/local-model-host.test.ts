import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { QuotaExceededError } from '../../../core/contracts/errors.js';
import { FileObjectStore } from '../../../local/platform/file-object-store.js';
import { LocalModelHost, type LocalModelHostOptions } from '../../../local/platform/local-model-host.js';
import { silentLogger } from '../../support/memory-object-store.js';
import { brokenModelArchive, exampleModelArchive, isAlive, waitFor } from './support/model-artifacts.js';

/** This file's folder (`import.meta.dirname` is missing under jest 29). */
const HERE = dirname(fileURLToPath(import.meta.url));

const MODEL_URI = 's3://local-artifacts/runs/r1/model/model.tar.gz';
const BROKEN_URI = 's3://local-artifacts/runs/r1/broken/model.tar.gz';
const PLAIN_URI = 's3://local-artifacts/runs/r1/plain/model.onnx';

let workDir: string;
let store: FileObjectStore;
let host: LocalModelHost;

beforeEach(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'local-model-host-'));
  store = new FileObjectStore({ rootDir: workDir });
  await store.putBytes(MODEL_URI, await exampleModelArchive());
  await store.putBytes(BROKEN_URI, await brokenModelArchive());
  await store.putBytes(PLAIN_URI, new TextEncoder().encode('raw model, not an archive'));
});

afterEach(async () => {
  await host.shutdown();
  await rm(workDir, { recursive: true, force: true });
});

function createHost(options: Partial<LocalModelHostOptions> = {}): LocalModelHost {
  host = new LocalModelHost({ store, logger: silentLogger, availableCpus: 2, ...options });
  return host;
}

async function deploy(
  name: string,
  options: { modelDataUrl?: string; instanceType?: string; environment?: Record<string, string> } = {},
): Promise<void> {
  await host.createModel({
    modelName: `mso-r1-m-${name}`,
    image: 'local',
    modelDataUrl: options.modelDataUrl ?? MODEL_URI,
    environment: options.environment ?? {},
    tags: { 'mso:run-id': 'r1' },
  });
  await host.createEndpointConfig({
    endpointConfigName: `mso-r1-ec-${name}`,
    variant: {
      variantName: 'AllTraffic',
      modelName: `mso-r1-m-${name}`,
      instanceType: options.instanceType ?? 'ml.c5.large',
      initialInstanceCount: 1,
    },
    tags: {},
  });
  await host.createEndpoint({
    endpointName: `mso-r1-ep-${name}`,
    endpointConfigName: `mso-r1-ec-${name}`,
    tags: {},
  });
}

async function settledStatus(endpointName: string): Promise<string | undefined> {
  await waitFor(
    `${endpointName} to leave Creating`,
    async () => (await host.describeEndpoint(endpointName))?.status !== 'Creating',
  );
  return (await host.describeEndpoint(endpointName))?.status;
}

function serverPid(endpointName: string): number {
  const pid = host.launchedServers().find((server) => server.endpointName === endpointName)?.pid;
  if (pid === undefined) throw new Error(`No server launched for ${endpointName}`);
  return pid;
}

describe('LocalModelHost', () => {
  it('creates an endpoint that goes from Creating to InService and answers /ping at its URL', async () => {
    // Prepare
    createHost();

    // Act
    await deploy('a');
    const first = await host.describeEndpoint('mso-r1-ep-a');
    const settled = await settledStatus('mso-r1-ep-a');
    const url = host.endpointUrl('mso-r1-ep-a');
    const ping = await fetch(`${url ?? ''}/ping`);

    // Assert
    expect(first).toEqual({
      endpointName: 'mso-r1-ep-a',
      status: 'Creating',
      instanceType: 'ml.c5.large',
      instanceCount: 1,
    });
    expect(settled).toBe('InService');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ping.status).toBe(200);
  });

  it('starts the server with the container environment and the threads of the CPU budget', async () => {
    // Prepare
    createHost({ availableCpus: 2 });

    // Act
    await deploy('env', {
      instanceType: 'ml.c5.xlarge',
      environment: { SAGEMAKER_MODEL_SERVER_WORKERS: '2' },
    });
    await settledStatus('mso-r1-ep-env');
    const environ = (await readFile(`/proc/${serverPid('mso-r1-ep-env')}/environ`, 'utf8')).split('\0');

    // Assert
    expect(environ).toEqual(
      expect.arrayContaining([
        'SAGEMAKER_MODEL_SERVER_WORKERS=2',
        'MODEL_SERVER_INTRA_OP_THREADS=1',
        'SAGEMAKER_BIND_TO_PORT=0',
        'MODEL_SERVER_HOST=127.0.0.1',
      ]),
    );
    expect(host.launchedServers()[0]?.cpu).toMatchObject({ requestedVcpus: 4, budget: 2, capped: true });
  });

  it('deletes an endpoint by stopping its server process', async () => {
    // Prepare
    createHost();
    await deploy('b');
    await settledStatus('mso-r1-ep-b');
    const pid = serverPid('mso-r1-ep-b');

    // Act
    const deleted = await host.deleteEndpoint('mso-r1-ep-b');

    // Assert
    expect(deleted).toBe(true);
    expect(isAlive(pid)).toBe(false);
    expect(await host.describeEndpoint('mso-r1-ep-b')).toBeUndefined();
    expect(await host.deleteEndpoint('mso-r1-ep-b')).toBe(false);
  });

  it('creates idempotently: a second CreateEndpoint with the same name starts no second server', async () => {
    // Prepare
    createHost();
    await deploy('c');

    // Act
    await host.createEndpoint({ endpointName: 'mso-r1-ep-c', endpointConfigName: 'mso-r1-ec-c', tags: {} });
    await settledStatus('mso-r1-ep-c');

    // Assert
    expect(host.launchedServers().map((server) => server.endpointName)).toEqual(['mso-r1-ep-c']);
  });

  it('fails the endpoint with the server’s own reason when the model cannot be loaded', async () => {
    // Prepare
    createHost();

    // Act
    await deploy('broken', { modelDataUrl: BROKEN_URI });
    const status = await settledStatus('mso-r1-ep-broken');
    const described = await host.describeEndpoint('mso-r1-ep-broken');

    // Assert
    expect(status).toBe('Failed');
    expect(described?.failureReason).toMatch(
      /^model server \(pid \d+\) exited with code 1: UnsupportedModelError: Cannot serve model .*Protobuf parsing failed\.( before it was ready)?$/,
    );
    expect(isAlive(serverPid('mso-r1-ep-broken'))).toBe(false);
  });

  it('fails the endpoint when the artifact is not a model.tar.gz', async () => {
    // Prepare
    createHost();

    // Act
    await deploy('plain', { modelDataUrl: PLAIN_URI });
    const status = await settledStatus('mso-r1-ep-plain');

    // Assert
    expect(status).toBe('Failed');
    expect((await host.describeEndpoint('mso-r1-ep-plain'))?.failureReason).toBe(
      `Model artifact ${PLAIN_URI} is not a gzip archive: expected a model.tar.gz with the model at its root`,
    );
  });

  it('fails an endpoint in service whose server dies, and tells the listeners why', async () => {
    // Prepare
    createHost();
    await deploy('crash');
    await settledStatus('mso-r1-ep-crash');
    const pid = serverPid('mso-r1-ep-crash');
    const heard: string[] = [];
    host.onEndpointFailed((name, reason) => heard.push(`${name}: ${reason}`));

    // Act
    process.kill(pid, 'SIGKILL');
    await waitFor('the endpoint to fail', () => heard.length > 0);

    // Assert
    const reason = `model server (pid ${pid}) was killed by SIGKILL`;
    expect(heard).toEqual([`mso-r1-ep-crash: ${reason}`]);
    expect(await host.describeEndpoint('mso-r1-ep-crash')).toMatchObject({
      status: 'Failed',
      failureReason: reason,
    });
    expect(host.endpointUrl('mso-r1-ep-crash')).toBeUndefined();
  });

  it('fails with QuotaExceededError when the endpoints would need more threads than the local quota', async () => {
    // Prepare
    createHost({ availableCpus: 1, maxCpuOvercommit: 1 });
    await deploy('q1');

    // Act
    const second = deploy('q2');

    // Assert
    await expect(second).rejects.toThrow(QuotaExceededError);
    await expect(second).rejects.toThrow(/needs 1 threads but 1 endpoint\(s\) already use 1 of the 1/);
  });

  it('lists the resources of a run by name prefix', async () => {
    // Prepare
    createHost({ compilationJobNames: () => ['mso-r1-cj-ml-c5', 'mso-r2-cj-ml-c5'] });
    await deploy('l');
    await host.createModel({
      modelName: 'mso-r2-m-x',
      image: 'local',
      modelDataUrl: MODEL_URI,
      environment: {},
      tags: {},
    });

    // Act
    const resources = await host.listRunResources('r1', 'mso-r1-');

    // Assert
    expect(resources).toEqual({
      endpoints: ['mso-r1-ep-l'],
      endpointConfigs: ['mso-r1-ec-l'],
      models: ['mso-r1-m-l'],
      compilationJobs: ['mso-r1-cj-ml-c5'],
      optimizationJobs: [],
    });
  });

  it('stops every server on shutdown, including one still starting', async () => {
    // Prepare
    createHost();
    await deploy('s1');
    await settledStatus('mso-r1-ep-s1');
    await deploy('s2');

    // Act
    await host.shutdown();

    // Assert
    const pids = host.launchedServers().map((server) => server.pid ?? -1);
    expect(pids.length).toBeGreaterThanOrEqual(1);
    expect(pids.filter(isAlive)).toEqual([]);
    expect(await host.describeEndpoint('mso-r1-ep-s1')).toBeUndefined();
  });

  it('leaves no server behind when its host process is killed with SIGKILL', async () => {
    // Prepare
    createHost();
    const parent = spawn(
      process.execPath,
      ['--import', 'tsx', resolve(HERE, 'support', 'host-process.ts'), workDir],
      { cwd: resolve(HERE, '..', '..', '..'), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const line = await new Promise<string>((resolveLine) => {
      createInterface({ input: parent.stdout }).once('line', resolveLine);
    });
    const { serverPid: pid, status } = JSON.parse(line) as { serverPid: number; status: string };

    // Act
    parent.kill('SIGKILL');

    // Assert
    expect(status).toBe('InService');
    await waitFor(`server ${pid} to exit after its parent`, () => !isAlive(pid), 10_000);
  });
});

describe('LocalModelHost.endpointInstanceLimit', () => {
  it('is the thread budget checkQuota holds every endpoint to, with what sets it', () => {
    // Act
    const limit = createHost({ availableCpus: 2, maxCpuOvercommit: 4 }).endpointInstanceLimit();

    // Assert
    expect(limit.instances).toBe(8);
    expect(limit.name).toBe(
      "this machine's model-server budget (2 cores × 4 threads, one instance at least one thread)",
    );
  });
});
