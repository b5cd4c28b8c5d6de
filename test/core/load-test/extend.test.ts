import { describe, expect, it } from '@jest/globals';
import { aggregateWorkerResults } from '../../../core/load-test/aggregate.js';
import { runLoadTest } from '../../../core/load-test/engine.js';
import {
  connectionsPerWorker,
  loadTestSeconds,
  plannedDurationSeconds,
  scheduledLoads,
  segmentCount,
} from '../../../core/load-test/plan.js';
import type { InvokeRequest, InvokeTransport } from '../../../core/load-test/ports.js';
import { type InputIssue, InvalidRunInputError } from '../../../core/contracts/errors.js';
import { SlotServer } from '../../../bench/support/stub-transports.js';
import { VirtualClock } from './support/virtual-clock.js';
import { parseLoadPlan, type LoadPlanInput } from '../../../core/contracts/load-plan.js';
import { parseSla, type LatencySlaInput } from '../../../core/contracts/latency-sla.js';

const REQUEST: InvokeRequest = { body: new Uint8Array([1]), contentType: 'application/json' };

async function runSingle(
  planInput: LoadPlanInput,
  transport: (clock: VirtualClock) => InvokeTransport,
  slaInput: LatencySlaInput,
) {
  const clock = new VirtualClock();
  const plan = parseLoadPlan(planInput);
  const sla = parseSla(slaInput);
  const worker = await runLoadTest({ plan, sla, transport: transport(clock), request: REQUEST, clock });
  return aggregateWorkerResults([worker], sla, plan);
}

function planIssues(input: unknown): readonly InputIssue[] {
  try {
    parseLoadPlan(input);
    return [];
  } catch (error) {
    if (error instanceof InvalidRunInputError) return error.issues;
    throw error;
  }
}

describe('extending a load plan until the candidate saturates', () => {
  it('schedules doublings of the last step up to 8 × it by default', () => {
    // Act
    const loads = scheduledLoads(parseLoadPlan({ steps: [1, 2], extendUntilSaturated: true }));

    // Assert
    expect(loads).toEqual([1, 2, 4, 8, 16]);
  });

  it('ends the extension at maxLoad when doubling would pass it', () => {
    // Act
    const loads = scheduledLoads(parseLoadPlan({ steps: [1, 2], extendUntilSaturated: true, maxLoad: 10 }));

    // Assert
    expect(loads).toEqual([1, 2, 4, 8, 10]);
  });

  it('schedules the planned steps only when extension is off (absent)', () => {
    // Act
    const loads = scheduledLoads(parseLoadPlan({ steps: [1, 2], maxLoad: 10 }));

    // Assert
    expect(loads).toEqual([1, 2]);
  });

  it('counts the extension steps in the worst-case duration and the connections', () => {
    // Prepare: 5 scheduled steps of 1 s warm-up + 5 s window; the largest load is 16.
    const plan = parseLoadPlan({
      steps: [1, 2],
      extendUntilSaturated: true,
      warmupSeconds: 1,
      stepDurationSeconds: 5,
    });

    // Act
    const seconds = plannedDurationSeconds(plan);
    const connections = connectionsPerWorker(plan);

    // Assert
    expect(seconds).toBe(30);
    expect(connections).toBe(16);
  });

  it('plans the extension steps’ worst case for the load test time and its segments', () => {
    // Prepare: 5 scheduled steps of 1 s warm-up + 299 s window = 1500 s, under maxTotalSeconds.
    const plan = parseLoadPlan({
      steps: [1, 2],
      extendUntilSaturated: true,
      warmupSeconds: 1,
      stepDurationSeconds: 299,
      maxTotalSeconds: 3600,
    });

    // Act
    const seconds = loadTestSeconds(plan);
    const segments = segmentCount(plan, 775);

    // Assert: without the extension, 600 s in 1 segment.
    expect(seconds).toBe(1500);
    expect(segments).toBe(2);
  });

  it('refuses a maxLoad not above the last step', () => {
    // Act
    const issues = planIssues({ steps: [1, 8], extendUntilSaturated: true, maxLoad: 8 });

    // Assert
    expect(issues).toEqual([
      { field: 'loadPlan.maxLoad', given: '8', expected: 'more than the last step (8) and at most 10000' },
    ]);
  });

  it('runs extension steps while every step meets the SLA, and stops them at the plateau', async () => {
    // Prepare: 4 slots of 10 ms (capacity 400 requests/s); the planned steps 1, 2 stay below it.
    const plan = { steps: [1, 2], extendUntilSaturated: true, warmupSeconds: 1, stepDurationSeconds: 5 };

    // Act
    const result = await runSingle(plan, (clock) => new SlotServer(clock, 4, 10_000), { p95LatencyMs: 1000 });

    // Assert: 4 reaches the capacity, 8 adds nothing: saturated at 400 TPS.
    expect(result.steps.map((step) => step.load)).toEqual([1, 2, 4, 8]);
    expect(result.steps.map((step) => step.tps)).toEqual([100, 200, 400, 400]);
    expect(result.stoppedBecause).toBe('plateau');
    expect(result.sustainableTps).toBe(400);
  });

  it('stops extension steps at the first that misses the SLA', async () => {
    // Prepare: beyond 4 in flight requests queue: 8 → 20 ms, over the 15 ms SLA.
    const plan = {
      steps: [1, 2],
      extendUntilSaturated: true,
      stopAtPlateau: false,
      warmupSeconds: 1,
      stepDurationSeconds: 5,
    };

    // Act
    const result = await runSingle(plan, (clock) => new SlotServer(clock, 4, 10_000), { p95LatencyMs: 15 });

    // Assert
    expect(result.steps.map((step) => step.load)).toEqual([1, 2, 4, 8]);
    expect(result.steps.map((step) => step.meetsSla)).toEqual([true, true, true, false]);
    expect(result.stoppedBecause).toBe('sla-breached');
    expect(result.sustainableStep).toBe(4);
  });

  it('runs no extension step once a planned step missed the SLA', async () => {
    // Prepare
    const plan = {
      steps: [4, 8],
      extendUntilSaturated: true,
      stopAtPlateau: false,
      warmupSeconds: 1,
      stepDurationSeconds: 5,
    };

    // Act
    const result = await runSingle(plan, (clock) => new SlotServer(clock, 4, 10_000), { p95LatencyMs: 15 });

    // Assert
    expect(result.steps.map((step) => step.load)).toEqual([4, 8]);
    expect(result.stoppedBecause).toBe('sla-breached');
  });

  it('says how far it extended when the candidate never saturated', async () => {
    // Prepare: 64 slots: even 8 in flight stay below the capacity.
    const plan = { steps: [1], extendUntilSaturated: true, warmupSeconds: 1, stepDurationSeconds: 5 };

    // Act
    const result = await runSingle(plan, (clock) => new SlotServer(clock, 64, 10_000), {
      p95LatencyMs: 1000,
    });

    // Assert
    expect(result.steps.map((step) => step.tps)).toEqual([100, 200, 400, 800]);
    expect(result.stoppedBecause).toBe('completed');
    expect(result.stopDetail).toBe(
      'all 4 steps ran, 3 of them extension steps up to load 8, without saturating',
    );
  });
});
