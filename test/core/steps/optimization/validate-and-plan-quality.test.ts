import { describe, expect, it } from '@jest/globals';
import { InvalidRunInputError } from '../../../../core/contracts/errors.js';
import {
  validateAndPlan,
  type ValidateAndPlanDeps,
} from '../../../../core/steps/optimization/validate-and-plan.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';

const MODEL_URI = 's3://user-models/cnn/model.onnx';
const PAYLOAD_URI = 's3://user-models/cnn/payload.json';
const SERVER_IMAGE = '123456789012.dkr.ecr.us-east-1.amazonaws.com/mso-model-server:1';

function input(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: {
      artifactUri: MODEL_URI,
      framework: 'onnx',
      inputShape: { input: [1, 3, 32, 32] },
      image: SERVER_IMAGE,
    },
    payload: { uri: PAYLOAD_URI },
    compilation: { targets: ['ml_c5'] },
    candidates: [
      { id: 'cpu-neo', instanceType: 'ml.c5.xlarge', compiledFor: 'ml_c5' },
      { id: 'cpu', instanceType: 'ml.c5.xlarge' },
      { id: 'gpu', instanceType: 'ml.g4dn.xlarge' },
    ],
    loadPlan: { steps: [1, 4], warmupSeconds: 5, stepDurationSeconds: 60 },
    sla: { p95LatencyMs: 100 },
    quality: { rule: { kind: 'tensor' } },
    ...overrides,
  };
}

function deps(): ValidateAndPlanDeps {
  const store = new MemoryObjectStore().seed(MODEL_URI, 'weights').seed(PAYLOAD_URI, '{"x":1}');
  return { store, artifactsBucket: 'mso-artifacts', allowFileUris: false, logger: silentLogger };
}

async function issuesOf(document: unknown): Promise<readonly { field: string; expected: string }[]> {
  const error = await validateAndPlan({ runId: 'run-1', input: document }, deps()).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(InvalidRunInputError);
  return (error as InvalidRunInputError).issues;
}

describe('validateAndPlan: the output-quality guard', () => {
  it('plans the first candidate that serves the model as given as the reference', async () => {
    // Act
    const plan = await validateAndPlan({ runId: 'run-1', input: input() }, deps());

    // Assert: "cpu-neo" is compiled; "cpu" is the first uncompiled one; numpy's defaults apply.
    expect(plan.quality).toEqual({
      referenceCandidateId: 'cpu',
      rule: { kind: 'tensor', maxAbsoluteDifference: 1e-8, maxRelativeDifference: 1e-5 },
      allowUnknown: false,
      worstExamples: 5,
    });
  });

  it('plans the first combination of a reference expanded over environment ranges', async () => {
    // Act
    const plan = await validateAndPlan(
      { runId: 'run-1', input: input({ environmentRanges: { OMP_NUM_THREADS: ['1', '2'] } }) },
      deps(),
    );

    // Assert
    expect(plan.quality?.referenceCandidateId).toBe('cpu-e1');
  });

  it('plans no guard when the input has no quality block', async () => {
    const plan = await validateAndPlan({ runId: 'run-1', input: input({ quality: undefined }) }, deps());
    expect(plan.quality).toBeUndefined();
  });

  it('fails when every candidate is compiled and no reference is named', async () => {
    // Prepare
    const document = input({
      candidates: [
        { id: 'neo-a', instanceType: 'ml.c5.xlarge', compiledFor: 'ml_c5' },
        { id: 'neo-b', instanceType: 'ml.c5.2xlarge', compiledFor: 'ml_c5' },
      ],
    });

    // Act
    const issues = await issuesOf(document);

    // Assert
    expect(issues).toEqual([
      expect.objectContaining({
        field: 'quality.reference',
        expected: expect.stringContaining('none serves the model as given'),
      }),
    ]);
  });

  it('fails when the named reference is not a candidate, listing the ids there are', async () => {
    const issues = await issuesOf(input({ quality: { reference: 'tpu', rule: { kind: 'tensor' } } }));
    expect(issues).toEqual([
      expect.objectContaining({
        field: 'quality.reference',
        expected: expect.stringContaining('cpu-neo, cpu, gpu'),
      }),
    ]);
  });

  it('fails when the run generates tokens, naming the quality block', async () => {
    // Prepare: streamed answers make the run generative.
    const document = input({
      loadPlan: {
        steps: [1],
        warmupSeconds: 5,
        stepDurationSeconds: 60,
        response: { mode: 'stream', format: 'tgi' },
      },
      sla: { p95LatencyMs: 100 },
    });

    // Act
    const issues = await issuesOf(document);

    // Assert
    expect(issues).toContainEqual(
      expect.objectContaining({ field: 'quality', expected: expect.stringContaining('generates tokens') }),
    );
  });

  it('fails when an existing endpoint is tested, as there is no reference to compare it with', async () => {
    const issues = await issuesOf(
      input({
        model: undefined,
        compilation: undefined,
        candidates: undefined,
        existingEndpoint: { endpointName: 'prod' },
      }),
    );
    expect(issues).toContainEqual(expect.objectContaining({ field: 'quality' }));
  });
});
