import { beforeAll, describe, expect, it } from '@jest/globals';
import { optimizationHistoryEvents } from '../../core/planning/history-model.js';
import type { RunLoadWorkerEvent } from '../../core/contracts/optimization-state.js';
import type { RunnerEvent } from '../../local/runner/index.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import { FakeRealtimeScaling } from '../support/fake-realtime-scaling.js';
import { FakeSageMaker } from '../support/fake-sagemaker.js';
import { optimizationInput, runOptimization } from './run-optimization.js';

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

/**
 * The local engine reports states entered and exited, Map iterations and Parallel branches, not
 * Step Functions' history. Each maps to the history events Step Functions records for it (API
 * reference, "HistoryEvent" types): a Task state entered also records LambdaFunctionScheduled,
 * LambdaFunctionStarted and LambdaFunctionSucceeded; a Map or Parallel state entered also records
 * its `…StateStarted` and `…StateSucceeded`; Parallel branches record nothing of their own.
 */
function awsHistoryEvents(event: RunnerEvent): number {
  switch (event.type) {
    case 'ExecutionStarted':
    case 'ExecutionSucceeded':
    case 'StateExited':
    case 'MapIterationStarted':
    case 'MapIterationSucceeded':
      return 1;
    case 'StateEntered':
      if (event.stateType === 'Task') return 4;
      if (event.stateType === 'Map' || event.stateType === 'Parallel') return 3;
      return 1;
    case 'ParallelBranchStarted':
    case 'ParallelBranchSucceeded':
      return 0;
    default:
      throw new Error(`A successful run without retries has no ${event.type} event`);
  }
}

/**
 * One 0.1 s step at 1 in flight, 2 workers: the shortest load test whose events can be counted. The
 * counts are exact for one path; the load windows run on simulated time (runOptimization), so no
 * worker starts late by chance and the path is the same on every run.
 */
const ONE_SHORT_STEP = {
  model: 'closed',
  steps: [1],
  workers: 2,
  warmupSeconds: 0,
  stepDurationSeconds: 0.1,
  stopAtPlateau: false,
};

describe('history model of the optimization workflow', () => {
  it('counts the events of a run of the synthesized definition exactly', async () => {
    // Prepare: 3 candidates × 2 workers, 1 target; endpoints in service at the 4th check, the
    // compilation job done at the 2nd (FakeSageMaker).
    const sagemaker = new FakeSageMaker({ describesUntilInService: 3 });
    const input = optimizationInput({ loadPlan: ONE_SHORT_STEP });

    // Act
    const run = await runOptimization({ workflows, sagemaker, input, runId: 'history' });

    // Assert
    expect(run.result.status).toBe('SUCCEEDED');
    const counted = run.events.reduce((sum, event) => sum + awsHistoryEvents(event), 0);
    const modelled = optimizationHistoryEvents({
      candidates: 3,
      workersPerCandidate: 2,
      compilationTargets: 1,
      endpointRounds: 4,
      compilationRounds: 2,
      // The one step met the SLA: no knee probe; the default 2 repeats make 1 round each.
      loadRounds: 1,
    });
    expect(counted).toBe(modelled.total);
  }, 60_000);

  it('counts the events of a run with an output-quality guard exactly', async () => {
    // Prepare: the first test's run, every candidate answering the reference's logits.
    const sagemaker = new FakeSageMaker({ describesUntilInService: 3 });
    const input = optimizationInput({ loadPlan: ONE_SHORT_STEP, quality: { rule: { kind: 'classifier' } } });
    const body = new TextEncoder().encode('{"predictions":[[0.1,0.9]]}');

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input,
      runId: 'history-quality',
      answerer: { answer: () => Promise.resolve({ ok: true, body, contentType: 'application/json' }) },
    });

    // Assert
    expect(run.result.status).toBe('SUCCEEDED');
    expect(run.statesEntered).toContain('Judge output quality');
    const counted = run.events.reduce((sum, event) => sum + awsHistoryEvents(event), 0);
    const modelled = optimizationHistoryEvents({
      candidates: 3,
      workersPerCandidate: 2,
      compilationTargets: 1,
      endpointRounds: 4,
      compilationRounds: 2,
      loadRounds: 1,
      qualityGuarded: true,
    });
    expect(counted).toBe(modelled.total);
  }, 60_000);

  it('counts the events of a run with interleaved repeats exactly', async () => {
    // Prepare: the first test's run, with 3 repeats interleaved: 2 rounds over the 3 candidates.
    const sagemaker = new FakeSageMaker({ describesUntilInService: 3 });
    const input = optimizationInput({ loadPlan: { ...ONE_SHORT_STEP, repeats: 3, interleaveRepeats: true } });

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input,
      runId: 'history-interleaved',
    });

    // Assert
    expect(run.result.status).toBe('SUCCEEDED');
    expect(run.statesEntered.filter((state) => state === 'Aggregate repeat')).toHaveLength(6);
    const counted = run.events.reduce((sum, event) => sum + awsHistoryEvents(event), 0);
    const modelled = optimizationHistoryEvents({
      candidates: 3,
      workersPerCandidate: 2,
      compilationTargets: 1,
      endpointRounds: 4,
      compilationRounds: 2,
      // The one step met the SLA: no knee probe; the repeats all run interleaved.
      loadRounds: 0,
      interleavedRounds: 2,
    });
    expect(counted).toBe(modelled.total);
  }, 60_000);

  it('counts the events of a candidate whose load test is re-run (a late worker) exactly', async () => {
    // Prepare: 1 candidate × 2 workers, no target; worker 1 starts 600 ms late in the first load
    // test only (slow to start, without a retry, whose events the count leaves to the reserve).
    const sagemaker = new FakeSageMaker({ describesUntilInService: 3 });
    const input = optimizationInput({
      compilation: { targets: [] },
      candidates: [{ id: 'cpu', instanceType: 'ml.c5.xlarge' }],
      loadPlan: {
        model: 'closed',
        steps: [1],
        workers: 2,
        warmupSeconds: 0,
        stepDurationSeconds: 1,
        stopAtPlateau: false,
      },
    });
    let delayed = false;
    const workerLateMs = (event: RunLoadWorkerEvent): number => {
      if (event.workerIndex !== 1 || delayed) return 0;
      delayed = true;
      return 600;
    };

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input,
      runId: 'history-rerun',
      workerLateMs,
    });

    // Assert
    expect(run.result.status).toBe('SUCCEEDED');
    expect(run.statesEntered.filter((state) => state === 'Re-run load test')).toHaveLength(1);
    const counted = run.events.reduce((sum, event) => sum + awsHistoryEvents(event), 0);
    const modelled = optimizationHistoryEvents({
      candidates: 1,
      workersPerCandidate: 2,
      compilationTargets: 0,
      endpointRounds: 4,
      compilationRounds: 0,
      loadTestRuns: 2,
      loadRounds: 1,
    });
    expect(counted).toBe(modelled.total);
  }, 60_000);

  it('counts the events of a load test run as 3 segments exactly', async () => {
    // Prepare: 1 candidate × 2 workers, no target; two 0.3 s steps in segments of 0.25 s.
    const sagemaker = new FakeSageMaker({ describesUntilInService: 3 });
    const input = optimizationInput({
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
    });

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input,
      runId: 'history-segments',
      loadSegmentSeconds: 0.25,
    });

    // Assert
    expect(run.result.status).toBe('SUCCEEDED');
    expect(run.statesEntered.filter((state) => state === 'Run next load segment')).toHaveLength(2);
    const counted = run.events.reduce((sum, event) => sum + awsHistoryEvents(event), 0);
    const modelled = optimizationHistoryEvents({
      candidates: 1,
      workersPerCandidate: 2,
      compilationTargets: 0,
      endpointRounds: 4,
      compilationRounds: 0,
      loadTestSegments: 3,
    });
    expect(counted).toBe(modelled.total);
  }, 60_000);

  it('counts the events of a run that proves its target exactly', async () => {
    // Prepare: 1 candidate × 2 workers, a target of 40 TPS: the proof deploys it again (in service
    // at the 4th check, as every endpoint here) and runs its one step with the same 2 workers.
    const sagemaker = new FakeSageMaker({ describesUntilInService: 3 });
    const input = optimizationInput({
      compilation: { targets: [] },
      candidates: [{ id: 'cpu', instanceType: 'ml.c5.xlarge' }],
      loadPlan: {
        model: 'closed',
        steps: [1],
        workers: 2,
        warmupSeconds: 0.2,
        stepDurationSeconds: 0.3,
        stopAtPlateau: false,
        repeats: 1,
      },
      sla: { p95LatencyMs: 50, targetTps: 40 },
    });

    // Act
    const run = await runOptimization({ workflows, sagemaker, input, runId: 'history-proof' });

    // Assert
    expect(run.result.status).toBe('SUCCEEDED');
    expect(run.statesEntered).toContain('Record proof');
    const counted = run.events.reduce((sum, event) => sum + awsHistoryEvents(event), 0);
    const modelled = optimizationHistoryEvents({
      candidates: 1,
      workersPerCandidate: 2,
      compilationTargets: 0,
      endpointRounds: 4,
      compilationRounds: 0,
      proof: { workers: 2, endpointRounds: 4 },
    });
    expect(counted).toBe(modelled.total);
  }, 60_000);

  it('counts the events of a run that ramps its policy exactly', async () => {
    // Prepare: 1 candidate × 2 workers answering in 50 ms (about 20 TPS per instance), a target of
    // 60 TPS and no proof: the ramp deploys the minimum of 2 (in service at the 4th check) and runs
    // its ramp with the plan's 2 workers in one segment.
    const sagemaker = new FakeSageMaker({ describesUntilInService: 3 });
    const input = optimizationInput({
      compilation: { targets: [] },
      candidates: [{ id: 'cpu', instanceType: 'ml.c5.xlarge' }],
      loadPlan: { ...ONE_SHORT_STEP, warmupSeconds: 0.2, stepDurationSeconds: 0.3, repeats: 1 },
      sla: { p95LatencyMs: 200, targetTps: 60 },
      prove: { enabled: false },
      rampTest: { enabled: true, seconds: 1 },
    });

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input,
      runId: 'history-ramp',
      realtimeScaling: new FakeRealtimeScaling(),
      endpoints: () => ({ latencyMs: 50 }),
    });

    // Assert
    expect(run.result.status).toBe('SUCCEEDED');
    expect(run.statesEntered).toContain('Record ramp');
    const counted = run.events.reduce((sum, event) => sum + awsHistoryEvents(event), 0);
    const modelled = optimizationHistoryEvents({
      candidates: 1,
      workersPerCandidate: 2,
      compilationTargets: 0,
      endpointRounds: 4,
      compilationRounds: 0,
      ramp: { workers: 2, endpointRounds: 4 },
    });
    expect(counted).toBe(modelled.total);
  }, 60_000);
});
