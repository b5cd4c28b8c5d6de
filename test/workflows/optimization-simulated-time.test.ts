import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Report } from '../../core/report/report.js';
import { FakeSageMaker } from '../support/fake-sagemaker.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import { ARTIFACTS_BUCKET, optimizationInput, readJson, runOptimization } from './run-optimization.js';

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

/** Two candidates, two workers, two closed-model steps of 2 s: 1,000 requests or more each, at no real cost. */
const INPUT = optimizationInput({
  compilation: { targets: [] },
  candidates: [
    { id: 'fast', instanceType: 'ml.c5.xlarge' },
    { id: 'slow', instanceType: 'ml.c5.large' },
  ],
  loadPlan: {
    model: 'closed',
    steps: [2, 4],
    workers: 2,
    warmupSeconds: 0.5,
    stepDurationSeconds: 2,
    stopAtPlateau: false,
    kneeProbes: 0,
    repeats: 1,
  },
  sla: { p95LatencyMs: 10 },
});

async function runOnce(runId: string) {
  const run = await runOptimization({
    workflows,
    sagemaker: new FakeSageMaker(),
    input: INPUT,
    runId,
    endpoints: (name) => ({ latencyMs: name.includes('fast') ? 4 : 20 }),
  });
  const report = readJson(run.store, `s3://${ARTIFACTS_BUCKET}/runs/${runId}/report.json`) as Report;
  const figures = report.candidates.map((candidate) => ({
    id: candidate.id,
    verdict: candidate.verdict,
    steps: candidate.steps.map((step) => ({ load: step.load, tps: step.tps, latencyMs: step.latencyMs })),
  }));
  return { statesEntered: run.statesEntered, figures };
}

describe('load workers on simulated time (synthesized definition, run locally)', () => {
  it('measures exactly the stub latencies and the throughput they allow, the same on every run', async () => {
    // Act: the same input twice, as two runs of one machine would.
    const first = await runOnce('simulated-1');
    const second = await runOnce('simulated-2');

    // Assert: every percentile is the stub's latency; a closed step of N in flight at L ms
    // completes N × 1000 / L per second; and both runs took the same path to the same figures.
    const fast = first.figures.find((candidate) => candidate.id === 'fast');
    const slow = first.figures.find((candidate) => candidate.id === 'slow');
    expect(
      fast?.steps.map((step) => [step.load, step.tps, step.latencyMs?.p50, step.latencyMs?.max]),
    ).toEqual([
      [2, 500, 4, 4],
      [4, 1000, 4, 4],
    ]);
    // The slow one missed the SLA at its first step, which ends its stepping.
    expect(slow?.steps.map((step) => [step.load, step.tps, step.latencyMs?.p95])).toEqual([[2, 100, 20]]);
    expect([fast?.verdict, slow?.verdict]).toEqual(['recommended', 'missed-sla']);
    expect(second).toEqual(first);
  }, 60_000);
});
