import { describe, expect, it } from '@jest/globals';
import { aggregateWorkerResults } from '../../../core/load-test/aggregate.js';
import { runLoadTest } from '../../../core/load-test/engine.js';
import type { InvokeRequest, InvokeTransport } from '../../../core/load-test/ports.js';
import type { LoadTestProgress } from '../../../core/load-test/results.js';
import { ScriptedTransport, SlotServer } from '../../../bench/support/stub-transports.js';
import { VirtualClock } from './support/virtual-clock.js';
import { parseLoadPlan, type LoadPlanInput } from '../../../core/contracts/load-plan.js';
import { parseSla, type LatencySlaInput } from '../../../core/contracts/latency-sla.js';

const REQUEST: InvokeRequest = { body: new Uint8Array([1, 2, 3]), contentType: 'application/json' };
const LOOSE_SLA: LatencySlaInput = { p95LatencyMs: 10_000 };

/** HdrHistogram (3 significant digits) reports values to within 0.1 % above the recorded one. */
function expectWithinResolution(actualMs: number, expectedMs: number): void {
  expect(actualMs).toBeGreaterThanOrEqual(expectedMs);
  expect(actualMs).toBeLessThanOrEqual(expectedMs * 1.001);
}

async function runSingle(
  planInput: LoadPlanInput,
  transport: (clock: VirtualClock) => InvokeTransport,
  slaInput: LatencySlaInput = LOOSE_SLA,
  extra: {
    deadlineEpochMs?: number;
    signal?: AbortSignal;
    onProgress?: (event: LoadTestProgress) => void;
  } = {},
) {
  const clock = new VirtualClock();
  const plan = parseLoadPlan(planInput);
  const sla = parseSla(slaInput);
  const worker = await runLoadTest({
    plan,
    sla,
    transport: transport(clock),
    request: REQUEST,
    clock,
    ...extra,
  });
  return { clock, worker, result: aggregateWorkerResults([worker], sla, plan) };
}

describe('runLoadTest, closed model', () => {
  it('measures C / service time of throughput and the service time as latency', async () => {
    // Arrange: every request takes exactly 10 ms; 4 in flight can do 400 requests/s.
    const plan = { steps: [4], warmupSeconds: 1, stepDurationSeconds: 10 };

    // Act
    const { result } = await runSingle(
      plan,
      (clock) => new ScriptedTransport(clock, () => ({ latencyUs: 10_000 })),
    );

    // Assert
    const [step] = result.steps;
    expect(step?.tps).toBe(400);
    expect(step?.requests).toBe(4000);
    expect(step?.windowSeconds).toBe(10);
    expectWithinResolution(step?.latencyMs.p50 ?? 0, 10);
    expectWithinResolution(step?.latencyMs.max ?? 0, 10);
    expect(step?.loadKind).toBe('concurrency');
    expect(result.stoppedBecause).toBe('completed');
  });

  it('leaves requests started during warm-up out of the latency figures', async () => {
    // Arrange: a cold start: the first request takes 3 s, every later one 10 ms.
    const coldStart = (clock: VirtualClock) =>
      new ScriptedTransport(clock, (call) => ({ latencyUs: call === 0 ? 3_000_000 : 10_000 }));

    // Act
    const warm = await runSingle({ steps: [1], warmupSeconds: 5, stepDurationSeconds: 10 }, coldStart);
    const cold = await runSingle({ steps: [1], warmupSeconds: 0, stepDurationSeconds: 10 }, coldStart);

    // Assert: with the warm-up the slow start is invisible; without it, it is the maximum.
    expectWithinResolution(warm.result.steps[0]?.latencyMs.max ?? 0, 10);
    expect(warm.result.steps[0]?.requests).toBe(1000);
    expectWithinResolution(cold.result.steps[0]?.latencyMs.max ?? 0, 3000);
  });

  it('stops at the first step that breaches the SLA and reports the best step before it', async () => {
    // Arrange: 4 slots of 10 ms; beyond 4 in flight requests queue: 8 → 20 ms, 16 → 40 ms.
    const plan = {
      steps: [1, 2, 4, 8, 16, 32],
      warmupSeconds: 1,
      stepDurationSeconds: 5,
      stopAtPlateau: false,
    };

    // Act
    const { result } = await runSingle(plan, (clock) => new SlotServer(clock, 4, 10_000), {
      p95LatencyMs: 25,
    });

    // Assert
    expect(result.steps.map((step) => step.load)).toEqual([1, 2, 4, 8, 16]);
    expect(result.steps.map((step) => step.meetsSla)).toEqual([true, true, true, true, false]);
    expect(result.steps[4]?.slaBreaches).toEqual(['p95 40.000 ms > SLA 25 ms']);
    expect(result.stoppedBecause).toBe('sla-breached');
    expect(result.stopDetail).toBe('step 5 (16 in flight): p95 40.000 ms > SLA 25 ms');
    expect(result.sustainableTps).toBe(400);
    expect(result.sustainableStep).toBe(4);
  });

  it('stops when throughput stops rising and reports the capacity c / s as sustainable', async () => {
    // Arrange: capacity 4 slots / 10 ms = 400 requests/s.
    const plan = { steps: [1, 2, 4, 8, 16, 32], warmupSeconds: 1, stepDurationSeconds: 5 };

    // Act
    const { result } = await runSingle(plan, (clock) => new SlotServer(clock, 4, 10_000), {
      p95LatencyMs: 1000,
    });

    // Assert
    expect(result.steps.map((step) => step.tps)).toEqual([100, 200, 400, 400]);
    expect(result.stoppedBecause).toBe('plateau');
    expect(result.stopDetail).toBe('step 4 (8 in flight): 400.0 TPS is less than 1.05 × 400.0 TPS of step 3');
    expect(result.sustainableTps).toBe(400);
    expect(result.sustainableStep).toBe(4);
  });

  it('does not start a step that cannot end before the deadline, and returns before it', async () => {
    // Arrange: steps take 6 s each; the deadline leaves room for two (and the 1 s reserve).
    const clock = new VirtualClock();
    const deadlineEpochMs = clock.epochMs() + 14_000;
    const plan = parseLoadPlan({ steps: [1, 2, 4], warmupSeconds: 1, stepDurationSeconds: 5 });

    // Act
    const worker = await runLoadTest({
      plan,
      sla: LOOSE_SLA,
      transport: new ScriptedTransport(clock, () => ({ latencyUs: 10_000 })),
      request: REQUEST,
      clock,
      deadlineEpochMs,
    });

    // Assert
    expect(worker.steps).toHaveLength(2);
    expect(worker.stoppedBecause).toBe('deadline');
    expect(worker.stopDetail).toMatch(/^step 3 \(4 in flight\) would end at .*, after the deadline/);
    expect(clock.epochMs()).toBeLessThanOrEqual(deadlineEpochMs - 1000);
  });

  it('cuts requests still in flight at the deadline and counts them as timeouts', async () => {
    // Arrange: the last request of the window hangs for 100 s; the deadline is 3 s after the window.
    const clock = new VirtualClock();
    const deadlineEpochMs = clock.epochMs() + 9_000;
    const plan = parseLoadPlan({ steps: [1], warmupSeconds: 1, stepDurationSeconds: 5 });
    const transport = new ScriptedTransport(clock, (call) => ({
      latencyUs: call === 599 ? 100_000_000 : 10_000,
    }));

    // Act
    const worker = await runLoadTest({
      plan,
      sla: LOOSE_SLA,
      transport,
      request: REQUEST,
      clock,
      deadlineEpochMs,
    });

    // Assert
    const result = aggregateWorkerResults([worker], parseSla(LOOSE_SLA), plan);
    expect(result.stoppedBecause).toBe('deadline');
    expect(result.steps[0]?.errors.timeout).toBe(1);
    expect(result.steps[0]?.errorSamples[0]?.message).toBe(
      'not settled when the step was cut short (deadline)',
    );
    expect(clock.epochMs()).toBe(deadlineEpochMs - 1000);
  });

  it("ends a step's window when its request cap is reached and measures throughput up to there", async () => {
    // Arrange: 10 ms per request. With 2 in flight the 51st start comes at 250 ms; with 4 in
    // flight at 120 ms (12 rounds of 4, then 2 more). Completions up to there: 50 and 48.
    const plan = { steps: [2, 4], warmupSeconds: 1, stepDurationSeconds: 10, maxRequestsPerStep: 50 };

    // Act
    const { result } = await runSingle(
      plan,
      (clock) => new ScriptedTransport(clock, () => ({ latencyUs: 10_000 })),
    );

    // Assert
    expect(result.steps.map((step) => step.requests)).toEqual([50, 50]);
    expect(result.steps.map((step) => step.windowSeconds)).toEqual([0.25, 0.12]);
    expect(result.steps.map((step) => step.tps)).toEqual([200, 400]);
    expect(result.stoppedBecause).toBe('completed');
  });

  it('stops the run when the total request cap is reached', async () => {
    // Arrange: 1 in flight at 10 ms: 100 warm-up requests, then the window.
    const plan = { steps: [1, 2], warmupSeconds: 1, stepDurationSeconds: 10, maxTotalRequests: 300 };

    // Act
    const { result, worker } = await runSingle(
      plan,
      (clock) => new ScriptedTransport(clock, () => ({ latencyUs: 10_000 })),
    );

    // Assert
    expect(worker.stoppedBecause).toBe('request-cap');
    expect(result.stoppedBecause).toBe('request-cap');
    expect(result.steps).toHaveLength(1);
    expect(result.steps[0]?.requests).toBe(200);
    expect(result.steps[0]?.windowSeconds).toBe(2);
  });

  it('stops when cancelled and leaves the unfinished step out', async () => {
    // Arrange: cancel 8 s in, during step 2 (steps are 6 s long).
    const cancel = new AbortController();
    const transport = (clock: VirtualClock) =>
      new ScriptedTransport(clock, () => {
        if (clock.nowUs() >= 8_000_000) cancel.abort();
        return { latencyUs: 10_000 };
      });

    // Act
    const { worker } = await runSingle(
      { steps: [1, 2, 4], warmupSeconds: 1, stepDurationSeconds: 5 },
      transport,
      LOOSE_SLA,
      { signal: cancel.signal },
    );

    // Assert
    expect(worker.stoppedBecause).toBe('aborted');
    expect(worker.steps).toHaveLength(1);
    expect(worker.stopDetail).toBe('cancelled during step 2 (2 in flight); that step is left out');
  });

  it('classifies failures per kind and keeps the first few truncated samples', async () => {
    // Arrange: of every 10 calls, one model error with a long body, one throttled.
    const body = 'x'.repeat(1000);
    const transport = (clock: VirtualClock) =>
      new ScriptedTransport(clock, (call) => {
        if (call % 10 === 3)
          return { latencyUs: 5_000, outcome: { kind: 'model-error', statusCode: 500, message: body } };
        if (call % 10 === 7)
          return { latencyUs: 1_000, outcome: { kind: 'throttled', statusCode: 429, message: 'slow down' } };
        return { latencyUs: 10_000 };
      });

    // Act
    const { result } = await runSingle({ steps: [1], warmupSeconds: 0, stepDurationSeconds: 1 }, transport, {
      p95LatencyMs: 100,
      maxErrorRate: 0.1,
    });

    // Assert: a cycle of 10 calls takes 8 × 10 + 5 + 1 = 86 ms.
    const [step] = result.steps;
    const cycles = Math.ceil(1_000_000 / 86_000);
    expect(step?.errors).toEqual({ modelError: cycles, throttled: cycles - 1, timeout: 0, clientError: 0 });
    expect(step?.errorSamples.filter((sample) => sample.kind === 'model-error')).toHaveLength(3);
    expect(step?.errorSamples[0]).toEqual({
      kind: 'model-error',
      statusCode: 500,
      message: `${'x'.repeat(300)}… (700 more characters)`,
    });
    expect(step?.errorRate).toBeCloseTo((2 * cycles - 1) / (step?.requests ?? 1), 6);
    expect(step?.slaBreaches).toEqual([
      `error rate ${(((2 * cycles - 1) / (step?.requests ?? 1)) * 100).toFixed(2)}% > SLA 10.00%`,
    ]);
  });

  it('counts a transport that throws as a client error', async () => {
    // Arrange
    const clock = new VirtualClock();
    let calls = 0;
    const transport: InvokeTransport = {
      invoke: async () => {
        calls++;
        await clock.sleepUntil(clock.nowUs() + 10_000);
        if (calls % 2 === 0) throw new TypeError('socket gone');
        return { kind: 'ok' };
      },
    };

    // Act
    const worker = await runLoadTest({
      plan: { steps: [1], warmupSeconds: 0, stepDurationSeconds: 1 },
      sla: LOOSE_SLA,
      transport,
      request: REQUEST,
      clock,
    });

    // Assert
    expect(worker.steps[0]?.errors.clientError).toBe(50);
    expect(worker.steps[0]?.errorSamples[0]?.message).toBe(
      'the transport threw instead of classifying: TypeError: socket gone',
    );
  });

  it('counts a transport that throws before returning its promise as a client error', async () => {
    // Arrange: every second call throws synchronously (a transport that is not an async function).
    const clock = new VirtualClock();
    let calls = 0;
    const transport: InvokeTransport = {
      invoke: () => {
        calls++;
        if (calls % 2 === 0) throw new TypeError('no socket');
        return clock.sleepUntil(clock.nowUs() + 10_000).then(() => ({ kind: 'ok' as const }));
      },
    };

    // Act
    const worker = await runLoadTest({
      plan: { steps: [1], warmupSeconds: 0, stepDurationSeconds: 1 },
      sla: LOOSE_SLA,
      transport,
      request: REQUEST,
      clock,
    });

    // Assert: 100 requests of 10 ms, each but the last followed at once by a refusal (the last ends
    // with the window, where nothing starts).
    expect(worker.steps[0]?.ok).toBe(100);
    expect(worker.steps[0]?.errors.clientError).toBe(99);
    expect(worker.steps[0]?.errorSamples[0]?.message).toBe(
      'the transport threw instead of classifying: TypeError: no socket',
    );
  });

  it('reports progress about once a second with the phase of the step', async () => {
    // Arrange
    const events: LoadTestProgress[] = [];

    // Act
    await runSingle(
      { steps: [2], warmupSeconds: 2, stepDurationSeconds: 3 },
      (clock) => new ScriptedTransport(clock, () => ({ latencyUs: 10_000 })),
      LOOSE_SLA,
      { onProgress: (event) => events.push(event) },
    );

    // Assert
    expect(events.map((event) => event.phase)).toEqual(['warmup', 'measure', 'measure', 'measure', 'drain']);
    expect(events.map((event) => event.secondsIntoWindow)).toEqual([-1, 0, 1, 2, 3]);
    // 1 s into the window: 200 requests/s, give or take the two finishing at that very instant.
    expect(events[2]?.requests).toBeGreaterThanOrEqual(198);
    expect(events[2]?.requests).toBeLessThanOrEqual(200);
    expect(events[2]?.tps).toBeGreaterThanOrEqual(198);
    expect(events[2]?.p95Ms).toBeCloseTo(10, 1);
  });

  it('reports each step’s final figures over its whole window when the step ends, once', async () => {
    // Arrange: steps 1 and 2 of 2.5 s windows: the ticks fall mid-window at the end of step 1.
    const events: LoadTestProgress[] = [];

    // Act
    await runSingle(
      { steps: [1, 2], warmupSeconds: 0, stepDurationSeconds: 2.5 },
      (clock) => new ScriptedTransport(clock, () => ({ latencyUs: 10_000 })),
      LOOSE_SLA,
      { onProgress: (event) => events.push(event) },
    );

    // Assert: one drain per step, over the whole 2.5 s window: the requests finishing at its very end
    // (1, then 2) not counted as completed: 249 ÷ 2.5 s and 498 ÷ 2.5 s.
    const drains = events.filter((event) => event.phase === 'drain');
    expect(drains.map((event) => [event.stepIndex, event.requests, event.tps])).toEqual([
      [0, 250, 99.6],
      [1, 498, 199.2],
    ]);
  });
});
