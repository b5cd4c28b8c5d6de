import { describe, expect, it } from '@jest/globals';
import { InvalidRunInputError } from '../../../core/contracts/errors.js';
import { runInputSchema } from '../../../core/contracts/run-input.js';
import { optimizationInputIssues } from '../../../core/planning/input-rules.js';
import type { RunStarter, RunStartOutcome } from '../../../core/run-status/ports.js';
import { apiErrorSchema } from '../../../core/contracts/run-api-contract.js';
import { startRun } from '../../../core/operations/start-run.js';
import { validateAndPlan } from '../../../core/steps/optimization/validate-and-plan.js';
import { MemoryObjectStore, silentLogger } from '../../support/memory-object-store.js';

/**
 * The run API accepts no run that the first state refuses without an AWS read: start-run and
 * "Validate and plan" call the same rules (input + region → issues), so a table of inputs gets the
 * same issues from both, and start-run starts none of them.
 */

const REGION = 'us-east-1';

const base = {
  model: {
    artifactUri: 's3://user-models/resnet/model.pt',
    framework: 'pytorch',
    frameworkVersion: '1.13',
    inputShape: { input0: [1, 3, 224, 224] },
  },
  payload: { uri: 's3://user-models/resnet/payload.json', contentType: 'application/json' },
  candidates: [{ instanceType: 'ml.g4dn.xlarge' }],
  loadPlan: { steps: [1, 2], warmupSeconds: 5, stepDurationSeconds: 30 },
  sla: { p95LatencyMs: 100 },
};

/** Inputs the schema accepts and the region-only rules refuse, each with the fields they name. */
const REFUSED: readonly [string, Record<string, unknown>, string[]][] = [
  [
    'ml_inf2 compiled outside us-east-2, the one region Neo compiles for it',
    {
      ...base,
      compilation: { targets: ['ml_inf2'] },
      candidates: [{ instanceType: 'ml.inf2.xlarge', compiledFor: 'ml_inf2' }],
    },
    ['compilation.targets[0]'],
  ],
  [
    'a ramp step among the candidates’ load',
    { ...base, loadPlan: { ...base.loadPlan, model: 'open', steps: [10], ramp: { fromTps: 1 } } },
    ['loadPlan.ramp'],
  ],
  [
    'knee probes with steps longer than a load worker invocation',
    {
      ...base,
      loadPlan: { ...base.loadPlan, stepDurationSeconds: 900, maxTotalSeconds: 3600, kneeProbes: 2 },
    },
    ['loadPlan.kneeProbes'],
  ],
  [
    'a ramp test longer than a load worker invocation',
    { ...base, sla: { ...base.sla, targetTps: 50 }, rampTest: { enabled: true, seconds: 7200 } },
    ['rampTest.seconds'],
  ],
  [
    'fails when targetTps is above the arrival rate the proof can send (1e9 TPS)',
    { ...base, sla: { ...base.sla, targetTps: 1e9 } },
    ['sla.targetTps'],
  ],
  [
    'fails when scaling.peakTps is above the arrival rate the ramp test can send',
    {
      ...base,
      sla: { ...base.sla, targetTps: 50 },
      prove: { enabled: false },
      scaling: { peakTps: 2e5 },
      rampTest: { enabled: true, seconds: 60 },
    },
    ['scaling.peakTps'],
  ],
  [
    'fails when an AWS run asks for int8 quantization, which only the local compiler offers',
    {
      ...base,
      model: {
        artifactUri: 's3://user-models/cnn/model.onnx',
        framework: 'onnx',
        frameworkVersion: '1.7.0',
        image: '123456789012.dkr.ecr.us-east-1.amazonaws.com/onnx-server:1',
        inputShape: { input: [1, 3, 32, 32] },
      },
      compilation: {
        targets: ['ml_c5'],
        quantization: { ml_c5: { type: 'int8', calibrationRange: [-1, 1] } },
      },
      candidates: [{ instanceType: 'ml.c5.large', compiledFor: 'ml_c5' }],
    },
    ['compilation.quantization'],
  ],
  [
    'a framework with no serving image in the table',
    { ...base, model: { ...base.model, framework: 'xgboost', frameworkVersion: '0.1' } },
    ['candidates[0]'],
  ],
];

class RecordingStarter implements RunStarter {
  readonly calls: unknown[] = [];
  start(request: unknown): Promise<RunStartOutcome> {
    this.calls.push(request);
    return Promise.resolve({
      status: 'started',
      executionArn: 'arn:aws:states:us-east-1:123456789012:execution:Optimization:nightly',
      startDate: new Date('2026-11-24T10:00:00Z'),
    });
  }
}

async function startRunIssues(input: unknown) {
  const starter = new RecordingStarter();
  const reply = await startRun(
    {
      workflow: 'optimization',
      body: JSON.stringify({ runId: 'nightly', input }),
      contentType: 'application/json',
      requestId: 'req-1',
      stageUrl: 'https://abc123.execute-api.us-east-1.amazonaws.com/v1',
    },
    { starter, logger: silentLogger, servingRegion: REGION },
  );
  return { reply, started: starter.calls.length, issues: apiErrorSchema.safeParse(reply.body).data?.issues };
}

async function firstStateIssues(input: unknown) {
  const refusal = await validateAndPlan(
    { runId: 'nightly', input },
    {
      store: new MemoryObjectStore(),
      artifactsBucket: 'mso-artifacts',
      allowFileUris: false,
      servingRegion: REGION,
      logger: silentLogger,
    },
  ).catch((error: unknown) => error);
  if (!(refusal instanceof InvalidRunInputError))
    throw new Error(`expected a refusal, got ${String(refusal)}`);
  return refusal.issues;
}

describe('region-only input rules: the run API and the first state refuse alike', () => {
  it.each(REFUSED)(
    'POST /runs answers 400 with the first state’s issues, starting nothing: %s',
    async (_name, input, fields) => {
      // Act
      const api = await startRunIssues(input);
      const firstState = await firstStateIssues(input);

      // Assert
      expect(api.reply.statusCode).toBe(400);
      expect(api.started).toBe(0);
      expect(api.issues).toEqual(firstState);
      expect(firstState.map((issue) => issue.field)).toEqual(fields);
      expect(optimizationInputIssues(runInputSchema.parse(input), { servingRegion: REGION })).toEqual(
        firstState,
      );
    },
  );

  it('lists every rule’s issue at once', async () => {
    // Prepare
    const input = {
      ...REFUSED[0]?.[1],
      loadPlan: { ...base.loadPlan, model: 'open', steps: [10], ramp: { fromTps: 1 } },
    };

    // Act
    const api = await startRunIssues(input);

    // Assert
    expect(api.issues?.map((issue) => issue.field)).toEqual(['loadPlan.ramp', 'compilation.targets[0]']);
    expect(api.issues).toEqual(await firstStateIssues(input));
  });

  it('starts a run the rules accept, and the rules accept ml_inf2 in us-east-2', async () => {
    // Prepare
    const inf2 = REFUSED[0]?.[1];

    // Act
    const api = await startRunIssues(base);
    const inUsEast2 = optimizationInputIssues(runInputSchema.parse(inf2), { servingRegion: 'us-east-2' });

    // Assert
    expect(api.reply.statusCode).toBe(200);
    expect(api.started).toBe(1);
    expect(inUsEast2).toEqual([]);
  });
});
