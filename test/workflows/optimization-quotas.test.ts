import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Report } from '../../core/report/report.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import { FakeSageMaker } from '../support/fake-sagemaker.js';
import {
  ARTIFACTS_BUCKET,
  optimizationInput,
  readJson,
  runOptimization,
  succeeded,
} from './run-optimization.js';

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

const NOTHING_LEFT = { endpoints: [], endpointConfigs: [], models: [] };

/** One short load step per candidate: each candidate holds its endpoint for a fraction of a second. */
const SHORT_LOAD = {
  model: 'closed',
  steps: [1],
  warmupSeconds: 0,
  stepDurationSeconds: 0.1,
  stopAtPlateau: false,
};

describe('instance quotas (synthesized definition, run locally)', () => {
  it('runs 10 candidates of one type two at a time when planning reads a quota of 2: none meets QuotaExceeded', async () => {
    // Prepare: the quota planning reads is the one CreateEndpoint enforces; no retry needed.
    const sagemaker = new FakeSageMaker({ instanceQuotas: { 'ml.c5.xlarge': 2 } });
    const candidates = Array.from({ length: 10 }, (_, index) => ({
      id: `c${index + 1}`,
      instanceType: 'ml.c5.xlarge',
    }));
    const input = optimizationInput({
      compilation: { targets: [] },
      candidates,
      maxConcurrentCandidates: 10,
      loadPlan: SHORT_LOAD,
    });

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input,
      runId: 'quota-read',
      instanceQuotas: { 'ml.c5.xlarge': 2 },
    });

    // Assert
    const summary = succeeded(run.result);
    expect(summary.candidates.filter((c) => c.verdict === 'failed').map((c) => c.id)).toEqual([]);
    const report = readJson(run.store, `s3://${ARTIFACTS_BUCKET}/runs/quota-read/report.json`) as Report;
    expect(report.candidates.map((c) => [c.id, c.status])).toEqual(candidates.map((c) => [c.id, 'MEASURED']));
    expect(sagemaker.quotaRefusals).toBe(0);
    expect(sagemaker.peakInstances.get('ml.c5.xlarge')).toBe(2);
    expect(run.statesEntered.filter((state) => state === 'Deploy candidate')).toHaveLength(10);
    expect(sagemaker.leftovers()).toEqual(NOTHING_LEFT);
  }, 60_000);

  it('measures 10 candidates of one type under a quota of 2: the others wait for capacity instead of failing', async () => {
    // Prepare: 10 candidates run at once, but the account may hold only 2 ml.c5.xlarge instances.
    const sagemaker = new FakeSageMaker({ instanceQuotas: { 'ml.c5.xlarge': 2 } });
    const candidates = Array.from({ length: 10 }, (_, index) => ({
      id: `c${index + 1}`,
      instanceType: 'ml.c5.xlarge',
    }));
    const input = optimizationInput({
      compilation: { targets: [] },
      candidates,
      maxConcurrentCandidates: 10,
      loadPlan: SHORT_LOAD,
    });

    // Act: each quota retry waits 500 ms: 12 of them outlast the five waves of two candidates.
    const run = await runOptimization({
      workflows,
      sagemaker,
      input,
      runId: 'quota-of-2',
      retryIntervalOverrideMs: 500,
    });

    // Assert
    const summary = succeeded(run.result);
    expect(summary.candidates.filter((c) => c.verdict === 'failed').map((c) => c.id)).toEqual([]);
    const report = readJson(run.store, `s3://${ARTIFACTS_BUCKET}/runs/quota-of-2/report.json`) as Report;
    expect(report.candidates.map((c) => [c.id, c.status])).toEqual(candidates.map((c) => [c.id, 'MEASURED']));
    expect(sagemaker.quotaRefusals).toBeGreaterThan(0);
    expect(sagemaker.peakInstances.get('ml.c5.xlarge')).toBe(2);
    expect(sagemaker.leftovers()).toEqual(NOTHING_LEFT);
  }, 60_000);
});
