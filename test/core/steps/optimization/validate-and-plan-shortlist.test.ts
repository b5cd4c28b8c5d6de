import { describe, expect, it } from '@jest/globals';
import { InvalidRunInputError } from '../../../../core/contracts/errors.js';
import { formatPlan } from '../../../../core/report/plan-summary.js';
import {
  validateAndPlan,
  type ValidateAndPlanDeps,
} from '../../../../core/steps/optimization/validate-and-plan.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';

const MODEL_URI = 's3://user-models/cnn/model.onnx';
const PAYLOAD_URI = 's3://user-models/cnn/payload.bin';

function shortlistInput(shortlist: unknown, parameters = 1e6): Record<string, unknown> {
  return {
    model: {
      artifactUri: MODEL_URI,
      framework: 'onnx',
      inputShape: { input: [1, 3, 32, 32] },
      size: { parameters, dtype: 'fp32' },
    },
    payload: { uri: PAYLOAD_URI, contentType: 'application/octet-stream' },
    candidates: { shortlist },
    loadPlan: { steps: [1, 4], warmupSeconds: 5, stepDurationSeconds: 60 },
    sla: { p95LatencyMs: 100 },
  };
}

function deps(servingRegion?: string): ValidateAndPlanDeps {
  return {
    store: new MemoryObjectStore().seed(MODEL_URI, 'weights').seed(PAYLOAD_URI, 'body'),
    artifactsBucket: 'mso-artifacts',
    allowFileUris: false,
    ...(servingRegion === undefined ? {} : { servingRegion }),
    logger: silentLogger,
  };
}

describe('validateAndPlan: a shortlist', () => {
  it('plans the shortlisted types as candidates, priced from the table, and records the choice', async () => {
    // Act
    const plan = await validateAndPlan(
      { runId: 'run-1', input: shortlistInput({ max: 3, kinds: ['cpu'] }) },
      deps(),
    );

    // Assert
    expect([
      plan.candidates.map((c) => [c.id, c.instanceType, c.usdPerHour, c.priceSource]),
      plan.shortlist?.chosen.map((type) => type.instanceType),
    ]).toEqual([
      [
        ['c1-c6g-large', 'ml.c6g.large', 0.082, 'price-table'],
        ['c2-m6g-large', 'ml.m6g.large', 0.092, 'price-table'],
        ['c3-c5-large', 'ml.c5.large', 0.102, 'price-table'],
      ],
      ['ml.c6g.large', 'ml.m6g.large', 'ml.c5.large'],
    ]);
  });

  it('plans a shortlist for AWS with the images of the region', async () => {
    // Prepare: SageMaker has PyTorch serving images for CPUs, Graviton and GPUs (catalog/image-table.ts).
    const input = shortlistInput({ max: 2, kinds: ['cpu', 'gpu'] });
    const pytorch = { ...(input.model as object), framework: 'pytorch', frameworkVersion: '2.1' };

    // Act
    const plan = await validateAndPlan(
      { runId: 'run-1', input: { ...input, model: pytorch } },
      deps('us-east-1'),
    );

    // Assert
    expect(plan.candidates.map((c) => c.instanceType)).toEqual(['ml.c6g.large', 'ml.g4dn.xlarge']);
  });

  it('--plan prints the shortlist, its rule and each left-out family under its reason', async () => {
    // Prepare
    const plan = await validateAndPlan(
      { runId: 'run-1', input: shortlistInput({ max: 2, kinds: ['cpu'] }) },
      deps(),
    );

    // Act
    const text = formatPlan({ plan, runCommand: 'npm start -- --input x.json', local: true });

    // Assert
    const lines = text.split('\n');
    expect([
      lines.some((line) =>
        line.startsWith('  Shortlisted by the planner (kinds cpu, at most 2): cheapest per hour'),
      ),
      lines.includes('  left out c5, c7i, m5: dearer than the 2 types chosen'),
      lines.includes(
        '  left out t2: burstable: under a sustained load it runs at its CPU-credit baseline, not at its size',
      ),
    ]).toEqual([true, true, true]);
  });

  it('fails when no type of the kinds asked for holds the model, before anything is created', async () => {
    // Act
    const error = await validateAndPlan(
      { runId: 'run-1', input: shortlistInput({ max: 2, kinds: ['inferentia'] }) },
      deps(),
    ).catch((e: unknown) => e);

    // Assert
    expect(error).toBeInstanceOf(InvalidRunInputError);
    expect((error as InvalidRunInputError).issues).toEqual([
      {
        field: 'candidates.shortlist',
        given: '{"max":2,"kinds":["inferentia"]}',
        expected: expect.stringContaining(
          'inf1, inf2: Inferentia serves Neuron-compiled models only: list its target (ml_inf1, ml_inf2) in compilation.targets',
        ),
      },
    ]);
  });
});
