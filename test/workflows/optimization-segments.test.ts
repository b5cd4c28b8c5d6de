import { beforeAll, describe, expect, it } from '@jest/globals';
import type { RunSummary } from '../../core/contracts/optimization-state.js';
import { decodeHistogram, type LoadTestResult, type WorkerResult } from '../../core/load-test/index.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import { FakeSageMaker } from '../support/fake-sagemaker.js';
import { ARTIFACTS_BUCKET, optimizationInput, readJson, runOptimization } from './run-optimization.js';

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

/** Two steps of 0.3 s in segments of 0.25 s: [0, 0.25), [0.25, 0.5), [0.5, 0.6). */
const SEGMENTED = {
  input: optimizationInput({
    compilation: { targets: [] },
    candidates: [{ id: 'cpu', instanceType: 'ml.c5.xlarge' }],
    loadPlan: {
      model: 'closed',
      steps: [1, 2],
      workers: 2,
      warmupSeconds: 0,
      stepDurationSeconds: 0.3,
      stopAtPlateau: false,
    },
    sla: { p95LatencyMs: 1000 },
  }),
  loadSegmentSeconds: 0.25,
};

describe('optimization workflow with a load test in segments (run locally)', () => {
  it('runs the workers once per segment and merges every part of each step into the result', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker();

    // Act
    const run = await runOptimization({ workflows, sagemaker, runId: 'segments', ...SEGMENTED });

    // Assert: three segments, two steps, each step's counts the sum of its parts.
    if (run.result.status !== 'SUCCEEDED') throw new Error(`Run ${JSON.stringify(run.result)}`);
    const summary = run.result.output as unknown as RunSummary;
    expect(summary.candidates.map((candidate) => candidate.verdict)).toEqual(['recommended']);
    const entered = (name: string): number => run.statesEntered.filter((state) => state === name).length;
    expect([
      entered('Run load workers'),
      entered('Run next load segment'),
      entered('Aggregate load test'),
    ]).toEqual([3, 2, 3]);
    const prefix = `s3://${ARTIFACTS_BUCKET}/runs/segments/load-tests/cpu`;
    const parts = [0, 1].flatMap((worker) =>
      [0, 1, 2].map(
        (segment) =>
          readJson(run.store, `${prefix}/worker-${worker}/segment-${segment}.json`) as WorkerResult,
      ),
    );
    expect(parts.map((part) => [part.workerIndex, part.segmentIndex, part.stoppedBecause])).toEqual([
      [0, 0, 'segment-end'],
      [0, 1, 'segment-end'],
      [0, 2, 'completed'],
      [1, 0, 'segment-end'],
      [1, 1, 'segment-end'],
      [1, 2, 'completed'],
    ]);
    const result = readJson(run.store, `${prefix}/result.json`) as LoadTestResult;
    expect(result.stoppedBecause).toBe('completed');
    const partsOf = (stepIndex: number) =>
      parts.flatMap((part) => part.steps.filter((step) => step.stepIndex === stepIndex));
    expect(result.steps.map((step) => step.requests)).toEqual(
      [0, 1].map((stepIndex) => partsOf(stepIndex).reduce((sum, step) => sum + step.requests, 0)),
    );
    expect(result.steps.map((step) => decodeHistogram(step.histogram).totalCount)).toEqual(
      [0, 1].map((stepIndex) => partsOf(stepIndex).reduce((sum, step) => sum + step.ok, 0)),
    );
    expect(partsOf(0).map((step) => step.cutAtSegmentEnd)).toEqual([true, undefined, true, undefined]);
  }, 60_000);
});
