import { beforeAll, describe, expect, it } from '@jest/globals';
import type { RunLoadWorkerEvent, RunSummary } from '../../core/contracts/optimization-state.js';
import {
  createLatencyHistogram,
  encodeHistogram,
  type LoadTestResult,
  recordLatencyUs,
  type WorkerResult,
  type WorkerStep,
} from '../../core/load-test/index.js';
import type { ObjectStore } from '../../core/ports/index.js';
import type { Report } from '../../core/report/report.js';
import { roundResultUri, workerResultUri } from '../../core/steps/optimization/load-test-results.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import { FakeSageMaker } from '../support/fake-sagemaker.js';
import { ARTIFACTS_BUCKET, optimizationInput, readJson, runOptimization } from './run-optimization.js';

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

/**
 * A scripted endpoint: p95 5 ms up to 6 in flight, 90 ms above (SLA 50 ms); 10 requests/s per
 * request in flight, 6 more in a repeat (run to run noise).
 */
function scriptedStep(stepIndex: number, load: number, startEpochMs: number, repeat: boolean): WorkerStep {
  const histogram = createLatencyHistogram();
  const latencyUs = load <= 6 ? 5_000 : 90_000;
  const ok = load * 10 + (repeat ? 6 : 0);
  for (let i = 0; i < ok; i++) recordLatencyUs(histogram, latencyUs);
  return {
    stepIndex,
    load,
    workerLoad: load,
    windowStartEpochMs: startEpochMs + stepIndex * 1000,
    windowMs: 1000,
    activeFromMs: 0,
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
    maxLatencyUs: latencyUs,
  };
}

/**
 * A load worker whose figures are `scriptedStep`'s: it writes its result where the real one does
 * and logs each test it runs (`<candidate> steps 4, 8`, `<candidate> knee 6`, `<candidate> repeat 6`);
 * `onRun` runs first (to look at the fake SageMaker then, or to fail).
 */
function scriptedWorkerOf(
  storeOf: () => ObjectStore | undefined,
  loadsRun: string[],
  onRun: (event: RunLoadWorkerEvent) => void = () => undefined,
): (payload: unknown) => Promise<unknown> {
  return async (payload: unknown): Promise<unknown> => {
    const event = payload as RunLoadWorkerEvent;
    const store = storeOf();
    if (store === undefined) throw new Error('the run has no store yet');
    onRun(event);
    const round = event.deployment.loadRound;
    const startEpochMs = round?.startEpochMs ?? event.deployment.loadStartEpochMs ?? 0;
    const loads = round === undefined ? event.plan.loadPlan.steps : [round.load];
    const steps = loads.map((load, index) =>
      scriptedStep(index, load, startEpochMs, round?.kind === 'repeat'),
    );
    loadsRun.push(
      `${event.candidateId} ${round === undefined ? `steps ${loads.join(', ')}` : `${round.kind} ${round.load}`}`,
    );
    const result: WorkerResult = {
      schemaVersion: 1,
      workerIndex: event.workerIndex,
      workers: 1,
      model: 'closed',
      startEpochMs,
      finishedEpochMs: startEpochMs + steps.length * 1000,
      steps,
      stoppedBecause: round === undefined ? 'sla-breached' : 'completed',
      stopDetail: 'scripted',
    };
    const resultUri =
      round === undefined
        ? workerResultUri(event.plan, event.candidateId, event.workerIndex, 0)
        : roundResultUri(event.plan, event.candidateId, event.workerIndex, round.index);
    await store.putBytes(resultUri, new TextEncoder().encode(JSON.stringify(result)), 'application/json');
    return { workerIndex: event.workerIndex, resultUri, stoppedBecause: result.stoppedBecause };
  };
}

/** cpu and gpu, one at a time, steps 4 and 8 of 1 s, their repeats interleaved. */
function interleavedInput(rounds: { kneeProbes: number; repeats: number }): Record<string, unknown> {
  return optimizationInput({
    compilation: { targets: [] },
    candidates: [
      { id: 'cpu', instanceType: 'ml.c5.xlarge' },
      { id: 'gpu', instanceType: 'ml.g4dn.xlarge' },
    ],
    loadPlan: {
      model: 'closed',
      steps: [4, 8],
      warmupSeconds: 0,
      stepDurationSeconds: 1,
      ...rounds,
      interleaveRepeats: true,
    },
    maxConcurrentCandidates: 1,
  });
}

describe('optimization workflow with knee probes and repeats (run locally)', () => {
  it('runs the steps, two knee probes and a repeat, and settles the median', async () => {
    // Prepare: steps 4 (meets the SLA) and 8 (breaches it); one worker whose figures are scripted.
    const sagemaker = new FakeSageMaker();
    const input = optimizationInput({
      compilation: { targets: [] },
      candidates: [{ id: 'cpu', instanceType: 'ml.c5.xlarge' }],
      loadPlan: { model: 'closed', steps: [4, 8], warmupSeconds: 0, stepDurationSeconds: 1 },
    });
    let store: ObjectStore | undefined;
    const loadsRun: string[] = [];
    const scriptedWorker = scriptedWorkerOf(() => store, loadsRun);

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input,
      runId: 'rounds',
      store: (memory) => (store = memory),
      override: { 'run-load-worker': scriptedWorker },
    });

    // Assert: 6 met the SLA, 7 did not (nothing left between), then 6 once more.
    if (run.result.status !== 'SUCCEEDED') throw new Error(`Run ${JSON.stringify(run.result)}`);
    expect(loadsRun).toEqual(['cpu steps 4, 8', 'cpu knee 6', 'cpu knee 7', 'cpu repeat 6']);
    const entered = (name: string): number => run.statesEntered.filter((state) => state === name).length;
    expect([
      entered('Run load workers'),
      entered('Run next load round'),
      entered('Aggregate load test'),
    ]).toEqual([4, 3, 4]);
    const result = readJson(
      run.store,
      `s3://${ARTIFACTS_BUCKET}/runs/rounds/load-tests/cpu/result.json`,
    ) as LoadTestResult;
    expect({
      steps: result.steps.map((step) => [step.load, step.meetsSla]),
      probes: result.probes?.map((step) => [step.load, step.meetsSla]),
      repeats: result.repeats?.map((step) => [step.load, step.tps]),
      sustainableTps: result.sustainableTps,
      sustainableStep: result.sustainableStep,
      spread: result.spread,
    }).toEqual({
      steps: [
        [4, true],
        [8, false],
      ],
      probes: [
        [6, true],
        [7, false],
      ],
      repeats: [[6, 66]],
      sustainableTps: 63,
      sustainableStep: 6,
      spread: {
        n: 2,
        metSla: 2,
        tps: { min: 60, median: 63, max: 66 },
        p95Ms: { min: 5, median: 5, max: 5 },
      },
    });
    const summary = run.result.output as unknown as RunSummary;
    expect(summary.candidates.map((candidate) => candidate.verdict)).toEqual(['recommended']);
  }, 60_000);

  it('interleaves the repeats: every candidate’s own test, then rounds over the kept endpoints', async () => {
    // Prepare: two candidates, 3 repeats interleaved; each repeat notes which endpoints are up.
    const sagemaker = new FakeSageMaker();
    const input = interleavedInput({ kneeProbes: 1, repeats: 3 });
    let store: ObjectStore | undefined;
    const loadsRun: string[] = [];
    const upDuringRepeats: number[] = [];
    const worker = scriptedWorkerOf(
      () => store,
      loadsRun,
      (event) => {
        if (event.deployment.loadRound?.kind === 'repeat') upDuringRepeats.push(sagemaker.endpoints.size);
      },
    );

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input,
      runId: 'interleaved',
      store: (memory) => (store = memory),
      override: { 'run-load-worker': worker },
    });

    // Assert: each candidate's steps and knee probe, then two rounds of one repeat each, in turn;
    // both endpoints up until cpu's last repeat (each is deleted after its own), none left after.
    if (run.result.status !== 'SUCCEEDED') throw new Error(`Run ${JSON.stringify(run.result)}`);
    expect(loadsRun).toEqual([
      'cpu steps 4, 8',
      'cpu knee 6',
      'gpu steps 4, 8',
      'gpu knee 6',
      'cpu repeat 6',
      'gpu repeat 6',
      'cpu repeat 6',
      'gpu repeat 6',
    ]);
    expect(upDuringRepeats).toEqual([2, 2, 2, 1]);
    expect(sagemaker.leftovers().endpoints).toEqual([]);
    const result = readJson(
      run.store,
      `s3://${ARTIFACTS_BUCKET}/runs/interleaved/load-tests/gpu/result.json`,
    ) as LoadTestResult;
    expect({
      repeats: result.repeats?.map((step) => [step.load, step.tps]),
      sustainableTps: result.sustainableTps,
      spread: result.spread?.tps,
    }).toEqual({
      repeats: [
        [6, 66],
        [6, 66],
      ],
      sustainableTps: 66,
      spread: { min: 60, median: 66, max: 66 },
    });
    const summary = run.result.output as unknown as RunSummary;
    expect(summary.candidates.map((candidate) => candidate.id)).toEqual(['cpu', 'gpu']);
  }, 60_000);

  it('keeps the figures so far and deletes the endpoint when an interleaved repeat fails', async () => {
    // Prepare: as above, 2 repeats; the cpu candidate's repeat fails.
    const sagemaker = new FakeSageMaker();
    const input = interleavedInput({ kneeProbes: 0, repeats: 2 });
    let store: ObjectStore | undefined;
    const loadsRun: string[] = [];
    const worker = scriptedWorkerOf(
      () => store,
      loadsRun,
      (event) => {
        if (event.candidateId === 'cpu' && event.deployment.loadRound?.kind === 'repeat') {
          throw new Error('Connection refused by the endpoint');
        }
      },
    );

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input,
      runId: 'interleaved-failure',
      store: (memory) => (store = memory),
      override: { 'run-load-worker': worker },
    });

    // Assert: the run goes on; cpu keeps its stepped figures, with the error; no endpoint is left.
    if (run.result.status !== 'SUCCEEDED') throw new Error(`Run ${JSON.stringify(run.result)}`);
    expect(loadsRun).toEqual(['cpu steps 4, 8', 'gpu steps 4, 8', 'gpu repeat 4']);
    expect(sagemaker.leftovers().endpoints).toEqual([]);
    expect(run.statesEntered.filter((state) => state === 'Delete repeated endpoint')).toHaveLength(2);
    const summary = run.result.output as unknown as RunSummary;
    expect(summary.candidates.map((candidate) => [candidate.id, candidate.verdict])).toEqual([
      ['cpu', 'recommended'],
      ['gpu', 'runner-up'],
    ]);
    const report = readJson(run.store, summary.report.json) as Report;
    const cpu = report.candidates.find((candidate) => candidate.id === 'cpu');
    expect([cpu?.sustainableTps, cpu?.roundsNote]).toEqual([
      40,
      'an interleaved repeat failed (Error: Connection refused by the endpoint); no further repeats, the figures before it stand',
    ]);
  }, 60_000);
});
