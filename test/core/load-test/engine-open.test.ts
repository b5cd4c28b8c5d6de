import { describe, expect, it } from '@jest/globals';
import { aggregateWorkerResults } from '../../../core/load-test/aggregate.js';
import { runLoadTest } from '../../../core/load-test/engine.js';
import type { InvokeRequest, InvokeTransport } from '../../../core/load-test/ports.js';
import { ScriptedTransport, SlotServer } from '../../../bench/support/stub-transports.js';
import { VirtualClock } from './support/virtual-clock.js';
import { parseLoadPlan, type LoadPlanInput } from '../../../core/contracts/load-plan.js';
import { parseSla, type LatencySlaInput } from '../../../core/contracts/latency-sla.js';

const REQUEST: InvokeRequest = { body: new Uint8Array([1]), contentType: 'application/octet-stream' };
const LOOSE_SLA: LatencySlaInput = { p99LatencyMs: 100_000 };

function expectWithinResolution(actualMs: number | undefined, expectedMs: number): void {
  expect(actualMs).toBeGreaterThanOrEqual(expectedMs);
  expect(actualMs).toBeLessThanOrEqual(expectedMs * 1.001);
}

async function runOpen(
  planInput: LoadPlanInput,
  transport: (clock: VirtualClock) => InvokeTransport,
  slaInput = LOOSE_SLA,
) {
  const clock = new VirtualClock();
  const plan = parseLoadPlan({ model: 'open', ...planInput });
  const sla = parseSla(slaInput);
  const worker = await runLoadTest({ plan, sla, transport: transport(clock), request: REQUEST, clock });
  return aggregateWorkerResults([worker], sla, plan);
}

/** Nearest-rank percentile of exact values: the smallest with at least p % at or below it. */
function exactPercentile(values: readonly number[], percentile: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil((percentile / 100) * sorted.length) - 1] ?? Number.NaN;
}

describe('runLoadTest, open model', () => {
  it('issues exactly rate × window requests on schedule', async () => {
    // Act
    const result = await runOpen(
      { steps: [100], warmupSeconds: 1, stepDurationSeconds: 2 },
      (clock) => new ScriptedTransport(clock, () => ({ latencyUs: 5_000 })),
    );

    // Assert
    const [step] = result.steps;
    expect(step?.requests).toBe(200);
    expect(step?.tps).toBe(100);
    expect(step?.late).toBe(0);
    expect(step?.dropped).toBe(0);
    expect(step?.loadKind).toBe('arrival-rate');
    expectWithinResolution(step?.latencyMs.p99, 5);
  });

  it('times each request from its scheduled start, so a 1 s stall shows in every request it held', async () => {
    // Arrange: 100 requests/s, 2 ms service, window from 1 s to 11 s; the server stalls from 5 s to
    // 6 s, holding every request that arrives meanwhile until 6 s.
    const stall = { fromUs: 5_000_000, toUs: 6_000_000 };
    const expected = Array.from({ length: 1000 }, (_, index) => {
      const scheduledUs = 1_000_000 + index * 10_000;
      const startUs = scheduledUs >= stall.fromUs && scheduledUs < stall.toUs ? stall.toUs : scheduledUs;
      return (startUs + 2_000 - scheduledUs) / 1000;
    });

    // Act
    const result = await runOpen(
      { steps: [100], warmupSeconds: 1, stepDurationSeconds: 10 },
      (clock) => new SlotServer(clock, 1000, 2_000, [stall]),
    );

    // Assert: p95 502 ms, p99 902 ms, max 1002 ms (the 100 held requests waited 1000 .. 10 ms).
    const [step] = result.steps;
    expect(step?.requests).toBe(1000);
    expectWithinResolution(step?.latencyMs.p95, exactPercentile(expected, 95));
    expectWithinResolution(step?.latencyMs.p99, exactPercentile(expected, 99));
    expectWithinResolution(step?.latencyMs.max, 1002);
    expect(exactPercentile(expected, 99)).toBe(902);
  });

  it('shows what it corrects: a closed loop against the same stall sees one slow request', async () => {
    // Arrange: one request in flight; only the request caught by the stall waits.
    const clock = new VirtualClock();
    const plan = parseLoadPlan({ steps: [1], warmupSeconds: 1, stepDurationSeconds: 10 });

    // Act
    const worker = await runLoadTest({
      plan,
      sla: LOOSE_SLA,
      transport: new SlotServer(clock, 1, 2_000, [{ fromUs: 5_000_000, toUs: 6_000_000 }]),
      request: REQUEST,
      clock,
    });

    // Assert
    const step = aggregateWorkerResults([worker], parseSla(LOOSE_SLA), plan).steps[0];
    expectWithinResolution(step?.latencyMs.p99, 2);
    expect(step?.latencyMs.max).toBeGreaterThan(990);
  });

  it('counts starts it could not issue on time as late and still times them from their schedule', async () => {
    // Arrange: one request in flight at most; arrivals every 20 ms; each takes 30 ms. Arrival i is
    // issued at 30·i ms (lateness 10·i ms) and done at 30·(i + 1) ms: latency 30 + 10·i ms.
    const plan = { steps: [50], warmupSeconds: 0, stepDurationSeconds: 2, maxInFlight: 1 };

    // Act
    const result = await runOpen(plan, (clock) => new SlotServer(clock, 1, 30_000));

    // Assert
    const [step] = result.steps;
    expect(step?.requests).toBe(100);
    expect(step?.late).toBe(98); // lateness 20 ms and more, from i = 2, exceeds the 10 ms tolerance
    expect(step?.dropped).toBe(0);
    expectWithinResolution(step?.latencyMs.p50, 30 + 10 * 49);
    expectWithinResolution(step?.latencyMs.max, 30 + 10 * 99);
    expect(step?.tps).toBe(33); // completions at 30, 60, .. 1980 ms: 66 in the 2 s window
  });

  it('drops starts that waited longer than the request timeout, and counts every one of them', async () => {
    // Arrange: 2 arrivals per second for 200 s, one request in flight, 1 s each: the backlog grows
    // by one per second until waiting arrivals pass the 61 s timeout.
    const plan = {
      steps: [2],
      warmupSeconds: 0,
      stepDurationSeconds: 200,
      maxInFlight: 1,
      requestTimeoutMs: 61_000,
    };

    // Act
    const result = await runOpen(plan, (clock) => new SlotServer(clock, 1, 1_000_000));

    // Assert
    const [step] = result.steps;
    expect((step?.requests ?? 0) + (step?.dropped ?? 0)).toBe(400);
    expect(step?.dropped).toBeGreaterThan(0);
    expect(step?.errorRate).toBeCloseTo((step?.dropped ?? 0) / 400, 6);
    expect(step?.meetsSla).toBe(false);
    expect(step?.slaBreaches).toContain(
      `${step?.dropped} of 400 scheduled requests dropped: they waited longer than the request timeout for a free connection`,
    );
    expect(step?.latencyMs.max).toBeLessThanOrEqual(61_000 + 1000 + 61);
  });
});
