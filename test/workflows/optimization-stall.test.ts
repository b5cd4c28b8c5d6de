import { beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorNames } from '../../core/contracts/errors.js';
import type { RunLoadWorkerEvent } from '../../core/contracts/optimization-state.js';
import type { ObjectStore } from '../../core/ports/index.js';
import type { Report } from '../../core/report/report.js';
import { runLoadWorker } from '../../core/steps/optimization/run-load-worker.js';
import type { StepHandler } from '../../local/environment/step-handlers.js';
import { StoppingServer } from '../../bench/support/stub-transports.js';
import { VirtualClock } from '../core/load-test/support/virtual-clock.js';
import { FakeSageMaker } from '../support/fake-sagemaker.js';
import { silentLogger } from '../support/memory-object-store.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import { ARTIFACTS_BUCKET, optimizationInput, readJson, runOptimization } from './run-optimization.js';

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

const NOTHING_LEFT = { endpoints: [], endpointConfigs: [], models: [] };
const TIMEOUT_MS = 65_000;

/** Steps of 1 s warm-up and 20 s window; 25 ms per request until the server stops. */
function input(model: 'closed' | 'open', steps: readonly number[]): Record<string, unknown> {
  return optimizationInput({
    compilation: { targets: [] },
    candidates: [{ id: 'cpu', instanceType: 'ml.c5.xlarge' }],
    loadPlan: {
      model,
      steps,
      warmupSeconds: 1,
      stepDurationSeconds: 20,
      stopAtPlateau: false,
      kneeProbes: 0,
      repeats: 1,
      requestTimeoutMs: TIMEOUT_MS,
    },
    sla: { p95LatencyMs: 500 },
  });
}

/**
 * The real "Run load worker" on simulated time, against an endpoint that stops answering 1 s into
 * step 2's window (22 s after the shared start) and comes back 17 s later, as a stopped model
 * server would: requests it holds past the request timeout time out.
 */
function stoppingWorker(store: () => ObjectStore): StepHandler {
  return async (payload, signal) => {
    const event = payload as RunLoadWorkerEvent;
    // Simulated time from the shared start, so that the schedule is the same on every run.
    const clock = new VirtualClock(event.deployment.loadStartEpochMs ?? Date.now());
    const stop = { fromUs: 23_000_000, toUs: 40_000_000 };
    return runLoadWorker(event, {
      store: store(),
      openTransport: () => new StoppingServer(clock, 25_000, stop, TIMEOUT_MS * 1000),
      logger: silentLogger,
      signal,
      clock,
    });
  };
}

async function runStopping(runId: string, runInput: Record<string, unknown>) {
  const sagemaker = new FakeSageMaker();
  let captured: ObjectStore | undefined;
  const store = (): ObjectStore => {
    if (captured === undefined) throw new Error('the run has no store yet');
    return captured;
  };
  const run = await runOptimization({
    workflows,
    sagemaker,
    input: runInput,
    runId,
    store: (memory) => (captured = memory),
    override: { 'run-load-worker': stoppingWorker(store) },
  });
  const report = readJson(run.store, `s3://${ARTIFACTS_BUCKET}/runs/${runId}/report.json`) as Report;
  const markdown = new TextDecoder().decode(
    run.store.objects.get(`s3://${ARTIFACTS_BUCKET}/runs/${runId}/report.md`)?.body,
  );
  return { run, sagemaker, report, markdown };
}

describe('an endpoint that stops answering (synthesized definition, run locally)', () => {
  it('judges a server that stops answering mid-step stalled, not met (closed model, concurrency 2)', async () => {
    // Act
    const { run, sagemaker, report, markdown } = await runStopping('stall-closed', input('closed', [1, 2]));

    // Assert: no recommendation; the verdict names the stall, where and how long.
    expect(run.result).toMatchObject({ status: 'FAILED', error: ErrorNames.noRecommendation });
    expect(report.outcome).toBe('no-candidate-met-sla');
    const [candidate] = report.candidates;
    expect(candidate?.verdict).toBe('stalled');
    expect(candidate?.reason).toMatch(
      /^stalled: endpoint stalled at 1\.0 s into step 2 \(2 in flight\) for 17\.0 s, no answer while requests were outstanding; it met the SLA up to load 1 before/,
    );
    expect(candidate?.steps.map((step) => [step.meetsSla, step.stall])).toEqual([
      [true, undefined],
      [false, { atMs: 1000, durationMs: 17_025 }],
    ]);
    expect(candidate?.stoppedBecause).toBe('stalled');
    expect(markdown).toContain('endpoint stalled at 1.0 s into step 2 (2 in flight) for 17.0 s');
    expect(sagemaker.leftovers()).toEqual(NOTHING_LEFT);
  }, 60_000);

  it('judges a server that stops answering mid-step stalled, not met (open model, 80 requests/s)', async () => {
    // Act
    const { run, report } = await runStopping('stall-open', input('open', [40, 80]));

    // Assert
    expect(run.result).toMatchObject({ status: 'FAILED', error: ErrorNames.noRecommendation });
    const [candidate] = report.candidates;
    expect(candidate?.verdict).toBe('stalled');
    expect(candidate?.reason).toMatch(
      /^stalled: endpoint stalled at 1\.0 s into step 2 \(80 requests\/s\) for 17\.0 s/,
    );
    expect(candidate?.steps[1]?.stall).toEqual({ atMs: 1000, durationMs: 17_025 });
  }, 60_000);
});
