import { describe, expect, it } from '@jest/globals';
import { aggregateWorkerResults } from '../../../core/load-test/aggregate.js';
import { runLoadTest } from '../../../core/load-test/engine.js';
import { decodeHistogram } from '../../../core/load-test/histogram.js';
import type { InvokeRequest } from '../../../core/load-test/ports.js';
import { ScriptedTransport, SlotServer } from '../../../bench/support/stub-transports.js';
import { VirtualClock } from './support/virtual-clock.js';
import { parseLoadPlan } from '../../../core/contracts/load-plan.js';
import { parseSla } from '../../../core/contracts/latency-sla.js';

const REQUEST: InvokeRequest = { body: new Uint8Array([1]), contentType: 'application/json' };
const SLA = parseSla({ p95LatencyMs: 1000 });

describe('distributed workers', () => {
  it("split each step's load and add up to the step in the merged result", async () => {
    // Arrange: 3 workers share one endpoint of 100 slots × 10 ms; steps of 3 and 6 in flight.
    const clock = new VirtualClock();
    const plan = parseLoadPlan({ workers: 3, steps: [3, 6], warmupSeconds: 1, stepDurationSeconds: 4 });
    const server = new SlotServer(clock, 100, 10_000);
    const startAtEpochMs = clock.epochMs() + 500;

    // Act
    const workers = await Promise.all(
      [0, 1, 2].map((workerIndex) =>
        runLoadTest({
          plan,
          sla: SLA,
          transport: server,
          request: REQUEST,
          clock,
          startAtEpochMs,
          workerIndex,
        }),
      ),
    );
    const result = aggregateWorkerResults(workers, SLA, plan);

    // Assert
    expect(workers.map((worker) => worker.steps.map((step) => step.workerLoad))).toEqual([
      [1, 2],
      [1, 2],
      [1, 2],
    ]);
    expect(result.workers).toBe(3);
    expect(result.steps.map((step) => step.tps)).toEqual([300, 600]);
    expect(result.steps.map((step) => step.requests)).toEqual([1200, 2400]);
    expect(decodeHistogram(result.steps[1]?.histogram ?? '').totalCount).toBe(2400);
    expect(result.stoppedBecause).toBe('completed');
    expect(result.startEpochMs).toBe(startAtEpochMs);
  });

  it('keep the steps in which some workers have no share of the load', async () => {
    // Arrange: 1 in flight over 3 workers: workers 1 and 2 idle through the first step.
    const clock = new VirtualClock();
    const plan = parseLoadPlan({ workers: 3, steps: [1, 3], warmupSeconds: 1, stepDurationSeconds: 2 });
    const server = new SlotServer(clock, 10, 10_000);

    // Act
    const workers = await Promise.all(
      [0, 1, 2].map((workerIndex) =>
        runLoadTest({
          plan,
          sla: SLA,
          transport: server,
          request: REQUEST,
          clock,
          workerIndex,
          startAtEpochMs: clock.epochMs(),
        }),
      ),
    );
    const result = aggregateWorkerResults(workers, SLA, plan);

    // Assert
    expect(workers.map((worker) => worker.steps.map((step) => step.requests))).toEqual([
      [200, 200],
      [0, 200],
      [0, 200],
    ]);
    expect(result.steps.map((step) => step.tps)).toEqual([100, 300]);
    expect(result.steps.map((step) => step.meetsSla)).toEqual([true, true]);
  });

  it('compute throughput over the part of the window all workers ran', async () => {
    // Arrange: worker 2 starts 2.5 s after the shared start, 1.5 s into the first window.
    const clock = new VirtualClock();
    const plan = parseLoadPlan({ workers: 3, steps: [3], warmupSeconds: 1, stepDurationSeconds: 10 });
    const startAtEpochMs = clock.epochMs();
    const run = (workerIndex: number) =>
      runLoadTest({
        plan,
        sla: SLA,
        transport: new ScriptedTransport(clock, () => ({ latencyUs: 10_000 })),
        request: REQUEST,
        clock,
        startAtEpochMs,
        workerIndex,
      });

    // Act
    const onTime = [run(0), run(1)];
    await clock.sleepUntil(2_500_000);
    const workers = await Promise.all([...onTime, run(2)]);
    const result = aggregateWorkerResults(workers, SLA, plan);

    // Assert: 8.5 s common window; 100 requests/s per worker (the late one misses one
    // completion while its first request is in flight).
    const [step] = result.steps;
    expect(workers[2]?.steps[0]?.activeFromMs).toBe(1500);
    expect(step?.windowSeconds).toBe(8.5);
    expect(step?.tps).toBeCloseTo((850 + 850 + 849) / 8.5, 3);
    expect(step?.requests).toBe(1000 + 1000 + 850);
  });

  it("judge a step on all workers' requests, where averaging their p95 would have passed it", async () => {
    // Arrange: one worker's requests take 300 ms, the others' 5 ms: a third of all requests are
    // slow, so the step's p95 is 300 ms; the mean of the workers' p95s is 103 ms.
    const clock = new VirtualClock();
    const plan = parseLoadPlan({
      workers: 3,
      model: 'open',
      steps: [30, 60],
      warmupSeconds: 1,
      stepDurationSeconds: 5,
    });
    const sla = parseSla({ p95LatencyMs: 200 });
    const startAtEpochMs = clock.epochMs();

    // Act
    const workers = await Promise.all(
      [0, 1, 2].map((workerIndex) =>
        runLoadTest({
          plan,
          sla,
          transport: new ScriptedTransport(clock, () => ({ latencyUs: workerIndex === 2 ? 300_000 : 5_000 })),
          request: REQUEST,
          clock,
          startAtEpochMs,
          workerIndex,
        }),
      ),
    );
    const result = aggregateWorkerResults(workers, sla, plan);

    // Assert
    expect(workers.map((worker) => worker.stoppedBecause)).toEqual([
      'completed',
      'completed',
      'sla-breached',
    ]);
    expect(result.stoppedBecause).toBe('sla-breached');
    expect(result.steps[0]?.slaBreaches[0]).toMatch(/^p95 300\.\d{3} ms > SLA 200 ms$/);
    expect(result.sustainableTps).toBeNull();
    const averagedP95 =
      workers.reduce(
        (sum, worker) =>
          sum + (worker.steps[0] ? decodeHistogram(worker.steps[0].histogram).getValueAtPercentile(95) : 0),
        0,
      ) /
      3 /
      1000;
    expect(averagedP95).toBeLessThan(200);
  });

  it("fail to aggregate when a worker's result is missing", async () => {
    // Arrange
    const clock = new VirtualClock();
    const plan = parseLoadPlan({ workers: 2, steps: [2], warmupSeconds: 0, stepDurationSeconds: 1 });
    const worker = await runLoadTest({
      plan,
      sla: SLA,
      transport: new ScriptedTransport(clock, () => ({ latencyUs: 10_000 })),
      request: REQUEST,
      clock,
      workerIndex: 1,
    });

    // Act / Assert
    expect(() => aggregateWorkerResults([worker], SLA, plan)).toThrow(
      'worker results do not match the plan: expected workers [0, 1], got [1]',
    );
  });
});
