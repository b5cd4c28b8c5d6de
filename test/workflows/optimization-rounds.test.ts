import { beforeAll, describe, expect, it } from '@jest/globals';
import type { RunLoadWorkerEvent, RunSummary } from '../../handlers/contracts/optimization-state.js';
import {
  createLatencyHistogram,
  encodeHistogram,
  type LoadTestResult,
  recordLatencyUs,
  type WorkerResult,
  type WorkerStep,
} from '../../handlers/load-test/index.js';
import type { ObjectStore } from '../../handlers/ports.js';
import { roundResultUri, workerResultUri } from '../../handlers/shared/load-test-results.js';
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
    const scriptedWorker = async (payload: unknown): Promise<unknown> => {
      const event = payload as RunLoadWorkerEvent;
      if (store === undefined) throw new Error('the run has no store yet');
      const round = event.deployment.loadRound;
      const startEpochMs = round?.startEpochMs ?? event.deployment.loadStartEpochMs ?? 0;
      const loads = round === undefined ? event.plan.loadPlan.steps : [round.load];
      const steps = loads.map((load, index) =>
        scriptedStep(index, load, startEpochMs, round?.kind === 'repeat'),
      );
      loadsRun.push(round === undefined ? `steps ${loads.join(', ')}` : `${round.kind} ${round.load}`);
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
    expect(loadsRun).toEqual(['steps 4, 8', 'knee 6', 'knee 7', 'repeat 6']);
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
});
