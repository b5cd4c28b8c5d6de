import { describe, expect, it } from '@jest/globals';
import { aggregateWorkerResults, mergeWorkerSteps } from '../../../core/load-test/aggregate.js';
import {
  createLatencyHistogram,
  encodeHistogram,
  recordLatencyUs,
} from '../../../core/load-test/histogram.js';
import type { WorkerResult, WorkerStep } from '../../../core/load-test/results.js';
import { loadPlanSchema } from '../../../core/contracts/load-plan.js';
import { slaSchema } from '../../../core/contracts/latency-sla.js';

const SLA = slaSchema.parse({ p95LatencyMs: 500 });

function encoded(latenciesUs: readonly number[]): string {
  const histogram = createLatencyHistogram();
  for (const value of latenciesUs) recordLatencyUs(histogram, value);
  return encodeHistogram(histogram);
}

/** A worker's step over a 1 s window of 20 buckets of 50 ms, `perBucket` completions in each. */
function workerStep(overrides: Partial<WorkerStep> = {}, perBucket = 10): WorkerStep {
  const latencies = Array.from({ length: 200 }, () => 20_000);
  return {
    stepIndex: 0,
    load: 8,
    workerLoad: 4,
    windowStartEpochMs: 1_000,
    windowMs: 1000,
    activeFromMs: 0,
    activeToMs: 1000,
    bucketMs: 50,
    okPerBucket: new Array<number>(20).fill(perBucket),
    requests: 200,
    ok: 200,
    errors: { modelError: 0, throttled: 0, timeout: 0, clientError: 0 },
    errorSamples: [],
    late: 0,
    dropped: 0,
    histogram: encoded(latencies),
    maxLatencyUs: 20_000,
    ...overrides,
  };
}

function workerResult(
  workerIndex: number,
  steps: WorkerStep[],
  overrides: Partial<WorkerResult> = {},
): WorkerResult {
  return {
    schemaVersion: 1,
    workerIndex,
    workers: 2,
    model: 'closed',
    startEpochMs: 0,
    finishedEpochMs: 2_000,
    steps,
    stoppedBecause: 'completed',
    stopDetail: 'all 2 steps ran',
    ...overrides,
  };
}

describe('mergeWorkerSteps', () => {
  it("adds the workers' histograms: percentiles of all requests, not averages", () => {
    // Arrange: worker A answers in 10 ms, worker B in 1 s, 100 requests each.
    const fast = workerStep({
      histogram: encoded(new Array<number>(100).fill(10_000)),
      requests: 100,
      maxLatencyUs: 10_000,
    });
    const slow = workerStep({
      histogram: encoded(new Array<number>(100).fill(1_000_000)),
      requests: 100,
      maxLatencyUs: 1_000_000,
    });

    // Act
    const merged = mergeWorkerSteps([fast, slow], SLA, 'closed');

    // Assert: half the requests took 1 s, so p50 is 10 ms and p90 is 1 s (an average would say 505 ms).
    expect(merged.latencyMs.p50).toBeCloseTo(10, 1);
    expect(merged.latencyMs.p90).toBe(1000);
    expect(merged.latencyMs.max).toBe(1000);
    expect(merged.requests).toBe(200);
    expect(merged.workers).toBe(2);
  });

  it('computes throughput over the part of the window every worker covered, prorating split buckets', () => {
    // Arrange: B joined 125 ms into the window, halfway through bucket 2; 10 completions per full
    // bucket each, 5 in B's half bucket. Common window 875 ms: A 5 + 17 × 10, B 5 + 17 × 10.
    const a = workerStep();
    const b = workerStep({ activeFromMs: 125, okPerBucket: [0, 0, 5, ...new Array<number>(17).fill(10)] });

    // Act
    const merged = mergeWorkerSteps([a, b], SLA, 'closed');

    // Assert
    expect(merged.windowSeconds).toBe(0.875);
    expect(merged.tps).toBe(400);
  });

  it("takes a single worker's window as it is, so its throughput is exact", () => {
    // Arrange: a request cap closed the window at 130 ms; 33 completions before that.
    const capped = workerStep({
      activeToMs: 130,
      okPerBucket: [13, 13, 7, ...new Array<number>(17).fill(0)],
    });

    // Act
    const merged = mergeWorkerSteps([capped], SLA, 'closed');

    // Assert
    expect(merged.windowSeconds).toBe(0.13);
    expect(merged.tps).toBeCloseTo(33 / 0.13, 3);
  });

  it('adds error counts and counts dropped starts as failures', () => {
    // Arrange
    const a = workerStep({
      errors: { modelError: 2, throttled: 1, timeout: 0, clientError: 0 },
      requests: 100,
    });
    const b = workerStep({
      errors: { modelError: 0, throttled: 3, timeout: 1, clientError: 0 },
      requests: 98,
      dropped: 2,
    });

    // Act
    const merged = mergeWorkerSteps(
      [a, b],
      slaSchema.parse({ p95LatencyMs: 500, maxErrorRate: 0.05 }),
      'open',
    );

    // Assert: (7 errors + 2 dropped) / (198 + 2).
    expect(merged.errors).toEqual({ modelError: 2, throttled: 4, timeout: 1, clientError: 0 });
    expect(merged.errorRate).toBe(0.045);
    expect(merged.dropped).toBe(2);
    expect(merged.loadKind).toBe('arrival-rate');
  });

  it('fails the SLA when the workers never ran the step at the same time', () => {
    // Arrange
    const early = workerStep({ activeToMs: 400 });
    const late = workerStep({ activeFromMs: 600 });

    // Act
    const merged = mergeWorkerSteps([early, late], SLA, 'closed');

    // Assert
    expect(merged.tps).toBe(0);
    expect(merged.slaBreaches).toEqual([
      'no measurement window: the workers never ran this step at the same time',
    ]);
  });
});

describe('aggregateWorkerResults', () => {
  const plan = loadPlanSchema.parse({ steps: [8, 16], workers: 2, warmupSeconds: 0, stepDurationSeconds: 1 });

  it('reports only the steps every worker ran, and why the short one stopped', () => {
    // Arrange: worker 1 ran out of time after step 1.
    const second = workerStep({ stepIndex: 1, load: 16 });
    const results = [
      workerResult(0, [workerStep(), second]),
      workerResult(1, [workerStep()], { stoppedBecause: 'deadline', stopDetail: 'the deadline came' }),
    ];

    // Act
    const result = aggregateWorkerResults(results, SLA, plan);

    // Assert
    expect(result.steps.map((step) => step.load)).toEqual([8]);
    expect(result.stoppedBecause).toBe('deadline');
    expect(result.stopDetail).toBe(
      'worker 1: the deadline came; 1 step(s) run by only some workers are left out (the endpoint did not get their full load)',
    );
    expect(result.sustainableTps).toBe(400);
    expect(result.sustainableStep).toBe(8);
  });

  it("says whether the sustainable throughput reaches the SLA's target", () => {
    // Arrange
    const results = [workerResult(0, [workerStep()]), workerResult(1, [workerStep()])];

    // Act
    const reached = aggregateWorkerResults(
      results,
      slaSchema.parse({ p95LatencyMs: 500, targetTps: 400 }),
      plan,
    );
    const missed = aggregateWorkerResults(
      results,
      slaSchema.parse({ p95LatencyMs: 500, targetTps: 401 }),
      plan,
    );

    // Assert
    expect(reached.meetsTargetTps).toBe(true);
    expect(missed.meetsTargetTps).toBe(false);
  });

  it('fails when the results come from runs with different start times', () => {
    // Arrange
    const results = [workerResult(0, [workerStep()]), workerResult(1, [workerStep()], { startEpochMs: 5 })];

    // Act / Assert
    expect(() => aggregateWorkerResults(results, SLA, plan)).toThrow(
      "worker results come from different runs: expected one start time and model 'closed', got starts [0, 5] and models [closed]",
    );
  });
});
