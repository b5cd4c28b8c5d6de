import { beforeAll, describe, expect, it } from '@jest/globals';
import { resourceName } from '../../core/contracts/names.js';
import type { RunLoadWorkerEvent } from '../../core/contracts/optimization-state.js';
import type {
  EndpointMetricsQuery,
  InvocationsPerInstanceReader,
  ProductionVariantSpec,
} from '../../core/ports/index.js';
import type { Report } from '../../core/report/report.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import { FakeSageMaker } from '../support/fake-sagemaker.js';
import {
  ARTIFACTS_BUCKET,
  type OptimizationRun,
  optimizationInput,
  readJson,
  runOptimization,
  succeeded,
} from './run-optimization.js';

/**
 * "Prove the target" on the synthesized definition, run locally over the real step handlers: the
 * winner deployed again with its computed count, one open-model step at the target, the verdict
 * in the report, and the proof's endpoint deleted on every path.
 */

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

const PROOF_STATES = [
  'Prove the target?',
  'Plan proof load',
  'Select proof candidate',
  'Deploy proof endpoint',
  'Wait for proof endpoint',
  'Check proof endpoint',
  'Proof endpoint in service?',
  'Run proof load workers',
  'Run proof load worker',
];

/**
 * One candidate, 2 ms per request: it sustains far more than 80 TPS, so 2 instances (the minimum).
 * The tests assert the flow, not the figures: each load step (the candidate's, each proof's) is a
 * warm-up of 0.5 s and a window of 1 s. The window holds 80 arrivals, so a stall of the event loop
 * at its end does not cost 5 % of them; the SLA of 200 ms leaves room for a busy machine (the test
 * runs beside others): a stall delays every arrival it spans, and the p95 of 80 arrivals passes
 * with up to 4 of them late, so with a stall of up to about 250 ms.
 */
function targetInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return optimizationInput({
    compilation: { targets: [] },
    candidates: [{ id: 'cpu', instanceType: 'ml.c5.xlarge' }],
    loadPlan: {
      model: 'closed',
      steps: [1],
      // The open-model proof starts at once (no start delay here): the warm-up absorbs the workers' start.
      warmupSeconds: 0.5,
      stepDurationSeconds: 1,
      stopAtPlateau: false,
      repeats: 1,
      kneeProbes: 0,
    },
    sla: { p95LatencyMs: 200, targetTps: 80 },
    ...overrides,
  });
}

/** Keeps every endpoint config's variant as CreateEndpointConfig received it (the fake forgets deleted ones). */
class RecordingSageMaker extends FakeSageMaker {
  readonly variants = new Map<string, ProductionVariantSpec>();
  override createEndpointConfig(spec: Parameters<FakeSageMaker['createEndpointConfig']>[0]): Promise<void> {
    this.variants.set(spec.endpointConfigName, spec.variant);
    return super.createEndpointConfig(spec);
  }
}

/** Two instances sharing the proof's requests, as the local front would count them. */
class SplitInvocations implements InvocationsPerInstanceReader {
  readonly queries: EndpointMetricsQuery[] = [];
  read(query: EndpointMetricsQuery) {
    this.queries.push(query);
    return Promise.resolve({
      scope: 'instance' as const,
      instances: [
        { instance: 'i-0', invocations: 21 },
        { instance: 'i-1', invocations: 19 },
      ],
      note: 'counted by the fake front',
    });
  }
}

describe('optimization workflow: prove the target (synthesized definition, run locally)', () => {
  describe('a proof that holds (one execution, spied on)', () => {
    // Prepare: one run serves both tests below, a proof's load step being the costly part.
    const sagemaker = new RecordingSageMaker();
    const invocations = new SplitInvocations();
    const workerEvents: RunLoadWorkerEvent[] = [];
    const proofEndpoint = resourceName('held', 'endpoint', 'cpu-prove');
    let run: OptimizationRun;

    beforeAll(async () => {
      // Act
      run = await runOptimization({
        workflows,
        sagemaker,
        input: targetInput(),
        runId: 'held',
        invocations,
        wrap: (real) => ({
          'run-load-worker': (payload, signal) => {
            workerEvents.push(payload as RunLoadWorkerEvent);
            return real['run-load-worker'](payload, signal);
          },
        }),
      });
    }, 60_000);

    it('deploys cpu-prove with 2 instances, finds the SLA held at the target, reports it and deletes the endpoint', () => {
      // Assert
      const output = succeeded(run.result);
      expect(output.proof).toEqual({
        status: 'held',
        candidateId: 'cpu',
        instances: 2,
        note: expect.stringMatching(
          /^proven: 2 × ml\.c5\.xlarge held p95 [\d.]+ ms at [\d.]+ TPS \(target 80\)$/,
        ),
      });
      expect(sagemaker.variants.get(resourceName('held', 'endpoint-config', 'cpu-prove'))).toEqual({
        variantName: 'AllTraffic',
        modelName: resourceName('held', 'model', 'cpu-prove'),
        instanceType: 'ml.c5.xlarge',
        initialInstanceCount: 2,
      });
      expect(run.statesEntered).toEqual(
        expect.arrayContaining([...PROOF_STATES, 'Record proof', 'Delete proof endpoint']),
      );
      expect(sagemaker.calls).toContain(`DeleteEndpoint ${proofEndpoint}`);
      expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
      expect(invocations.queries.map((q) => [q.endpointName, q.variantName])).toEqual([
        [proofEndpoint, 'AllTraffic'],
      ]);
      const report = readJson(run.store, `s3://${ARTIFACTS_BUCKET}/runs/held/report.json`) as Report;
      expect(report.serveTarget?.proven).toBe(true);
      expect(report.serveTarget?.proof).toMatchObject({
        status: 'held',
        candidateId: 'cpu',
        instances: 2,
        instanceType: 'ml.c5.xlarge',
        targetTps: 80,
        measured: { workers: 1, errorRate: 0 },
        perInstance: [
          { instance: 'i-0', invocations: 21 },
          { instance: 'i-1', invocations: 19 },
        ],
        perInstanceNote: 'counted by the fake front',
      });
    });

    it('runs the proof as one open-model step at the target rate, with the plan’s warm-up and window', () => {
      // Assert
      succeeded(run.result);
      const proof = workerEvents.filter((e) => e.candidateId === 'cpu-prove');
      expect(proof.map((e) => [e.workerIndex, e.plan.loadPlan.model, e.plan.loadPlan.steps])).toEqual([
        [0, 'open', [80]],
      ]);
      expect(proof[0]?.plan.loadPlan).toMatchObject({
        warmupSeconds: 0.5,
        stepDurationSeconds: 1,
        kneeProbes: 0,
        repeats: 1,
      });
    });
  });

  it('corrects the count when the proof did not hold: cpu-prove-2 with 3 instances holds, and both endpoints are deleted', async () => {
    // Prepare: the candidate answers in 2 ms, the first proof's endpoint in 300 ms (SLA p95 200 ms),
    // the corrected one in 2 ms.
    const sagemaker = new RecordingSageMaker();
    const first = resourceName('corrected', 'endpoint', 'cpu-prove');
    const second = resourceName('corrected', 'endpoint', 'cpu-prove-2');

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: targetInput(),
      runId: 'corrected',
      endpoints: (name) => ({ latencyMs: name === first ? 300 : 2 }),
    });

    // Assert
    const output = succeeded(run.result);
    expect([output.proof?.status, output.proof?.instances]).toEqual(['held', 3]);
    expect(output.proof?.note).toMatch(
      /^proven: 3 × ml\.c5\.xlarge held p95 [\d.]+ ms at [\d.]+ TPS \(target 80\); deploy 3, not the 2 sized from the measurement$/,
    );
    expect(
      sagemaker.variants.get(resourceName('corrected', 'endpoint-config', 'cpu-prove-2'))
        ?.initialInstanceCount,
    ).toBe(3);
    expect(run.statesEntered).toEqual(expect.arrayContaining(['Correct the count?', 'Plan corrected proof']));
    expect(sagemaker.calls).toEqual(
      expect.arrayContaining([`DeleteEndpoint ${first}`, `DeleteEndpoint ${second}`]),
    );
    expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
    const report = readJson(run.store, `s3://${ARTIFACTS_BUCKET}/runs/corrected/report.json`) as Report;
    expect(report.serveTarget?.proof?.previous).toMatchObject({ status: 'not-held', instances: 2 });
  }, 60_000);

  it('reports the SLA not held when the corrected count does not hold either, and deletes both endpoints', async () => {
    // Prepare: every proof endpoint answers in 300 ms (SLA p95 200 ms).
    const sagemaker = new FakeSageMaker();
    const first = resourceName('not-held', 'endpoint', 'cpu-prove');
    const second = resourceName('not-held', 'endpoint', 'cpu-prove-2');

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: targetInput(),
      runId: 'not-held',
      endpoints: (name) => ({ latencyMs: name === first || name === second ? 300 : 2 }),
    });

    // Assert
    const output = succeeded(run.result);
    expect([output.proof?.status, output.proof?.instances]).toEqual(['not-held', 3]);
    expect(output.proof?.note).toMatch(
      /^not held: 3 × ml\.c5\.xlarge at 80 TPS: p95 [\d.]+ ms > SLA 200 ms.*; raise the count \(availability\.minInstances or a lower scaling\.headroom\), or pick the next candidate of the ranking, and run again$/,
    );
    expect(run.statesEntered.filter((state) => state === 'Record proof')).toHaveLength(2);
    expect(sagemaker.calls).toEqual(
      expect.arrayContaining([`DeleteEndpoint ${first}`, `DeleteEndpoint ${second}`]),
    );
    expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
    const report = readJson(run.store, `s3://${ARTIFACTS_BUCKET}/runs/not-held/report.json`) as Report;
    expect([report.serveTarget?.proven, report.serveTarget?.proof?.status]).toEqual([false, 'not-held']);
  }, 60_000);

  it('deletes the proof endpoint and records the proof failed when a proof worker fails mid-step', async () => {
    // Prepare: the proof's worker crashes after the endpoint is in service.
    const sagemaker = new FakeSageMaker();
    const proofEndpoint = resourceName('proof-fails', 'endpoint', 'cpu-prove');

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: targetInput(),
      runId: 'proof-fails',
      wrap: (real) => ({
        'run-load-worker': (payload, signal) =>
          (payload as RunLoadWorkerEvent).candidateId === 'cpu-prove'
            ? Promise.reject(
                Object.assign(new Error('worker ran out of memory'), { name: 'Runtime.OutOfMemory' }),
              )
            : real['run-load-worker'](payload, signal),
      }),
    });

    // Assert
    const output = succeeded(run.result);
    expect(output.proof).toEqual({
      status: 'failed',
      candidateId: 'cpu',
      instances: 2,
      note: 'not proven: the proof of 2 × ml.c5.xlarge failed: Runtime.OutOfMemory: worker ran out of memory',
    });
    expect(run.statesEntered).toEqual(
      expect.arrayContaining(['Delete failed proof endpoint', 'Record failed proof']),
    );
    expect(run.statesEntered).not.toContain('Record proof');
    expect(sagemaker.calls).toContain(`DeleteEndpoint ${proofEndpoint}`);
    expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
    const report = readJson(run.store, `s3://${ARTIFACTS_BUCKET}/runs/proof-fails/report.json`) as Report;
    expect(report.serveTarget?.proof?.status).toBe('failed');
  }, 60_000);

  it('leaves the proof endpoint to run clean-up when its delete step fails, which finds it by the run prefix and deletes it', async () => {
    // Prepare: "Delete proof endpoint" crashes (the candidates' deletes work).
    const sagemaker = new FakeSageMaker();
    const proofEndpoint = resourceName('proof-delete-fails', 'endpoint', 'cpu-prove');

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: targetInput(),
      runId: 'proof-delete-fails',
      wrap: (real) => ({
        'delete-candidate': (payload, signal) =>
          (payload as { candidate: { id: string } }).candidate.id === 'cpu-prove'
            ? Promise.reject(Object.assign(new Error('Lambda crashed'), { name: 'Runtime.ExitError' }))
            : real['delete-candidate'](payload, signal),
      }),
    });

    // Assert
    const output = succeeded(run.result);
    expect(output.proof?.status).toBe('held');
    expect(run.statesEntered).toContain('Delete proof endpoint');
    expect(output.cleanUp.endpoints).toEqual([proofEndpoint]);
    expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
  }, 60_000);

  it('deletes the candidates not kept right after "Recommend" with keep-recommended, so the proof fits the instance quota', async () => {
    // Prepare: two candidates of one type, 1 instance each; the quota of 3 holds the kept winner
    // and the proof's 2 instances, but not the loser besides.
    const sagemaker = new FakeSageMaker({ instanceQuotas: { 'ml.c5.xlarge': 3 } });
    const loser = resourceName('keep-proof', 'endpoint', 'slow');
    const proofEndpoint = resourceName('keep-proof', 'endpoint', 'cpu-prove');

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: targetInput({
        candidates: [
          { id: 'cpu', instanceType: 'ml.c5.xlarge' },
          { id: 'slow', instanceType: 'ml.c5.xlarge' },
        ],
        cleanup: { policy: 'keep-recommended' },
      }),
      runId: 'keep-proof',
      endpoints: (name) => ({ latencyMs: name === loser ? 40 : 2 }),
    });

    // Assert
    const output = succeeded(run.result);
    expect(output.keep?.endpointName).toBe(resourceName('keep-proof', 'endpoint', 'cpu'));
    expect(output.proof?.status).toBe('held');
    const recommendAt = run.statesEntered.indexOf('Recommend');
    expect(run.statesEntered.slice(recommendAt, recommendAt + 4)).toEqual([
      'Recommend',
      'Candidates kept?',
      'Delete candidates not kept',
      'Prove the target?',
    ]);
    const loserDeleted = sagemaker.calls.indexOf(`DeleteEndpoint ${loser}`);
    expect(loserDeleted).toBeGreaterThan(-1);
    expect(loserDeleted).toBeLessThan(sagemaker.calls.indexOf(`CreateEndpoint ${proofEndpoint}`));
    expect(sagemaker.quotaRefusals).toBe(0);
    expect(sagemaker.leftovers().endpoints).toEqual([output.keep?.endpointName]);
  }, 60_000);

  it('skips the proof when prove.enabled is false, and the report says why', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker();

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: targetInput({ prove: { enabled: false } }),
      runId: 'proof-off',
    });

    // Assert
    const output = succeeded(run.result);
    expect(output.proof).toEqual({
      status: 'skipped',
      note: 'not proven: the proof was skipped: off (prove.enabled is false)',
    });
    expect(output.proofRequest).toBeUndefined();
    expect(run.statesEntered).toContain('Prove the target?');
    expect(run.statesEntered).not.toContain('Deploy proof endpoint');
    expect(sagemaker.calls.filter((call) => call.includes('cpu-prove'))).toEqual([]);
  }, 60_000);
});
