import { beforeAll, describe, expect, it } from '@jest/globals';
import { resourceName } from '../../core/contracts/names.js';
import type { RunLoadWorkerEvent } from '../../core/contracts/optimization-state.js';
import type { Report } from '../../core/report/report.js';
import { FakeRealtimeScaling } from '../support/fake-realtime-scaling.js';
import { FakeSageMaker } from '../support/fake-sagemaker.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import {
  ARTIFACTS_BUCKET,
  type OptimizationRun,
  optimizationInput,
  readJson,
  runOptimization,
  succeeded,
} from './run-optimization.js';

/**
 * "Ramp test" on the synthesized definition, run locally over the real step handlers: the winner
 * deployed again at the policy's minimum, the report's two scaling requests applied to it, one
 * open-model ramp to the peak, the verdict in the report, and the scaling deregistered and the
 * endpoint deleted on every path.
 */

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

/**
 * One candidate answering in 50 ms, measured at concurrency 1: about 20 TPS per instance, so 60 TPS
 * at headroom 0.7 needs 5 instances, and the policy's minimum of 2 carries about 28 TPS at its
 * target: the ramp rises from there to 60 TPS over 1 s, after a warm-up of 0.3 s (the candidate's
 * window is 0.6 s). No proof: the ramp is what is tested here.
 *
 * The SLA is far above the 2 ms answers of a ramp that holds: the ramp is judged in 50 ms buckets of
 * one to three requests each, so one request held up by this process (a garbage collection on a
 * machine running three jest workers on two cores) sets a bucket's p95. With a 200 ms SLA, that
 * broke a ramp that held in two of four full `npm test` runs on three workers.
 */
const SLA_P95_MS = 1000;

function rampInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return optimizationInput({
    compilation: { targets: [] },
    candidates: [{ id: 'cpu', instanceType: 'ml.c5.xlarge' }],
    loadPlan: {
      model: 'closed',
      steps: [1],
      warmupSeconds: 0.3,
      stepDurationSeconds: 0.6,
      stopAtPlateau: false,
      repeats: 1,
      kneeProbes: 0,
    },
    sla: { p95LatencyMs: SLA_P95_MS, targetTps: 60 },
    prove: { enabled: false },
    rampTest: { enabled: true, seconds: 1 },
    ...overrides,
  });
}

/** The candidate at 50 ms; the ramp's endpoint as the test says. */
function latencies(runId: string, rampLatencyMs: number) {
  const rampEndpoint = resourceName(runId, 'endpoint', 'cpu-ramp');
  return (endpointName: string) => ({ latencyMs: endpointName === rampEndpoint ? rampLatencyMs : 50 });
}

/** One scale-out during the ramp: a third instance starting at 0.2 s, in service at 0.4 s. */
const ONE_SCALE_OUT = (from: number) => [
  { atEpochMs: from - 1000, inService: 2 },
  { atEpochMs: from + 200, inService: 2, starting: 1 },
  { atEpochMs: from + 400, inService: 3 },
];

/** A scale-out too slow for the ramp: a third instance starting at 0.1 s, in service at 0.9 s. */
const SLOW_SCALE_OUT = (from: number) => [
  { atEpochMs: from - 1000, inService: 2 },
  { atEpochMs: from + 100, inService: 2, starting: 1 },
  { atEpochMs: from + 900, inService: 3 },
];

const RAMP_STATES = [
  'Ramp test?',
  'Plan ramp load',
  'Select ramp candidate',
  'Deploy ramp endpoint',
  'Wait for ramp endpoint',
  'Check ramp endpoint',
  'Ramp endpoint in service?',
  'Apply ramp scaling policy',
  'Run ramp load workers',
  'Run ramp load worker',
  'Aggregate ramp load test',
  'Ramp load test over?',
];

describe('optimization workflow: ramp test (synthesized definition, run locally)', () => {
  describe('a ramp that holds (one execution, spied on)', () => {
    const sagemaker = new FakeSageMaker();
    const scaling = new FakeRealtimeScaling(ONE_SCALE_OUT);
    const workerEvents: RunLoadWorkerEvent[] = [];
    const rampEndpoint = resourceName('held', 'endpoint', 'cpu-ramp');
    let run: OptimizationRun;

    beforeAll(async () => {
      run = await runOptimization({
        workflows,
        sagemaker,
        input: rampInput(),
        runId: 'held',
        realtimeScaling: scaling,
        endpoints: latencies('held', 2),
        wrap: (real) => ({
          'run-load-worker': (payload, signal) => {
            workerEvents.push(payload as RunLoadWorkerEvent);
            return real['run-load-worker'](payload, signal);
          },
        }),
      });
    }, 60_000);

    it('applies the policy to the ramp endpoint at its minimum, records the SLA held with the scale-out, then deregisters and deletes', () => {
      const output = succeeded(run.result);
      expect(output.ramp).toEqual({
        status: 'held',
        note: expect.stringMatching(
          /^held: the SLA held through the ramp of 2–5 × ml\.c5\.xlarge from [\d.]+ to 60 TPS over 1 s; 2→3 at 0 s \(\d+ s after its trigger\)$/,
        ),
      });
      expect(scaling.calls).toEqual([
        expect.stringMatching(
          new RegExp(`^RegisterScalableTarget endpoint/${rampEndpoint}/variant/AllTraffic 2-5$`),
        ),
        expect.stringMatching(
          new RegExp(`^PutScalingPolicy ${rampEndpoint}-invocations-per-instance [\\d.]+$`),
        ),
        `DescribeScalingActivities endpoint/${rampEndpoint}/variant/AllTraffic`,
        `DeregisterScalableTarget endpoint/${rampEndpoint}/variant/AllTraffic`,
        // The run's clean-up deregisters every endpoint it deletes: none is left by then.
      ]);
      expect(scaling.registered.size).toBe(0);
      expect(run.statesEntered).toEqual(
        expect.arrayContaining([
          ...RAMP_STATES,
          'Record ramp',
          'Deregister ramp scaling',
          'Delete ramp endpoint',
        ]),
      );
      expect(sagemaker.calls).toContain(`DeleteEndpoint ${rampEndpoint}`);
      expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
      const report = readJson(run.store, `s3://${ARTIFACTS_BUCKET}/runs/held/report.json`) as Report;
      expect(report.serveTarget?.ramp).toMatchObject({
        status: 'held',
        candidateId: 'cpu',
        instanceType: 'ml.c5.xlarge',
        toTps: 60,
        minInstances: 2,
        maxInstances: 5,
        outcome: {
          held: true,
          slaBrokenSeconds: 0,
          scaleOuts: [{ atSeconds: 0.4, fromInstances: 2, toInstances: 3 }],
        },
      });
      expect(report.serveTarget?.ramp?.outcome?.chart).toHaveLength(20);
    });

    it('runs the ramp as one open-model ramp step from the minimum’s rate to the peak', () => {
      succeeded(run.result);
      const ramp = workerEvents.filter((e) => e.candidateId === 'cpu-ramp');
      expect(ramp.map((e) => [e.workerIndex, e.plan.loadPlan.model, e.plan.loadPlan.steps])).toEqual([
        [0, 'open', [60]],
      ]);
      expect(ramp[0]?.plan.loadPlan).toMatchObject({
        warmupSeconds: 0.3,
        stepDurationSeconds: 1,
        ramp: { fromTps: expect.any(Number) },
        kneeProbes: 0,
        repeats: 1,
      });
    });
  });

  it('re-tests once at the advised headroom when the scale-out came too late for the SLA, keeping the first ramp, and leaves nothing', async () => {
    // Prepare: the first ramp's endpoint answers in 1.3 s (SLA p95 1 s) and scales out 0.9 s
    // after its trigger, more than headroom 0.7 covers on this ramp; the re-test's answers in 2 ms.
    const sagemaker = new FakeSageMaker();
    const scaling = new FakeRealtimeScaling(SLOW_SCALE_OUT);
    const first = resourceName('broke', 'endpoint', 'cpu-ramp');
    const second = resourceName('broke', 'endpoint', 'cpu-ramp-2');

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: rampInput(),
      runId: 'broke',
      realtimeScaling: scaling,
      endpoints: (endpointName) => ({
        latencyMs: endpointName === first ? SLA_P95_MS + 300 : endpointName === second ? 2 : 50,
      }),
    });

    // Assert
    const output = succeeded(run.result);
    expect(output.ramp?.status).toBe('held');
    expect(run.statesEntered).toEqual(expect.arrayContaining(['Re-test the ramp?', 'Plan ramp re-test']));
    const report = readJson(run.store, `s3://${ARTIFACTS_BUCKET}/runs/broke/report.json`) as Report;
    const ramp = report.serveTarget?.ramp;
    expect(ramp?.previous?.status).toBe('not-held');
    expect(ramp?.previous?.note).toMatch(
      /^not held: the SLA broke for [\d.]+ (s|min) during the ramp of 2–5 × ml\.c5\.xlarge .*; re-testing at headroom 0\.\d+ from 2 instances/,
    );
    expect(ramp?.previous?.outcome?.headroom?.wouldHold).toEqual(expect.any(Number));
    expect(ramp?.minInstances).toBe(2);
    expect(scaling.calls.filter((call) => call.startsWith('RegisterScalableTarget'))).toEqual([
      expect.stringContaining(`endpoint/${first}/variant/AllTraffic`),
      expect.stringContaining(`endpoint/${second}/variant/AllTraffic`),
    ]);
    expect(scaling.calls.filter((call) => call.startsWith('DeregisterScalableTarget'))).toEqual([
      `DeregisterScalableTarget endpoint/${first}/variant/AllTraffic`,
      `DeregisterScalableTarget endpoint/${second}/variant/AllTraffic`,
    ]);
    expect(scaling.registered.size).toBe(0);
    expect(sagemaker.calls).toEqual(
      expect.arrayContaining([`DeleteEndpoint ${first}`, `DeleteEndpoint ${second}`]),
    );
    expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
  }, 60_000);

  it('fails when a ramp worker fails: records the ramp failed, deregisters and deletes, and the run still succeeds', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker();
    const scaling = new FakeRealtimeScaling(ONE_SCALE_OUT);
    const rampEndpoint = resourceName('mid-ramp', 'endpoint', 'cpu-ramp');

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: rampInput(),
      runId: 'mid-ramp',
      realtimeScaling: scaling,
      endpoints: latencies('mid-ramp', 2),
      wrap: (real) => ({
        'run-load-worker': (payload, signal) =>
          (payload as RunLoadWorkerEvent).candidateId === 'cpu-ramp'
            ? Promise.reject(Object.assign(new Error('worker lost mid-ramp'), { name: 'WorkerCrashed' }))
            : real['run-load-worker'](payload, signal),
      }),
    });

    // Assert
    const output = succeeded(run.result);
    expect(output.ramp).toEqual({
      status: 'failed',
      note: 'the ramp of 2–5 × ml.c5.xlarge failed: WorkerCrashed: worker lost mid-ramp',
    });
    expect(run.statesEntered).toEqual(
      expect.arrayContaining([
        'Deregister failed ramp scaling',
        'Delete failed ramp endpoint',
        'Record failed ramp',
      ]),
    );
    expect(run.statesEntered).not.toContain('Record ramp');
    expect(scaling.calls).toContain(`DeregisterScalableTarget endpoint/${rampEndpoint}/variant/AllTraffic`);
    expect(scaling.registered.size).toBe(0);
    expect(sagemaker.calls).toContain(`DeleteEndpoint ${rampEndpoint}`);
    expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
    const report = readJson(run.store, `s3://${ARTIFACTS_BUCKET}/runs/mid-ramp/report.json`) as Report;
    expect(report.serveTarget?.ramp?.status).toBe('failed');
  }, 60_000);

  it('leaves the ramp endpoint to the run’s clean-up when its deregistration fails, which deregisters then deletes it', async () => {
    // Prepare: Application Auto Scaling throttles the ramp's own deregistration (past its retries).
    const sagemaker = new FakeSageMaker();
    const scaling = new FakeRealtimeScaling(ONE_SCALE_OUT);
    const rampEndpoint = resourceName('throttled', 'endpoint', 'cpu-ramp');
    const resourceId = `endpoint/${rampEndpoint}/variant/AllTraffic`;
    let deregistrations = 0;

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: rampInput(),
      runId: 'throttled',
      realtimeScaling: scaling,
      endpoints: latencies('throttled', 2),
      wrap: (real) => ({
        'ramp-scaling': (payload, signal) => {
          if ((payload as { action?: string }).action === 'deregister' && deregistrations++ < 10) {
            return Promise.reject(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
          }
          return real['ramp-scaling'](payload, signal);
        },
      }),
    });

    // Assert
    const output = succeeded(run.result);
    expect(output.ramp?.status).toBe('held');
    expect(run.statesEntered).toContain('Deregister ramp scaling');
    expect(run.statesEntered).not.toContain('Delete ramp endpoint');
    expect(output.cleanUp.deregisteredScaling).toEqual([resourceId]);
    expect(output.cleanUp.endpoints).toEqual([rampEndpoint]);
    expect(scaling.registered.size).toBe(0);
    expect(sagemaker.leftovers()).toEqual({ endpoints: [], endpointConfigs: [], models: [] });
  }, 60_000);

  it('runs no ramp when it is not asked for, and the report says nothing of it', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker();

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: rampInput({ rampTest: { enabled: false } }),
      runId: 'off',
      endpoints: latencies('off', 2),
    });

    // Assert
    const output = succeeded(run.result);
    expect(output.ramp).toBeUndefined();
    const report = readJson(run.store, `s3://${ARTIFACTS_BUCKET}/runs/off/report.json`) as Report;
    expect(report.serveTarget?.ramp).toBeUndefined();
    expect(run.statesEntered).toContain('Ramp test?');
    expect(run.statesEntered).not.toContain('Plan ramp load');
  }, 60_000);
});
