import { describe, expect, it } from '@jest/globals';
import { aggregateLoadTest } from '../../../../core/steps/optimization/aggregate-load-test.js';
import type { AggregateLoadTestEvent } from '../../../../core/contracts/optimization-state.js';
import {
  createLatencyHistogram,
  encodeHistogram,
  recordLatencyUs,
} from '../../../../core/load-test/histogram.js';
import { lateWorkers } from '../../../../core/load-test/late-start.js';
import type { WorkerResult, WorkerStep } from '../../../../core/load-test/results.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';
import { loadPlanSchema } from '../../../../core/contracts/load-plan.js';
import { slaSchema } from '../../../../core/contracts/latency-sla.js';

const PLAN = loadPlanSchema.parse({
  model: 'closed',
  steps: [2],
  workers: 2,
  warmupSeconds: 0,
  stepDurationSeconds: 1,
  // No rounds: test/core/steps/optimization/aggregate-load-test-rounds.test.ts has them.
  repeats: 1,
});

/** Worker `workerIndex`'s only step: a 1 s window, joined `activeFromMs` after it opened. */
function workerResult(workerIndex: number, activeFromMs: number): WorkerResult {
  const histogram = createLatencyHistogram();
  for (let i = 0; i < 100; i++) recordLatencyUs(histogram, 5_000);
  const step: WorkerStep = {
    stepIndex: 0,
    load: 2,
    workerLoad: 1,
    windowStartEpochMs: 1_000,
    windowMs: 1000,
    activeFromMs,
    activeToMs: 1000,
    bucketMs: 50,
    okPerBucket: new Array<number>(20).fill(5),
    requests: 100,
    ok: 100,
    errors: { modelError: 0, throttled: 0, timeout: 0, clientError: 0 },
    errorSamples: [],
    late: 0,
    dropped: 0,
    histogram: encodeHistogram(histogram),
    maxLatencyUs: 5_000,
  };
  return {
    schemaVersion: 1,
    workerIndex,
    workers: 2,
    model: 'closed',
    startEpochMs: 1_000,
    finishedEpochMs: 2_000,
    steps: [step],
    stoppedBecause: 'completed',
    stopDetail: 'all 1 steps ran',
  };
}

async function aggregate(
  lateness: readonly [number, number],
  deployment: AggregateLoadTestEvent['deployment'] = {},
  loadTestReruns?: number,
): Promise<Awaited<ReturnType<typeof aggregateLoadTest>>> {
  const store = new MemoryObjectStore();
  const workers = lateness.map((activeFromMs, workerIndex) => {
    const resultUri = `s3://mso-artifacts/runs/r/load-tests/cpu/worker-${workerIndex}.json`;
    store.seed(resultUri, JSON.stringify(workerResult(workerIndex, activeFromMs)));
    return { workerIndex, resultUri, stoppedBecause: 'completed' };
  });
  return aggregateLoadTest(
    {
      plan: {
        ...(loadTestReruns === undefined ? {} : { loadTestReruns }),
        runId: 'r',
        artifactsBucket: 'mso-artifacts',
        loadPlan: PLAN,
        sla: slaSchema.parse({ p95LatencyMs: 50 }),
      },
      candidateId: 'cpu',
      workers,
      deployment,
    },
    { store, logger: silentLogger },
  );
}

describe('lateWorkers', () => {
  it('counts a worker late past a tenth of the first window, with a 250 ms floor', () => {
    // Prepare: a 1 s window, so the floor decides: 250 ms.
    const results = [workerResult(0, 250), workerResult(1, 251)];

    // Act
    const late = lateWorkers(results, PLAN);

    // Assert
    expect(late).toEqual([{ workerIndex: 1, lateMs: 251 }]);
  });
});

describe('aggregateLoadTest', () => {
  it('reports the candidate measured when every worker joined on time', async () => {
    // Act
    const outcome = await aggregate([0, 0]);

    // Assert
    expect(outcome).toEqual({
      candidateId: 'cpu',
      status: 'MEASURED',
      resultUri: 's3://mso-artifacts/runs/r/load-tests/cpu/result.json',
      sustainableTps: 200,
    });
  });

  it('asks for a re-run when a worker joined late the first time', async () => {
    // Act
    const outcome = await aggregate([0, 600]);

    // Assert
    expect(outcome).toMatchObject({
      status: 'RERUN',
      measurementProblem:
        'worker 1 joined step 1 600 ms into its 1000 ms window (started late, e.g. throttled by Lambda and retried), so the endpoint got less load than the steps state',
    });
  });

  it('reports a measurement problem when a worker is late on the re-run too', async () => {
    // Act
    const outcome = await aggregate([1000, 0], { loadTestRerun: true });

    // Assert
    expect(outcome).toMatchObject({
      status: 'MEASUREMENT_PROBLEM',
      resultUri: 's3://mso-artifacts/runs/r/load-tests/cpu/result.json',
      measurementProblem:
        "worker 0 missed step 1's whole window (started late, e.g. throttled by Lambda and retried), so the endpoint got less load than the steps state; the re-run had a late worker too",
    });
  });

  it('reports a measurement problem at once when the plan has no room for a re-run', async () => {
    // Act
    const outcome = await aggregate([0, 600], {}, 0);

    // Assert
    expect(outcome).toMatchObject({
      status: 'MEASUREMENT_PROBLEM',
      measurementProblem:
        "worker 1 joined step 1 600 ms into its 1000 ms window (started late, e.g. throttled by Lambda and retried), so the endpoint got less load than the steps state; not re-run: the run's worst-case history has no room for re-runs (fewer candidates or workers leave some)",
    });
  });
});

/** Half of worker `workerIndex`'s 1 s window: [0, 500) ms in segment 0 (cut), [500, 1000) in segment 1. */
function segmentResult(workerIndex: number, segmentIndex: 0 | 1): WorkerResult {
  const whole = workerResult(workerIndex, 0);
  const [step] = whole.steps;
  if (step === undefined) throw new Error('workerResult has a step');
  const histogram = createLatencyHistogram();
  for (let i = 0; i < 50; i++) recordLatencyUs(histogram, 5_000);
  const first = segmentIndex === 0;
  return {
    ...whole,
    startEpochMs: first ? 1_000 : 9_000,
    segmentIndex,
    requestsIssued: 50,
    steps: [
      {
        ...step,
        activeFromMs: first ? 0 : 500,
        activeToMs: first ? 500 : 1000,
        okPerBucket: step.okPerBucket.map((count, bucket) => (bucket < 10 === first ? count : 0)),
        requests: 50,
        ok: 50,
        histogram: encodeHistogram(histogram),
        ...(first ? { cutAtSegmentEnd: true as const } : {}),
      },
    ],
    stoppedBecause: first ? 'segment-end' : 'completed',
    stopDetail: first ? 'segment 1 ended 0.5 s into the schedule' : 'all 1 steps ran',
  };
}

async function aggregateSegment(segmentIndex: 0 | 1, store = new MemoryObjectStore()) {
  const workers = [0, 1].map((workerIndex) => {
    const resultUri = `s3://mso-artifacts/runs/r/load-tests/cpu/worker-${workerIndex}/segment-${segmentIndex}.json`;
    store.seed(resultUri, JSON.stringify(segmentResult(workerIndex, segmentIndex)));
    const { stoppedBecause } = segmentResult(workerIndex, segmentIndex);
    return { workerIndex, resultUri, stoppedBecause };
  });
  const outcome = await aggregateLoadTest(
    {
      plan: {
        runId: 'r',
        artifactsBucket: 'mso-artifacts',
        loadPlan: PLAN,
        sla: slaSchema.parse({ p95LatencyMs: 50 }),
      },
      candidateId: 'cpu',
      workers,
      deployment: segmentIndex === 0 ? {} : { loadSegment: { index: segmentIndex, startEpochMs: 9_000 } },
    },
    { store, logger: silentLogger, nowEpochMs: () => 5_000, loadStartDelaySeconds: 3 },
  );
  return { outcome, store };
}

describe('aggregateLoadTest with a load test in segments', () => {
  it('asks for the next segment, from a new shared start, while every worker paused at its end', async () => {
    // Act
    const { outcome } = await aggregateSegment(0);

    // Assert
    expect(outcome).toEqual({
      candidateId: 'cpu',
      status: 'NEXT_SEGMENT',
      nextSegment: { index: 1, startEpochMs: 8_000 },
    });
  });

  it("merges each worker's segments into whole steps once the schedule is over", async () => {
    // Prepare: segment 0's results, as the workers left them.
    const { store } = await aggregateSegment(0);

    // Act
    const { outcome } = await aggregateSegment(1, store);

    // Assert: 2 workers × (50 + 50) requests over the 1 s window, as one unsegmented run.
    expect(outcome).toEqual({
      candidateId: 'cpu',
      status: 'MEASURED',
      resultUri: 's3://mso-artifacts/runs/r/load-tests/cpu/result.json',
      sustainableTps: 200,
    });
    const result = JSON.parse(
      new TextDecoder().decode(await store.getBytes('s3://mso-artifacts/runs/r/load-tests/cpu/result.json')),
    ) as { steps: { requests: number; windowSeconds: number; workers: number }[] };
    expect(
      result.steps.map(({ requests, windowSeconds, workers }) => ({ requests, windowSeconds, workers })),
    ).toEqual([{ requests: 200, windowSeconds: 1, workers: 2 }]);
  });
});
