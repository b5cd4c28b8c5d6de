/**
 * The local front of a real-time endpoint of several instances, over stub instances (real
 * processes that answer with their pid, so the test sees which instance served each request).
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { LocalRealtimeEndpoint } from '../../../local/platform/realtime-endpoint.js';
import { isAlive, waitFor } from './support/model-artifacts.js';
import { stubCommand, stubLauncher, type StubAnswer, type StubLauncher } from './support/stub-instances.js';
import type { RoutingStrategy } from '../../../core/contracts/routing-strategy.js';

let endpoint: LocalRealtimeEndpoint | undefined;

afterEach(async () => {
  await endpoint?.shutdown();
  endpoint = undefined;
});

function createEndpoint(
  stubs: StubLauncher,
  options: {
    count?: number;
    routingStrategy?: RoutingStrategy;
    random?: () => number;
    lost?: string[];
    instanceStartDelayMs?: number;
    now?: () => number;
  } = {},
): LocalRealtimeEndpoint {
  endpoint = new LocalRealtimeEndpoint({
    endpointName: 'mso-r1-ep-front',
    initialInstanceCount: options.count ?? 2,
    routingStrategy: options.routingStrategy ?? 'RANDOM',
    launchInstance: stubs.launch,
    onInstanceLost: (reason) => options.lost?.push(reason),
    ...(options.random === undefined ? {} : { random: options.random }),
    ...(options.instanceStartDelayMs === undefined
      ? {}
      : { instanceStartDelayMs: options.instanceStartDelayMs }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  return endpoint;
}

async function invoke(url: string, command: { sleepMs?: number; status?: number } = {}): Promise<StubAnswer> {
  const response = await fetch(`${url}/invocations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: stubCommand(command),
  });
  return (await response.json()) as StubAnswer;
}

describe('LocalRealtimeEndpoint', () => {
  it('starts one process per instance behind one front that answers /ping', async () => {
    // Prepare
    const stubs = stubLauncher();
    const front = createEndpoint(stubs, { count: 3 });

    // Act
    const url = await front.start();
    const ping = await fetch(`${url}/ping`);

    // Assert
    expect(ping.status).toBe(200);
    expect(front.currentInstanceCount).toBe(3);
    expect(stubs.pids).toHaveLength(3);
    expect(stubs.pids.filter(isAlive)).toEqual(stubs.pids);
  });

  it('LEAST_OUTSTANDING_REQUESTS sends a request to the idle instance while the other is busy', async () => {
    // Prepare
    const stubs = stubLauncher();
    const front = createEndpoint(stubs, { routingStrategy: 'LEAST_OUTSTANDING_REQUESTS', random: () => 0 });
    const url = await front.start();

    // Act
    const slow = invoke(url, { sleepMs: 600 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const quick = await invoke(url);
    const busy = await slow;

    // Assert
    expect(busy.pid).toBe(stubs.pids[0]);
    expect(quick.pid).toBe(stubs.pids[1]);
  });

  it('RANDOM spreads requests over every instance', async () => {
    // Prepare
    const stubs = stubLauncher();
    const front = createEndpoint(stubs);
    const url = await front.start();

    // Act
    const answers: StubAnswer[] = [];
    for (let i = 0; i < 200; i += 1) answers.push(await invoke(url));

    // Assert: each of two instances gets between 60 and 140 of 200 (outside: p < 1e-8).
    const served = stubs.pids.map((pid) => answers.filter((answer) => answer.pid === pid).length);
    expect(served.every((count) => count >= 60 && count <= 140)).toBe(true);
  });

  it('counts the invocations each instance served', async () => {
    // Prepare
    const stubs = stubLauncher();
    const picks = [0, 0.9, 0.9, 0.1, 0.9];
    const front = createEndpoint(stubs, { random: () => picks.shift() ?? 0 });
    const url = await front.start();

    // Act
    for (let i = 0; i < 5; i += 1) await invoke(url);

    // Assert
    expect(front.invocationsPerInstance()).toEqual([
      {
        instanceId: 'mso-r1-ep-front/instance-1',
        pid: stubs.pids[0],
        invocations: 2,
        outstanding: 0,
        inService: true,
      },
      {
        instanceId: 'mso-r1-ep-front/instance-2',
        pid: stubs.pids[1],
        invocations: 3,
        outstanding: 0,
        inService: true,
      },
    ]);
  });

  it('passes a model error through with its status and body', async () => {
    // Prepare
    const stubs = stubLauncher();
    const url = await createEndpoint(stubs).start();

    // Act
    const response = await fetch(`${url}/invocations`, {
      method: 'POST',
      body: stubCommand({ status: 500, error: 'bad input' }),
    });

    // Assert
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: 'bad input' });
  });

  it('starts and stops processes when the desired instance count changes', async () => {
    // Prepare
    const stubs = stubLauncher();
    const front = createEndpoint(stubs);
    const url = await front.start();

    // Act
    await front.setDesiredInstanceCount(3);
    const grown = front.currentInstanceCount;
    await front.setDesiredInstanceCount(1);
    const answer = await invoke(url);

    // Assert
    expect(grown).toBe(3);
    expect(front.currentInstanceCount).toBe(1);
    expect(stubs.pids.filter(isAlive)).toEqual([stubs.pids[0]]);
    expect(answer.pid).toBe(stubs.pids[0]);
  });

  it('keeps a new instance out of service for its start delay, and records the counts over time', async () => {
    // Prepare: a clock that counts its reads, so each sample's time is its place in the series.
    let reads = 0;
    const front = createEndpoint(stubLauncher(), {
      count: 1,
      instanceStartDelayMs: 400,
      now: () => (reads += 1),
    });
    await front.start();

    // Act
    const change = front.setDesiredInstanceCount(2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const during = { inService: front.currentInstanceCount, desired: front.desiredInstanceCount };
    await change;

    // Assert
    expect(during).toEqual({ inService: 1, desired: 2 });
    expect(front.currentInstanceCount).toBe(2);
    expect(front.instanceCountSeries()).toEqual([
      { atEpochMs: 1, inService: 0, starting: 1 },
      { atEpochMs: 2, inService: 1, starting: 0 },
      { atEpochMs: 3, inService: 1, starting: 1 },
      { atEpochMs: 4, inService: 2, starting: 0 },
    ]);
  });

  it('ends a starting instance’s start delay when the endpoint shuts down, leaving no timer', async () => {
    // Prepare: a delay far longer than the test: the change settles only if shutdown ends it.
    const stubs = stubLauncher();
    const front = createEndpoint(stubs, { count: 1 });
    await front.start();
    front.setInstanceStartDelayMs(60_000);
    const change = front.setDesiredInstanceCount(2).then(
      () => 'settled',
      () => 'settled',
    );
    await waitFor('the second instance launched', () => stubs.pids.length === 2);

    // Act
    await front.shutdown();

    // Assert
    expect(await change).toBe('settled');
    expect(front.instanceCountSeries().at(-1)).toMatchObject({ inService: 0, starting: 0 });
  });

  it('refuses a desired instance count below 1', async () => {
    // Prepare
    const front = createEndpoint(stubLauncher());
    await front.start();

    // Act
    const change = front.setDesiredInstanceCount(0);

    // Assert
    await expect(change).rejects.toThrow(
      'Endpoint mso-r1-ep-front: desired instance count got 0, expected an integer of at least 1',
    );
  });

  it('stops every instance process on shutdown', async () => {
    // Prepare
    const stubs = stubLauncher();
    const front = createEndpoint(stubs, { count: 3 });
    await front.start();

    // Act
    await front.shutdown();

    // Assert
    expect(stubs.pids).toHaveLength(3);
    expect(stubs.pids.filter(isAlive)).toEqual([]);
  });

  it('fails to start, with no process left, when one instance cannot start', async () => {
    // Prepare
    const stubs = stubLauncher({ failStart: true });
    const front = createEndpoint(stubs);

    // Act
    const start = front.start();

    // Assert
    await expect(start).rejects.toThrow(/stub instance \(pid \d+\) exited with code 3 before it was ready/);
    expect(stubs.pids.filter(isAlive)).toEqual([]);
  });

  it('reports an instance that dies while in service', async () => {
    // Prepare
    const stubs = stubLauncher();
    const lost: string[] = [];
    const front = createEndpoint(stubs, { lost });
    await front.start();
    const victim = stubs.pids[1] ?? 0;

    // Act
    process.kill(victim, 'SIGKILL');
    while (front.currentInstanceCount > 1) await new Promise((resolve) => setTimeout(resolve, 20));

    // Assert
    expect(lost).toEqual([`Instance mso-r1-ep-front/instance-2 (pid ${victim}) killed by SIGKILL`]);
  });
});
