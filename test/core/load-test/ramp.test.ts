import { describe, expect, it } from '@jest/globals';
import { aggregateWorkerResults } from '../../../core/load-test/aggregate.js';
import { runLoadTest } from '../../../core/load-test/engine.js';
import { rampGrid } from '../../../core/load-test/open-model.js';
import type { InvokeRequest, InvokeTransport } from '../../../core/load-test/ports.js';
import type { WorkerResult } from '../../../core/load-test/results.js';
import { combineSegments } from '../../../core/load-test/segments.js';
import { InvalidRunInputError } from '../../../core/contracts/errors.js';
import { ScriptedTransport, SlotServer } from '../../../bench/support/stub-transports.js';
import { VirtualClock } from './support/virtual-clock.js';
import { parseLoadPlan, type LoadPlan, type LoadPlanInput } from '../../../core/contracts/load-plan.js';
import { parseSla } from '../../../core/contracts/latency-sla.js';

const REQUEST: InvokeRequest = { body: new Uint8Array([1]), contentType: 'application/octet-stream' };
const LOOSE_SLA = parseSla({ p99LatencyMs: 100_000 });

/** 10 → 30 requests/s over a 10 s window after a 2 s warm-up at 10/s: 20 buckets of 0.5 s. */
const RAMP: LoadPlanInput = {
  model: 'open',
  steps: [30],
  ramp: { fromTps: 10 },
  warmupSeconds: 2,
  stepDurationSeconds: 10,
};

/** Arrivals of the ramp by τ seconds into the window: ∫ (10 + 2τ) = 10τ + τ². */
function rampArrivalsBy(tau: number): number {
  return 10 * tau + tau * tau;
}

function expectWithinResolution(actualMs: number | undefined, expectedMs: number): void {
  expect(actualMs).toBeGreaterThanOrEqual(expectedMs);
  expect(actualMs).toBeLessThanOrEqual(expectedMs * 1.001);
}

async function runRamp(
  planInput: LoadPlanInput,
  transport: (clock: VirtualClock) => InvokeTransport,
  workerIndex = 0,
): Promise<WorkerResult> {
  const clock = new VirtualClock();
  const plan = parseLoadPlan(planInput);
  return runLoadTest({
    plan,
    sla: LOOSE_SLA,
    transport: transport(clock),
    request: REQUEST,
    clock,
    workerIndex,
  });
}

function issuesOf(input: LoadPlanInput): unknown {
  try {
    parseLoadPlan(input);
  } catch (error) {
    if (error instanceof InvalidRunInputError) return error.issues;
    throw error;
  }
  return [];
}

describe('rampGrid', () => {
  it('schedules the warm-up at the start rate, then the ramp’s integral, one arrival per whole count', () => {
    // Prepare
    const grid = rampGrid({ fromPerSecond: 10, toPerSecond: 30, rampStartUs: 2_000_000, rampUs: 10_000_000 });

    // Act
    const offsets = [0, 19, 20, 44, 219].map((index) => grid.offsetUs(index));

    // Assert: arrival 20 opens the ramp; 20 + 10τ + τ² = 44 at τ = 2 s; 220 arrivals before the end.
    expect(offsets[0]).toBe(0);
    expect(offsets[1]).toBeCloseTo(1_900_000, 3);
    expect(offsets[2]).toBeCloseTo(2_000_000, 3);
    expect(offsets[3]).toBeCloseTo(4_000_000, 3);
    expect(grid.before(12_000_000)).toBe(220);
    expect(offsets[4]).toBeLessThan(12_000_000);
  });

  it('starts a ramp from zero with its first arrival at the ramp’s start, not at NaN', () => {
    // Prepare
    const grid = rampGrid({ fromPerSecond: 0, toPerSecond: 20, rampStartUs: 1_000_000, rampUs: 2_000_000 });

    // Act
    const first = grid.offsetUs(0);
    const fifth = grid.offsetUs(4);

    // Assert: N(τ) = 5τ², so the arrival numbered 4 comes at τ = √0.8 s.
    expect(first).toBe(1_000_000);
    expect(fifth).toBeCloseTo(1_000_000 + Math.sqrt(0.8) * 1_000_000, 3);
    expect(grid.before(1_000_000)).toBe(0);
    expect(grid.before(3_000_000)).toBe(20);
  });
});

describe('runLoadTest, ramp step', () => {
  it('offers the ramp’s rate bucket by bucket and records each arrival’s outcome there', async () => {
    // Act
    const worker = await runRamp(RAMP, (clock) => new ScriptedTransport(clock, () => ({ latencyUs: 5_000 })));
    const result = aggregateWorkerResults([worker], LOOSE_SLA, parseLoadPlan(RAMP));

    // Assert: bucket i holds the arrivals of [0.5 i, 0.5 (i + 1)) s of the ramp.
    const offered = Array.from(
      { length: 20 },
      (_, index) => Math.ceil(rampArrivalsBy((index + 1) / 2)) - Math.ceil(rampArrivalsBy(index / 2)),
    );
    const [step] = result.steps;
    expect(step?.requests).toBe(200);
    expect(step?.timeline?.map((bucket) => bucket.offeredTps)).toEqual(offered.map((count) => count * 2));
    expect(step?.timeline?.map((bucket) => bucket.requests)).toEqual(offered);
    expect(step?.timeline?.[0]?.fromSeconds).toBe(0);
    expect(step?.timeline?.[19]?.fromSeconds).toBe(9.5);
    expect(step?.timeline?.every((bucket) => bucket.errors === 0 && bucket.dropped === 0)).toBe(true);
    expectWithinResolution(step?.timeline?.[10]?.latencyMs.p99, 5);
  });

  it('times each arrival from its scheduled start, so a 1 s stall shows in the buckets it held', async () => {
    // Prepare: the server holds everything that starts in [4 s, 5 s) of the window until 5 s.
    const stall = { fromUs: 6_000_000, toUs: 7_000_000 };

    // Act
    const worker = await runRamp(RAMP, (clock) => new SlotServer(clock, 1000, 2_000, [stall]));
    const [step] = aggregateWorkerResults([worker], LOOSE_SLA, parseLoadPlan(RAMP)).steps;

    // Assert: the arrival at τ = 4 s (10τ + τ² = 56) waited 1 s, bucket 9's first (the 66th, at
    // τ = 4.539 s) 461 ms; buckets 7 and 10 were not held.
    const ninthFirstTau = (-10 + Math.sqrt(100 + 4 * 66)) / 2;
    expect(step?.timeline?.[8]?.latencyMs.max).toBe(1002);
    expect(step?.timeline?.[9]?.latencyMs.max).toBeCloseTo((5 - ninthFirstTau) * 1000 + 2, 2);
    expectWithinResolution(step?.timeline?.[7]?.latencyMs.p99, 2);
    expectWithinResolution(step?.timeline?.[10]?.latencyMs.p99, 2);
  });

  it('counts a failed arrival in the bucket of its scheduled start, not of its end', async () => {
    // Prepare: calls 44..51 are the ramp's arrivals 24..31, all of [2 s, 2.5 s) (10τ + τ² from 24
    // to 31.25); they fail after 800 ms, so they end two buckets later.
    const failing = (call: number) =>
      call >= 44 && call <= 51
        ? { latencyUs: 800_000, outcome: { kind: 'model-error' as const, statusCode: 500, message: 'boom' } }
        : { latencyUs: 5_000 };

    // Act
    const worker = await runRamp(RAMP, (clock) => new ScriptedTransport(clock, failing));
    const [step] = aggregateWorkerResults([worker], LOOSE_SLA, parseLoadPlan(RAMP)).steps;

    // Assert
    expect(step?.timeline?.map((bucket) => bucket.errors)).toEqual(
      Array.from({ length: 20 }, (_, index) => (index === 4 ? 8 : 0)),
    );
    expect(step?.timeline?.[4]?.errorRate).toBe(1);
    expect(step?.errors.modelError).toBe(8);
  });

  it('gives the same timeline in segments as in one invocation', async () => {
    // Prepare: 1 → 4 requests/s over a 40-minute window, cut by 600 s segments.
    const plan: LoadPlan = parseLoadPlan({
      model: 'open',
      steps: [4],
      ramp: { fromTps: 1 },
      warmupSeconds: 60,
      stepDurationSeconds: 2400,
      maxTotalSeconds: 3000,
    });
    const latency = (call: number) => ({ latencyUs: call % 7 === 0 ? 40_000 : 5_000 });
    const whole = await runRamp(plan, (clock) => new ScriptedTransport(clock, latency));
    const clock = new VirtualClock();
    const stub = new ScriptedTransport(clock, latency);
    const parts: WorkerResult[] = [];
    for (let index = 0; ; index++) {
      const part = await runLoadTest({
        plan,
        sla: LOOSE_SLA,
        transport: stub,
        request: REQUEST,
        clock,
        startAtEpochMs: index === 0 ? clock.epochMs() : clock.epochMs() + 7_000,
        segment: { index, seconds: 600, previous: [...parts] },
      });
      parts.push(part);
      if (part.stoppedBecause !== 'segment-end') break;
    }

    // Act
    const segmented = aggregateWorkerResults([combineSegments(parts)], LOOSE_SLA, plan).steps[0];
    const single = aggregateWorkerResults([whole], LOOSE_SLA, plan).steps[0];

    // Assert
    expect(parts).toHaveLength(5);
    expect(segmented?.timeline).toEqual(single?.timeline);
    expect(segmented?.requests).toBe(6000);
  });

  it('merges workers’ buckets by adding histograms, not by averaging their percentiles', async () => {
    // Prepare: worker 0 answers in 5 ms, worker 1 in 50 ms: half of each bucket is slow.
    const plan = { ...RAMP, workers: 2 };
    const fast = await runRamp(
      plan,
      (clock) => new ScriptedTransport(clock, () => ({ latencyUs: 5_000 })),
      0,
    );
    const slow = await runRamp(
      plan,
      (clock) => new ScriptedTransport(clock, () => ({ latencyUs: 50_000 })),
      1,
    );

    // Act
    const [step] = aggregateWorkerResults([fast, slow], LOOSE_SLA, parseLoadPlan(plan)).steps;

    // Assert: the p95 of both workers' samples is the slow one's 50 ms (averaging would say 27.5).
    const bucket = step?.timeline?.[10];
    expectWithinResolution(bucket?.latencyMs.p95, 50);
    expectWithinResolution(bucket?.latencyMs.p50, 5);
    expect(bucket?.requests).toBe(
      (fast.steps[0]?.timeline?.[10]?.ok ?? 0) + (slow.steps[0]?.timeline?.[10]?.ok ?? 0),
    );
    expect(step?.requests).toBe(200);
  });

  it('leaves constant open steps without a timeline', async () => {
    // Act
    const worker = await runRamp(
      { model: 'open', steps: [10], warmupSeconds: 1, stepDurationSeconds: 2 },
      (clock) => new ScriptedTransport(clock, () => ({ latencyUs: 5_000 })),
    );

    // Assert
    expect(worker.steps[0]?.timeline).toBeUndefined();
  });
});

describe('loadPlan.ramp', () => {
  it('refuses a ramp in a closed-model plan', () => {
    expect(issuesOf({ steps: [8], ramp: { fromTps: 1 } })).toEqual([
      {
        field: 'loadPlan.model',
        given: '"closed"',
        expected: '"open" with a ramp: a ramp is an arrival rate rising over time',
      },
    ]);
  });

  it('refuses a start rate at or above the step’s rate', () => {
    expect(issuesOf({ model: 'open', steps: [30], ramp: { fromTps: 30 } })).toEqual([
      {
        field: 'loadPlan.ramp.fromTps',
        given: '30',
        expected: "below the step's rate (30 requests/s): the ramp rises from fromTps to the step's rate",
      },
    ]);
  });

  it('refuses a ramp with more than one step', () => {
    expect(issuesOf({ model: 'open', steps: [10, 30], ramp: { fromTps: 5 } })).toEqual([
      {
        field: 'loadPlan.steps',
        given: '[10,30]',
        expected: 'exactly one step with a ramp: the rate the ramp rises to',
      },
    ]);
  });

  it('refuses knee probes and repeats with a ramp', () => {
    expect(issuesOf({ model: 'open', steps: [30], ramp: { fromTps: 5 }, kneeProbes: 2, repeats: 3 })).toEqual(
      [
        {
          field: 'loadPlan.kneeProbes',
          given: '2',
          expected: '0 (or absent) with a ramp: a ramp has no knee to probe',
        },
        {
          field: 'loadPlan.repeats',
          given: '3',
          expected: '1 (or absent) with a ramp: a ramp is measured once',
        },
      ],
    );
  });

  it('refuses a negative start rate', () => {
    expect(issuesOf({ model: 'open', steps: [30], ramp: { fromTps: -1 } })).toEqual([
      { field: 'loadPlan.ramp.fromTps', given: '-1', expected: 'a number of at least 0' },
    ]);
  });
});
