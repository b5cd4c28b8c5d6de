import { describe, expect, it } from '@jest/globals';
import { aggregateLoadTest } from '../../../../core/steps/optimization/aggregate-load-test.js';
import type { DeploymentState, LoadRoundStart } from '../../../../core/contracts/optimization-state.js';
import {
  createLatencyHistogram,
  encodeHistogram,
  recordLatencyUs,
} from '../../../../core/load-test/histogram.js';
import type { LoadTestResult, WorkerResult } from '../../../../core/load-test/results.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';
import { type LoadPlan, loadPlanSchema } from '../../../../core/contracts/load-plan.js';
import { slaSchema } from '../../../../core/contracts/latency-sla.js';

const PLAN = loadPlanSchema.parse({
  model: 'closed',
  steps: [4, 8],
  workers: 2,
  warmupSeconds: 0,
  stepDurationSeconds: 1,
});
const RESULT_URI = 's3://mso-artifacts/runs/r/load-tests/cpu/result.json';

/** One worker's step at `load` (its half), p95 `latencyMs`, 10 completions per request in flight. */
function workerStep(stepIndex: number, load: number, latencyMs: number, activeFromMs = 0) {
  const histogram = createLatencyHistogram();
  const ok = load * 5;
  for (let i = 0; i < ok; i++) recordLatencyUs(histogram, latencyMs * 1000);
  return {
    stepIndex,
    load,
    workerLoad: load / 2,
    windowStartEpochMs: 1_000 + stepIndex * 1000,
    windowMs: 1000,
    activeFromMs,
    activeToMs: 1000,
    bucketMs: 1000,
    okPerBucket: [ok],
    requests: ok,
    ok,
    errors: { modelError: 0, throttled: 0, timeout: 0, clientError: 0 },
    errorSamples: [],
    late: 0,
    dropped: 0,
    histogram: encodeHistogram(histogram),
    maxLatencyUs: latencyMs * 1000,
  };
}

function workerResult(workerIndex: number, steps: WorkerResult['steps'], startEpochMs = 1_000): WorkerResult {
  return {
    schemaVersion: 1,
    workerIndex,
    workers: 2,
    model: 'closed',
    startEpochMs,
    finishedEpochMs: startEpochMs + steps.length * 1000,
    steps,
    stoppedBecause: 'completed',
    stopDetail: 'scripted',
  };
}

function aggregate(
  store: MemoryObjectStore,
  results: readonly WorkerResult[],
  loadRound?: LoadRoundStart,
  options: { readonly loadPlan?: LoadPlan; readonly deployment?: Partial<DeploymentState> } = {},
): ReturnType<typeof aggregateLoadTest> {
  const workers = results.map((result) => {
    const resultUri = `s3://mso-artifacts/runs/r/load-tests/cpu/worker-${result.workerIndex}/${loadRound === undefined ? 'segment-0' : `round-${loadRound.index}`}.json`;
    store.seed(resultUri, JSON.stringify(result));
    return { workerIndex: result.workerIndex, resultUri, stoppedBecause: result.stoppedBecause };
  });
  return aggregateLoadTest(
    {
      plan: {
        runId: 'r',
        artifactsBucket: 'mso-artifacts',
        loadPlan: options.loadPlan ?? PLAN,
        sla: slaSchema.parse({ p95LatencyMs: 50 }),
      },
      candidateId: 'cpu',
      workers,
      deployment: { ...options.deployment, ...(loadRound === undefined ? {} : { loadRound }) },
    },
    { store, logger: silentLogger, nowEpochMs: () => 5_000, loadStartDelaySeconds: 2 },
  );
}

function storedResult(store: MemoryObjectStore): LoadTestResult {
  const object = store.objects.get(RESULT_URI);
  if (object === undefined) throw new Error('no result stored');
  return JSON.parse(new TextDecoder().decode(object.body)) as LoadTestResult;
}

describe('aggregateLoadTest with rounds', () => {
  it('asks for a knee probe halfway between the last step that met the SLA and the breach', async () => {
    // Prepare: both workers: 4 in flight at 10 ms, 8 at 90 ms (SLA p95 50 ms).
    const store = new MemoryObjectStore();
    const steps = [workerStep(0, 4, 10), workerStep(1, 8, 90)];

    // Act
    const outcome = await aggregate(store, [workerResult(0, steps), workerResult(1, steps)]);

    // Assert
    expect(outcome).toEqual({
      candidateId: 'cpu',
      status: 'NEXT_ROUND',
      nextRound: { index: 0, kind: 'knee', load: 6, startEpochMs: 7_000 },
    });
  });

  it("merges a round's workers into one probe and asks for the next", async () => {
    // Prepare: the stepped result stored, then both workers met the SLA at 6.
    const store = new MemoryObjectStore();
    const steps = [workerStep(0, 4, 10), workerStep(1, 8, 90)];
    await aggregate(store, [workerResult(0, steps), workerResult(1, steps)]);
    const probe = [workerStep(0, 6, 20)];

    // Act
    const outcome = await aggregate(store, [workerResult(0, probe, 9_000), workerResult(1, probe, 9_000)], {
      index: 0,
      kind: 'knee',
      load: 6,
      startEpochMs: 9_000,
    });

    // Assert: 2 workers × 30 completions in 1 s; 7 is next.
    const stored = storedResult(store);
    expect([
      outcome.nextRound,
      stored.probes?.map((step) => [step.load, step.tps, step.meetsSla, step.workers]),
      stored.sustainableTps,
      stored.sustainableStep,
    ]).toEqual([{ index: 1, kind: 'knee', load: 7, startEpochMs: 7_000 }, [[6, 60, true, 2]], 60, 6]);
  });

  it('leaves out a round with a late worker and ends the rounds, saying why', async () => {
    // Prepare: worker 1 joined the probe's window 400 ms late.
    const store = new MemoryObjectStore();
    const steps = [workerStep(0, 4, 10), workerStep(1, 8, 90)];
    await aggregate(store, [workerResult(0, steps), workerResult(1, steps)]);

    // Act
    const outcome = await aggregate(
      store,
      [workerResult(0, [workerStep(0, 6, 20)], 9_000), workerResult(1, [workerStep(0, 6, 20, 400)], 9_000)],
      { index: 0, kind: 'knee', load: 6, startEpochMs: 9_000 },
    );

    // Assert: measured on the steps alone.
    const stored = storedResult(store);
    expect([outcome.status, outcome.sustainableTps, stored.probes, stored.roundsNote]).toEqual([
      'MEASURED',
      40,
      undefined,
      'round 1 (knee probe at 6 in flight) not counted, worker 1 joined step 1 400 ms into its 1000 ms window (started late, e.g. throttled by Lambda and retried), so the endpoint got less load than the steps state; no further rounds',
    ]);
  });
});

describe('aggregateLoadTest with interleaved repeats', () => {
  const interleaved = loadPlanSchema.parse({
    model: 'closed',
    steps: [4, 8],
    workers: 2,
    warmupSeconds: 0,
    stepDurationSeconds: 1,
    kneeProbes: 0,
    repeats: 3,
    interleaveRepeats: true,
  });
  const deployment: DeploymentState = {
    candidateId: 'cpu',
    endpointName: 'mso-r-ep-cpu',
    status: 'IN_SERVICE',
    waitSeconds: 30,
    deadlineEpochMs: 99_000,
    createdEpochMs: 500,
    loadStartEpochMs: 1_000,
    workerIndexes: [0, 1],
    instanceType: 'ml.c5.xlarge',
    instanceCount: 1,
  };
  const steps = [workerStep(0, 4, 10), workerStep(1, 8, 90)];
  const repeat = [workerStep(0, 4, 12)];

  it('keeps the endpoint and names the repeat due once the own rounds are over', async () => {
    // Act
    const outcome = await aggregate(store(), [workerResult(0, steps), workerResult(1, steps)], undefined, {
      loadPlan: interleaved,
      deployment,
    });

    // Assert
    expect(outcome).toEqual({
      candidateId: 'cpu',
      status: 'REPEATS_PENDING',
      resultUri: RESULT_URI,
      sustainableTps: 40,
      endpointCreatedEpochMs: 500,
      instanceType: 'ml.c5.xlarge',
      instanceCount: 1,
      pendingRepeat: { index: 0, kind: 'repeat', load: 4 },
      keptDeployment: deployment,
    });
  });

  it('asks for the next interleaved repeat after one, and is measured after the last', async () => {
    // Prepare: the stepped result stored.
    const memory = store();
    await aggregate(memory, [workerResult(0, steps), workerResult(1, steps)], undefined, {
      loadPlan: interleaved,
      deployment,
    });
    const round = (index: number) => ({ index, kind: 'repeat' as const, load: 4, startEpochMs: 9_000 });

    // Act
    const first = await aggregate(
      memory,
      [workerResult(0, repeat, 9_000), workerResult(1, repeat, 9_000)],
      round(0),
      {
        loadPlan: interleaved,
        deployment,
      },
    );
    const last = await aggregate(
      memory,
      [workerResult(0, repeat, 9_000), workerResult(1, repeat, 9_000)],
      round(1),
      {
        loadPlan: interleaved,
        deployment,
      },
    );

    // Assert: the kept deployment goes on without the round's mark; the last is MEASURED.
    expect([first.status, first.pendingRepeat, first.keptDeployment]).toEqual([
      'REPEATS_PENDING',
      { index: 1, kind: 'repeat', load: 4 },
      deployment,
    ]);
    expect([
      last.status,
      last.pendingRepeat,
      last.keptDeployment,
      storedResult(memory).repeats?.length,
    ]).toEqual(['MEASURED', undefined, undefined, 2]);
  });

  it('fails when the deployment to keep names no endpoint', async () => {
    // Act
    const outcome = aggregate(store(), [workerResult(0, steps), workerResult(1, steps)], undefined, {
      loadPlan: interleaved,
    });

    // Assert
    await expect(outcome).rejects.toThrow(
      'Aggregate load test: interleaved repeats keep the endpoint, but the deployment of cpu names none',
    );
  });
});

function store(): MemoryObjectStore {
  return new MemoryObjectStore();
}
