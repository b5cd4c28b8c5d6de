import { beforeAll, describe, expect, it } from '@jest/globals';
import type {
  OptimizationStepName,
  RunLoadWorkerEvent,
  RunSummary,
} from '../../core/contracts/optimization-state.js';
import { ErrorNames } from '../../core/contracts/errors.js';
import type { Report } from '../../core/report/report.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import type { StepHandler } from '../../local/environment/step-handlers.js';
import { FakeSageMaker } from '../support/fake-sagemaker.js';
import { ARTIFACTS_BUCKET, optimizationInput, readJson, runOptimization } from './run-optimization.js';

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

const NOTHING_LEFT = { endpoints: [], endpointConfigs: [], models: [] };

/** One candidate, two workers, one 1-second step: a worker 600 ms late missed 60 % of the window. */
const INPUT = optimizationInput({
  compilation: { targets: [] },
  candidates: [{ id: 'cpu', instanceType: 'ml.c5.xlarge' }],
  loadPlan: {
    model: 'closed',
    steps: [2],
    workers: 2,
    warmupSeconds: 0,
    stepDurationSeconds: 1,
    stopAtPlateau: false,
  },
});

/**
 * Worker 1's first invocation of the load tests listed in `throttledRuns` (1 = the first load
 * test, 2 = its re-run) is throttled as Lambda does it: the invocation fails with
 * Lambda.TooManyRequestsException, the Task's Retry invokes it again, and the retried worker
 * starts 600 ms after the shared start (in the load test's simulated time, runOptimization).
 */
function throttling(throttledRuns: readonly number[]) {
  const runs = new Map<number, number>();
  const retried = new Set<number>();
  const runOf = (event: RunLoadWorkerEvent): number | undefined => {
    if (event.workerIndex !== 1) return undefined;
    const loadStart = event.deployment.loadStartEpochMs ?? 0;
    if (!runs.has(loadStart)) runs.set(loadStart, runs.size + 1);
    const run = runs.get(loadStart);
    return run !== undefined && throttledRuns.includes(run) ? run : undefined;
  };
  const wrap = (handlers: Readonly<Record<OptimizationStepName, StepHandler>>) => ({
    'run-load-worker': (payload: unknown, signal: AbortSignal): Promise<unknown> => {
      const run = runOf(payload as RunLoadWorkerEvent);
      if (run !== undefined && !retried.has(run)) {
        retried.add(run);
        const throttled = Object.assign(new Error('Rate Exceeded.'), {
          name: 'Lambda.TooManyRequestsException',
        });
        return Promise.reject(throttled);
      }
      return handlers['run-load-worker'](payload, signal);
    },
  });
  const workerLateMs = (event: RunLoadWorkerEvent): number => (runOf(event) === undefined ? 0 : 600);
  return { wrap, workerLateMs };
}

async function runWithThrottledWorker(runId: string, throttledRuns: readonly number[]) {
  const sagemaker = new FakeSageMaker();
  const run = await runOptimization({
    workflows,
    sagemaker,
    input: INPUT,
    runId,
    ...throttling(throttledRuns),
  });
  const report = readJson(run.store, `s3://${ARTIFACTS_BUCKET}/runs/${runId}/report.json`) as Report;
  return { run, sagemaker, report };
}

function summaryOf(result: Awaited<ReturnType<typeof runOptimization>>['result']): RunSummary {
  if (result.status !== 'SUCCEEDED') throw new Error(`Run ${result.status}: ${JSON.stringify(result)}`);
  return result.output as unknown as RunSummary;
}

describe('late load workers (synthesized definition, run locally)', () => {
  it('re-runs the load test once when a throttled worker started late, then reports the measurement', async () => {
    // Act
    const { run, sagemaker, report } = await runWithThrottledWorker('late-once', [1]);

    // Assert
    summaryOf(run.result);
    expect(run.statesEntered.filter((state) => state === 'Re-run load test')).toEqual(['Re-run load test']);
    expect(report.candidates.map((c) => [c.id, c.status, c.verdict, c.steps.length])).toEqual([
      ['cpu', 'MEASURED', 'recommended', 1],
    ]);
    expect(sagemaker.leftovers()).toEqual(NOTHING_LEFT);
  }, 60_000);

  it('reports a measurement problem, not an SLA miss, when the worker is late on the re-run too', async () => {
    // Act
    const { run, sagemaker, report } = await runWithThrottledWorker('late-twice', [1, 2]);

    // Assert: no candidate could be judged, so the run ends without a recommendation.
    expect(run.result).toMatchObject({ status: 'FAILED', error: ErrorNames.noRecommendation });
    expect(run.statesEntered.filter((state) => state === 'Re-run load test')).toEqual(['Re-run load test']);
    expect(report.outcome).toBe('all-candidates-failed');
    const [candidate] = report.candidates;
    expect(candidate).toMatchObject({
      status: 'MEASUREMENT_PROBLEM',
      verdict: 'measurement-problem',
      steps: [],
    });
    expect(candidate?.failureReason).toMatch(
      /^worker 1 joined step 1 600 ms into its 1000 ms window \(started late, e\.g\. throttled by Lambda and retried\), so the endpoint got less load than the steps state; the re-run had a late worker too$/,
    );
    expect(report.recommendation).toBeNull();
    expect(sagemaker.leftovers()).toEqual(NOTHING_LEFT);
  }, 60_000);
});
