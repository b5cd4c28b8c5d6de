import { describe, expect, it } from '@jest/globals';
import type { InvalidRunInputError } from '../../../../core/contracts/errors.js';
import { stateSizeIssue } from '../../../../core/planning/state-size.js';
import {
  validateAndPlan,
  type ValidateAndPlanDeps,
} from '../../../../core/steps/optimization/validate-and-plan.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';
import { planRefusal } from './support/plan-refusal.js';

const MODEL_URI = 's3://user-models/cnn/model.onnx';
const SMALL = 's3://user-models/cnn/small.json';
const LARGE = 's3://user-models/cnn/large.json';

function input(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: { artifactUri: MODEL_URI, framework: 'onnx' },
    payloads: [
      { uri: SMALL, weight: 3 },
      { uri: LARGE, contentType: 'application/x-npy' },
    ],
    candidates: [{ instanceType: 'ml.c5.xlarge' }],
    loadPlan: { steps: [1, 4], warmupSeconds: 5, stepDurationSeconds: 60 },
    sla: { p95LatencyMs: 100 },
    ...overrides,
  };
}

function deps(
  store = new MemoryObjectStore()
    .seed(MODEL_URI, 'weights')
    .seed(SMALL, '{"x":1}')
    .seed(LARGE, '{"x":[1,2,3]}'),
): ValidateAndPlanDeps {
  return { store, artifactsBucket: 'mso-artifacts', allowFileUris: false, logger: silentLogger };
}

function planError(input: unknown, dependencies = deps()): Promise<InvalidRunInputError> {
  return planRefusal(input, dependencies);
}

describe('validateAndPlan: payload mixes', () => {
  it('plans every payload with its weight and size', async () => {
    // Act
    const plan = await validateAndPlan({ runId: 'run-1', input: input() }, deps());

    // Assert
    expect(plan.payloads).toEqual([
      { uri: SMALL, contentType: 'application/json', weight: 3, sizeBytes: 7 },
      { uri: LARGE, contentType: 'application/x-npy', weight: 1, sizeBytes: 13 },
    ]);
  });

  it('refuses each missing payload of the mix at its own field', async () => {
    // Prepare
    const store = new MemoryObjectStore().seed(MODEL_URI, 'weights').seed(SMALL, '{}');

    // Act
    const error = await planError(input(), deps(store));

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'payloads[1].uri',
        given: `"${LARGE}"`,
        expected: 'an object that exists and that the workflow can read',
      },
    ]);
  });

  it('fails when a payload lies in the artifacts bucket outside the prefixes the run’s roles read', async () => {
    // Prepare
    const outside = 's3://mso-artifacts/payloads/sentiment.json';
    const inModels = 's3://mso-artifacts/models/cnn/payload.json';
    const store = new MemoryObjectStore().seed(MODEL_URI, 'weights').seed(outside, '{}').seed(inModels, '{}');

    // Act
    const error = await planError(
      input({ payloads: [{ uri: outside }, { uri: inModels }, { uri: SMALL }] }),
      deps(store.seed(SMALL, '{}')),
    );

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'payloads[0].uri',
        given: `"${outside}" (a key outside models/, runs/ of the artifacts bucket)`,
        expected:
          "a URI under s3://mso-artifacts/models/ or s3://mso-artifacts/runs/: the run's roles read only those " +
          'prefixes of the artifacts bucket (upload the object beside its model, e.g. models/<model>/payload.json)',
      },
    ]);
  });

  it("refuses a payload over SageMaker's serverless body limit when a candidate is serverless", async () => {
    // Prepare
    const store = new MemoryObjectStore()
      .seed(MODEL_URI, 'weights')
      .seed(SMALL, '{}')
      .seed(LARGE, new Uint8Array(4 * 1024 * 1024 + 1));

    // Act
    const error = await planError(
      input({ candidates: [{ serverless: { memorySizeMb: 2048 } }] }),
      deps(store),
    );

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'payloads[1].uri',
        given: `"${LARGE}" (4194305 bytes)`,
        expected: "at most 4194304 bytes (SageMaker's serverless payload limit)",
      },
    ]);
  });

  it('refuses a mix whose payloads together pass what a load worker holds', async () => {
    // Prepare: 50 payloads just within the 6 MB body limit make 300 MB.
    const uris = Array.from({ length: 50 }, (_, index) => `s3://user-models/mix/${index}.bin`);
    const store = new MemoryObjectStore().seed(MODEL_URI, 'weights');
    store.head = (uri: string) =>
      Promise.resolve({
        sizeBytes: uri === MODEL_URI ? 7 : 6 * 1024 * 1024 - (uri.endsWith('/7.bin') ? 0 : 1),
      });

    // Act
    const error = await planError(input({ payloads: uris.map((uri) => ({ uri })) }), deps(store));

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'payloads',
        given: '50 payloads of 314572751 bytes in all (the largest, payloads[7], 6291456 bytes)',
        expected:
          'at most 268435456 bytes in all (each load worker holds every payload in memory): fewer or smaller payloads',
      },
    ]);
  });

  it("names payloads as the field to shrink when its list makes the plan's state too large", () => {
    // Prepare: 50 payloads with 1,000-character keys, beside 50 candidates.
    const payloads = Array.from({ length: 50 }, (_, index) => ({
      uri: `s3://user-models/${'k'.repeat(1000)}/${index}.json`,
      contentType: 'application/json',
      weight: 1,
      sizeBytes: 10,
    }));
    const candidates = Array.from({ length: 50 }, () => ({ environment: {} }));

    // Act
    const issue = stateSizeIssue({
      plan: { payloads },
      candidates,
      compilationTargets: 0,
      workersPerCandidate: 1,
      tags: {},
      modelEnvironment: {},
      payloads,
      expandedByRanges: false,
    });

    // Assert
    expect(issue).toEqual({
      field: 'payloads',
      given:
        '54741 bytes (as JSON): the largest state (the run state after "Benchmark each candidate") reaches 263650 bytes',
      expected:
        "payloads of at most 53235 bytes (as JSON), so that every state stays within 262144 bytes (Step Functions' " +
        'payload quota per state; States.DataLimitExceeded cannot be caught)',
    });
  });
});
