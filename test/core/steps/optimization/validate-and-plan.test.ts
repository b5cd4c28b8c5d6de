import { gzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { NEO_SUPPORT_SOURCE } from '../../../../core/catalog/neo-support.js';
import {
  BudgetExceededError,
  type InputIssue,
  InvalidRunInputError,
} from '../../../../core/contracts/errors.js';
import { OPTIMIZATION_RUN_TIMEOUT_SECONDS } from '../../../../core/contracts/run-timeouts.js';
import { COMPILATION_TARGETS } from '../../../../core/contracts/compilation-targets.js';
import { SIGNED_REQUESTS_PER_WORKER_SECOND } from '../../../../core/load-test/worker-ceiling.js';
import {
  validateAndPlan,
  type ValidateAndPlanDeps,
} from '../../../../core/steps/optimization/validate-and-plan.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';
import { planRefusal } from './support/plan-refusal.js';

const MODEL_URI = 's3://user-models/resnet/model.pt';
const PAYLOAD_URI = 's3://user-models/resnet/payload.json';

function baseInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: {
      artifactUri: MODEL_URI,
      framework: 'pytorch',
      frameworkVersion: '2.1',
      inputShape: { input0: [1, 3, 224, 224] },
    },
    payload: { uri: PAYLOAD_URI },
    compilation: { targets: ['ml_c5'] },
    candidates: [
      { instanceType: 'ml.c5.xlarge' },
      { instanceType: 'ml.c5.xlarge', compiledFor: 'ml_c5' },
      { instanceType: 'ml.g4dn.xlarge', environment: { SAGEMAKER_MODEL_SERVER_WORKERS: '2' } },
    ],
    loadPlan: { steps: [1, 4], warmupSeconds: 5, stepDurationSeconds: 60 },
    sla: { p95LatencyMs: 100 },
    ...overrides,
  };
}

function deps(
  store = new MemoryObjectStore().seed(MODEL_URI, 'weights').seed(PAYLOAD_URI, '{"x":1}'),
): ValidateAndPlanDeps {
  return { store, artifactsBucket: 'mso-artifacts', allowFileUris: false, logger: silentLogger };
}

function planError(input: unknown, dependencies = deps()): Promise<InvalidRunInputError> {
  return planRefusal(input, dependencies);
}

describe('validateAndPlan: bounds checked before any walk', () => {
  it('fails when the input is nested 100,000 levels deep, naming the field at level 33', async () => {
    // Prepare: as the Lambda runtime hands it over, parsed.
    const input: unknown = JSON.parse(
      `{"model":{"environment":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`,
    );

    // Act
    const error = await planError(input);

    // Assert
    expect(error.issues).toEqual([
      {
        field: `model.environment${'[0]'.repeat(30)}`,
        given: 'an array at nesting level 33',
        expected:
          'at most 32 levels of nested objects and arrays (no run input field is nested more than a few levels deep)',
      },
    ]);
  });
});

describe('validateAndPlan: a ramp step', () => {
  it('refuses loadPlan.ramp until the ramp test runs as its own phase', async () => {
    // Act
    const error = await planError(
      baseInput({
        loadPlan: {
          model: 'open',
          steps: [20],
          ramp: { fromTps: 5 },
          warmupSeconds: 1,
          stepDurationSeconds: 30,
        },
      }),
    );

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'loadPlan.ramp',
        given: '{"fromTps":5}',
        expected:
          'absent: candidates are measured with constant steps; to test the recommended scaling policy under a rising rate, set rampTest.enabled (with sla.targetTps): the run then ramps from the minimum to the peak after "Recommend"',
      },
    ]);
  });
});

describe('validateAndPlan: interleaved repeats', () => {
  it('keeps interleaveRepeats with the repeats written out, and prices the endpoints kept for them', async () => {
    // Prepare
    const loadPlan = { steps: [1, 4], warmupSeconds: 5, stepDurationSeconds: 60, repeats: 3 };

    // Act
    const backToBack = await validateAndPlan({ runId: 'run-1', input: baseInput({ loadPlan }) }, deps());
    const interleaved = await validateAndPlan(
      { runId: 'run-1', input: baseInput({ loadPlan: { ...loadPlan, interleaveRepeats: true } }) },
      deps(),
    );

    // Assert: 3 candidates, 2 at a time: the first wave waits for the second's whole life
    // (600 s to create, 455 s of load test, 120 s to delete), then 2 rounds × 2 waves × (65 + 20 s).
    expect([interleaved.loadPlan.interleaveRepeats, interleaved.loadPlan.repeats]).toEqual([true, 3]);
    expect(interleaved.estimate.assumptions).toContain(
      'repeats interleaved: real-time endpoints billed until every candidate has run its repeats, the first up to 1515 s more',
    );
    expect(interleaved.candidates.map((c) => c.estimatedCostUsd)).toEqual([0.15, 0.15, 0.31]);
    expect(backToBack.candidates.map((c) => c.estimatedCostUsd)).toEqual([0.07, 0.07, 0.24]);
  });

  it('drops interleaveRepeats when there is one candidate or one measurement', async () => {
    // Act
    const alone = await validateAndPlan(
      {
        runId: 'run-1',
        input: baseInput({
          candidates: [{ instanceType: 'ml.c5.xlarge' }],
          loadPlan: { steps: [1], repeats: 3, interleaveRepeats: true },
        }),
      },
      deps(),
    );
    const once = await validateAndPlan(
      { runId: 'run-1', input: baseInput({ loadPlan: { steps: [1], repeats: 1, interleaveRepeats: true } }) },
      deps(),
    );

    // Assert
    expect([alone.loadPlan.interleaveRepeats, once.loadPlan.interleaveRepeats]).toEqual([
      undefined,
      undefined,
    ]);
  });
});

describe("validateAndPlan: the run's duration on AWS", () => {
  it('records the typical duration: the compilation job its whole runtime, then each wave created, load tested and deleted', async () => {
    // Act
    const plan = await validateAndPlan({ runId: 'run-1', input: baseInput() }, deps());

    // Assert: 900 s of compilation, then 2 waves (3 candidates, 2 at a time) of 600 s to create,
    // 390 s of load test (2 steps of 65 s and 4 rounds) and 120 s to delete.
    expect(plan.estimate.durationSeconds?.typical).toBe(900 + 2 * (600 + 390 + 120));
  });

  it('records as the worst duration the one its time limit is checked with (worstRunSeconds)', async () => {
    // Act
    const plan = await validateAndPlan({ runId: 'run-1', input: baseInput() }, deps());

    // Assert: the job's runtime and margin (900 + 600 s), then 2 waves of the endpoint's deadline
    // (2700 s), the load test with its rounds, a re-run and their gaps (880 s), and the deletion (120 s).
    expect(plan.estimate.durationSeconds?.worst).toBe(1500 + 2 * (2700 + 880 + 120));
  });

  it("counts a user's endpoint as neither created nor deleted in the typical duration", async () => {
    // Prepare
    const input = { ...baseInput({ existingEndpoint: { endpointName: 'prod-endpoint' } }) };
    delete input.candidates;
    delete input.compilation;

    // Act
    const plan = await validateAndPlan({ runId: 'run-1', input }, deps());

    // Assert: its load test alone.
    expect(plan.estimate.durationSeconds).toEqual({ typical: 390, worst: 2700 + 880 + 120 });
  });
});

describe('validateAndPlan', () => {
  it('plans candidates, compilations and resource names derived from the run id', async () => {
    // Act
    const plan = await validateAndPlan({ runId: 'nightly-2026-11-22', input: baseInput() }, deps());

    // Assert
    expect(plan.candidates.map((c) => c.id)).toEqual(['c1-c5-xlarge', 'c2-c5-xlarge-neo', 'c3-g4dn-xlarge']);
    expect(plan.candidates[1]).toMatchObject({
      kind: 'realtime',
      instanceType: 'ml.c5.xlarge',
      compiledFor: 'ml_c5',
      usdPerHour: 0.204,
      priceSource: 'price-table',
    });
    expect(plan.candidates[0]?.endpointName).toMatch(/^mso-nightly-2026-11-22-[0-9a-f]{8}-ep-c1-c5-xlarge$/);
    expect(plan.compilations).toEqual([
      {
        target: 'ml_c5',
        jobName: expect.stringMatching(/^mso-nightly-2026-11-22-[0-9a-f]{8}-cj-ml-c5$/),
        outputUri: 's3://mso-artifacts/runs/nightly-2026-11-22/compiled/ml_c5/',
      },
    ]);
    expect(plan.model).toMatchObject({
      packagedUri: 's3://mso-artifacts/runs/nightly-2026-11-22/model/model.tar.gz',
      needsPackaging: true,
    });
    expect(plan.tags).toEqual({
      'mso:project': 'model-serving-optimizer',
      'mso:run-id': 'nightly-2026-11-22',
    });
    expect(plan.payloads).toEqual([
      { uri: PAYLOAD_URI, contentType: 'application/json', weight: 1, sizeBytes: 7 },
    ]);
  });

  it('plans a candidate’s routingStrategy onto it, and none on the candidates that name none', async () => {
    // Prepare
    const input = baseInput({
      candidates: [
        {
          instanceType: 'ml.c5.xlarge',
          initialInstanceCount: 2,
          routingStrategy: 'LEAST_OUTSTANDING_REQUESTS',
        },
        { instanceType: 'ml.c5.xlarge' },
      ],
      compilation: { targets: [] },
    });

    // Act
    const plan = await validateAndPlan({ runId: 'run-1', input }, deps());

    // Assert
    expect(plan.candidates.map((c) => [c.id, c.initialInstanceCount, c.routingStrategy])).toEqual([
      ['c1-c5-xlarge', 2, 'LEAST_OUTSTANDING_REQUESTS'],
      ['c2-c5-xlarge', 1, undefined],
    ]);
  });

  it('records the worst-case history and largest state its limits were checked with', async () => {
    // Act
    const plan = await validateAndPlan({ runId: 'nightly-2026-11-22', input: baseInput() }, deps());

    // Assert: 3 candidates (each load test run twice at worst, then 4 rounds) and 1 target, polled
    // to their deadlines.
    expect(plan.budgets).toEqual({
      historyEvents: { worstCase: 1490, budget: 24_000, quota: 25_000 },
      largestState: {
        bytes: 21_623,
        state: 'the run state after "Benchmark each candidate"',
        quotaBytes: 262_144,
      },
    });
  });

  it('is deterministic, so a retried step asks for the same resource names', async () => {
    // Act
    const first = await validateAndPlan({ runId: 'run-a', input: baseInput() }, deps());
    const second = await validateAndPlan({ runId: 'run-a', input: baseInput() }, deps());

    // Assert
    expect(second).toEqual(first);
  });

  it('keeps every SageMaker name within 63 valid characters for the longest run ids', async () => {
    // Act
    const plan = await validateAndPlan({ runId: 'x'.repeat(80), input: baseInput() }, deps());

    // Assert
    const names = plan.candidates.flatMap((c) => [c.modelName, c.endpointConfigName, c.endpointName]);
    for (const name of [...names, ...plan.compilations.map((c) => c.jobName)]) {
      expect(name).toMatch(/^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/);
    }
    expect(new Set(names).size).toBe(names.length);
  });

  it('expands environment ranges into one candidate per combination', async () => {
    // Act
    const plan = await validateAndPlan(
      {
        runId: 'run-1',
        input: baseInput({
          candidates: [{ id: 'cpu', instanceType: 'ml.c5.xlarge', environment: { A: 'fixed' } }],
          environmentRanges: { WORKERS: ['1', '2'], THREADS: ['1', '4'] },
        }),
      },
      deps(),
    );

    // Assert
    expect(plan.candidates.map((c) => [c.id, c.environment])).toEqual([
      ['cpu-e1', { A: 'fixed', WORKERS: '1', THREADS: '1' }],
      ['cpu-e2', { A: 'fixed', WORKERS: '1', THREADS: '4' }],
      ['cpu-e3', { A: 'fixed', WORKERS: '2', THREADS: '1' }],
      ['cpu-e4', { A: 'fixed', WORKERS: '2', THREADS: '4' }],
    ]);
  });

  it('estimates cost from endpoint-hours and uses a run-input price over the table', async () => {
    // Act
    const plan = await validateAndPlan(
      {
        runId: 'run-1',
        input: baseInput({
          compilation: { targets: [] },
          candidates: [{ instanceType: 'ml.c5.xlarge', initialInstanceCount: 2 }],
          loadPlan: {
            steps: [1, 2, 3, 4, 5, 6],
            warmupSeconds: 0,
            stepDurationSeconds: 580,
            maxTotalSeconds: 3600,
          },
          pricing: { usdPerHour: { 'ml.c5.xlarge': 1 } },
        }),
      },
      deps(),
    );

    // Assert: 600 s provisioning + 6 × 580 = 3480 s test + 4 rounds (3 knee probes, 1 repeat) × 580 s
    // + 120 s teardown = 6520 s; × 2 instances × $1/h
    expect(plan.candidates[0]).toMatchObject({ priceSource: 'run-input', estimatedCostUsd: 3.62 });
  });

  it('reuses a model.tar.gz that needs no inference code', async () => {
    // Prepare
    const packaged = 's3://user-models/xgb/model.tar.gz';
    const store = new MemoryObjectStore().seed(packaged, gzipSync('tar')).seed(PAYLOAD_URI, '{}');

    // Act
    const plan = await validateAndPlan(
      {
        runId: 'run-1',
        input: baseInput({
          model: { artifactUri: packaged, framework: 'xgboost' },
          candidates: [{ instanceType: 'ml.m5.xlarge' }],
          compilation: {},
        }),
      },
      deps(store),
    );

    // Assert
    expect(plan.model).toMatchObject({ packagedUri: packaged, needsPackaging: false });
  });

  it('plans an existing endpoint without model or candidates', async () => {
    // Act
    const plan = await validateAndPlan(
      {
        runId: 'run-1',
        input: baseInput({
          model: undefined,
          compilation: undefined,
          candidates: undefined,
          existingEndpoint: { endpointName: 'prod-resnet' },
        }),
      },
      deps(),
    );

    // Assert
    expect(plan.candidates).toEqual([
      expect.objectContaining({
        id: 'existing',
        kind: 'existing',
        endpointName: 'prod-resnet',
        estimatedCostUsd: 0,
      }),
    ]);
    expect(plan.model).toBeUndefined();
  });

  it('fails when a field is invalid, naming the field, what was given and what was expected', async () => {
    // Act
    const error = await planError(baseInput({ sla: { p95LatencyMs: 100, maxErrorRate: 2 } }));

    // Assert
    expect(error.issues).toEqual([
      { field: 'sla.maxErrorRate', given: '2', expected: expect.stringMatching(/1/) },
    ]);
  });

  it('fails when an instance type has no price, suggesting the override', async () => {
    // Act
    const error = await planError(
      baseInput({ candidates: [{ instanceType: 'ml.x9.huge' }], compilation: {} }),
    );

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'candidates[0].instanceType',
        given: '"ml.x9.huge"',
        expected: expect.stringContaining('pricing.usdPerHour["ml.x9.huge"]'),
      },
    ]);
  });

  it('fails when a candidate serves an artifact compiled for another instance family', async () => {
    // Act
    const error = await planError(
      baseInput({ candidates: [{ instanceType: 'ml.g4dn.xlarge', compiledFor: 'ml_c5' }] }),
    );

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'candidates[0].compiledFor',
        given: '"ml_c5"',
        expected: 'ml_g4dn: an artifact compiled for ml_c5 cannot run on ml.g4dn.xlarge',
      },
    ]);
  });

  it('refuses a compiled ml.g5 candidate: SageMaker Neo has no g5 target', async () => {
    // Act
    const error = await planError(
      baseInput({ candidates: [{ instanceType: 'ml.g5.xlarge', compiledFor: 'ml_g5' }] }),
    );

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'candidates[0].compiledFor',
        given: '"ml_g5"',
        expected:
          'no compiledFor: SageMaker Neo has no target for ml.g5.xlarge (its TargetDevice list has none for this ' +
          'family): serve it uncompiled, or use an instance of a compiled family (e.g. ml_g4dn on ml.g4dn)',
      },
    ]);
  });

  it('refuses ml_g5 as a compilation target, saying g5 has none', async () => {
    // Act
    const error = await planError(
      baseInput({ compilation: { targets: ['ml_g5'] }, candidates: [{ instanceType: 'ml.g5.xlarge' }] }),
    );

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'compilation.targets[0]',
        given: '"ml_g5"',
        expected:
          'a compilation target: one of ml_m5, ml_c5, ml_c6g, ml_m6g, ml_g4dn, ml_p3, ml_inf1, ml_inf2 ' +
          '(SageMaker Neo has none for ml.g5 nor ml.t2, which serve uncompiled models only)',
      },
    ]);
  });

  it("refuses a framework version without a minor, which Neo's FrameworkVersion pattern refuses", async () => {
    // Act
    const error = await planError(
      baseInput({
        model: {
          artifactUri: MODEL_URI,
          framework: 'pytorch',
          frameworkVersion: '2',
          inputShape: { x: [1] },
        },
      }),
    );

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'model.frameworkVersion',
        given: '"2"',
        expected: 'a version with major and minor, such as 2.0 or 1.13.1',
      },
    ]);
  });

  it('refuses a compilation.maxRuntimeSeconds that leaves no time for the rest of the run', async () => {
    // Act
    const error = await planError(
      baseInput({ compilation: { targets: ['ml_c5'], maxRuntimeSeconds: 86_400 } }),
    );

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'compilation.maxRuntimeSeconds',
        given: '86400',
        expected: `at most ${OPTIMIZATION_RUN_TIMEOUT_SECONDS / 2} s, half the run's ${OPTIMIZATION_RUN_TIMEOUT_SECONDS} s timeout, so compilation leaves time to benchmark and clean up`,
      },
    ]);
  });

  it('refuses an input data type for a framework other than PyTorch', async () => {
    // Prepare
    const onnx = {
      artifactUri: MODEL_URI,
      framework: 'onnx',
      inputShape: { x: [1, 4] },
      inputDataType: 'int64',
    };

    // Act
    const error = await planError(baseInput({ model: onnx }));

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'model.inputDataType',
        given: '"int64"',
        expected: 'no inputDataType for onnx: Neo takes an input data type for PyTorch models only',
      },
    ]);
  });

  it('refuses on AWS a PyTorch version Neo does not compile for the target, before anything exists', async () => {
    // Act
    const error = await planError(baseInput(), { ...deps(), servingRegion: 'us-east-1' });

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'model.frameworkVersion',
        given: '"2.1"',
        expected:
          'a pytorch version Neo compiles for compilation.targets[0] (ml_c5): 1.4, 1.5, 1.6, 1.7, 1.8, 1.12, 1.13 or 2.0 ' +
          `(SageMaker Neo, ${NEO_SUPPORT_SOURCE.url})`,
      },
    ]);
  });

  it('fails on AWS when an ONNX candidate is compiled for a target with no serving image, before any compilation job', async () => {
    // Prepare: no Neo container serves ONNX compiled for Inferentia (catalog/image-table.ts).
    const input = baseInput({
      model: { artifactUri: MODEL_URI, framework: 'onnx', inputShape: { input0: [1, 3] } },
      compilation: { targets: ['ml_inf1'] },
      candidates: [{ instanceType: 'ml.inf1.xlarge', compiledFor: 'ml_inf1' }],
    });

    // Act
    const error = await planError(input, { ...deps(), servingRegion: 'us-east-1' });

    // Assert: with Neo's own refusal of the target, every issue at once
    expect(error.issues).toEqual([
      {
        field: 'candidates[0].compiledFor',
        given: '"ml_inf1" for a onnx model',
        expected:
          "a target that SageMaker has a compiled onnx serving image for (none exists for ml_inf1's hardware), the uncompiled candidate, or model.compiledImage naming an image that serves the compiled artifact",
      },
      {
        field: 'compilation.targets[0]',
        given: '"ml_inf1"',
        expected: `a target that compiles onnx models: ml_m5, ml_c5, ml_c6g, ml_m6g, ml_g4dn, ml_p3 (SageMaker Neo, ${NEO_SUPPORT_SOURCE.url})`,
      },
    ]);
  });

  it('plans an ONNX candidate compiled for such a target when model.compiledImage names its image', async () => {
    // Prepare
    const input = baseInput({
      model: {
        artifactUri: MODEL_URI,
        framework: 'onnx',
        inputShape: { input0: [1, 3] },
        compiledImage: '123456789012.dkr.ecr.us-east-1.amazonaws.com/my-inf1-onnx:1',
      },
      compilation: { targets: ['ml_inf1'] },
      candidates: [{ instanceType: 'ml.inf1.xlarge', compiledFor: 'ml_inf1' }],
    });

    // Act
    const planned = await validateAndPlan(
      { runId: 'run-1', input },
      { ...deps(), servingRegion: 'us-east-1' },
    ).catch((e: unknown) => e);

    // Assert: not refused for its image (Neo's own support rules still apply).
    const issues = planned instanceof InvalidRunInputError ? planned.issues.map((i) => i.field) : [];
    expect(issues).not.toContain('candidates[0].compiledFor');
  });

  it('refuses on AWS ml_inf2 outside the one region where Neo compiles for it', async () => {
    // Prepare
    const input = baseInput({
      model: {
        artifactUri: MODEL_URI,
        framework: 'pytorch',
        frameworkVersion: '1.13',
        inputShape: { x: [1, 3] },
      },
      compilation: { targets: ['ml_inf2'] },
      candidates: [{ instanceType: 'ml.inf2.xlarge', compiledFor: 'ml_inf2' }],
    });

    // Act
    const error = await planError(input, { ...deps(), servingRegion: 'us-east-1' });

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'compilation.targets[0]',
        given: '"ml_inf2" in us-east-1',
        expected: expect.stringContaining('us-east-2'),
      },
    ]);
  });

  it('checks only the version pattern locally, where the project compiler compiles any target', async () => {
    // Act
    const plan = await validateAndPlan({ runId: 'run-1', input: baseInput() }, deps());

    // Assert
    expect(plan.compilations.map((c) => c.target)).toEqual(['ml_c5']);
  });

  it('fails when compilation is asked for without the input shape', async () => {
    // Act
    const error = await planError(
      baseInput({ model: { artifactUri: MODEL_URI, framework: 'pytorch', frameworkVersion: '2.1' } }),
    );

    // Assert
    expect(error.issues.map((i) => i.field)).toEqual(['model.inputShape']);
  });

  it('fails when an unknown field is given', async () => {
    // Act
    const error = await planError(baseInput({ slaa: {} }));

    // Assert
    expect(error.issues).toEqual([
      { field: '(input)', given: 'unknown field(s) "slaa"', expected: expect.stringContaining('spelling') },
    ]);
  });

  it('fails when the model artifact does not exist', async () => {
    // Act
    const error = await planError(baseInput(), deps(new MemoryObjectStore().seed(PAYLOAD_URI, '{}')));

    // Assert
    expect(error.issues).toEqual([
      { field: 'model.artifactUri', given: `"${MODEL_URI}"`, expected: expect.stringContaining('exists') },
    ]);
  });

  it('fails when an object cannot be read, naming the field and the cause', async () => {
    // Prepare
    const store = new MemoryObjectStore().seed(MODEL_URI, 'weights').seed(PAYLOAD_URI, '{}');
    store.head = (uri: string) =>
      uri === PAYLOAD_URI
        ? Promise.reject(Object.assign(new Error('Access Denied'), { name: 'AccessDenied' }))
        : Promise.resolve({ sizeBytes: 1 });

    // Act
    const error = await planError(baseInput(), deps(store));

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'payload.uri',
        given: `"${PAYLOAD_URI}"`,
        expected: expect.stringContaining('AccessDenied: Access Denied'),
      },
    ]);
  });

  it('fails when an uncompiled candidate has no serving image in the region, before anything exists', async () => {
    // Prepare
    const onnx = { artifactUri: MODEL_URI, framework: 'onnx', inputShape: { input: [1, 3, 32, 32] } };

    // Act
    const error = await planError(
      baseInput({ model: onnx, compilation: {}, candidates: [{ instanceType: 'ml.c5.xlarge' }] }),
      { ...deps(), servingRegion: 'us-east-1' },
    );

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'candidates[0]',
        given: expect.stringContaining('ml.c5.xlarge'),
        expected: expect.stringContaining('model.image'),
      },
    ]);
  });

  it('warns, naming its only source, when a run compiles for a Graviton target no AWS page lists frameworks for', async () => {
    // Prepare
    const pytorch = {
      artifactUri: MODEL_URI,
      framework: 'pytorch',
      frameworkVersion: '2.0',
      image: '123456789012.dkr.ecr.us-east-1.amazonaws.com/my-pytorch:arm64',
      // No Neo container of the image table serves a Graviton artifact: the user names one.
      compiledImage: '123456789012.dkr.ecr.us-east-1.amazonaws.com/my-pytorch-neo:arm64',
      inputShape: { input0: [1, 3, 224, 224] },
    };
    const input = baseInput({
      model: pytorch,
      compilation: { targets: ['ml_c6g', 'ml_c5'] },
      candidates: [
        { instanceType: 'ml.c6g.xlarge', compiledFor: 'ml_c6g' },
        { instanceType: 'ml.c5.xlarge', compiledFor: 'ml_c5' },
      ],
    });

    // Act
    const onAws = await validateAndPlan({ runId: 'run-1', input }, { ...deps(), servingRegion: 'us-east-1' });
    const locally = await validateAndPlan({ runId: 'run-1', input }, deps());

    // Assert
    const graviton = (onAws.warnings ?? []).filter((warning) => warning.startsWith('Neo target'));
    expect(graviton).toEqual([
      expect.stringMatching(
        /^Neo target ml_c6g is unverified: the SageMaker API lists it as a TargetDevice, but no AWS page lists the frameworks Neo compiles for Graviton .*API_OutputConfig\.html, .*neo-supported-cloud\.html\)\.$/,
      ),
    ]);
    expect((locally.warnings ?? []).filter((warning) => warning.startsWith('Neo target'))).toEqual([]);
  });

  it('accepts an uncompiled ONNX candidate when model.image names the serving image', async () => {
    // Prepare
    const onnx = {
      artifactUri: MODEL_URI,
      framework: 'onnx',
      image: '123456789012.dkr.ecr.us-east-1.amazonaws.com/mso-model-server:1',
    };

    // Act
    const plan = await validateAndPlan(
      {
        runId: 'run-1',
        input: baseInput({ model: onnx, compilation: {}, candidates: [{ instanceType: 'ml.c5.xlarge' }] }),
      },
      { ...deps(), servingRegion: 'us-east-1' },
    );

    // Assert
    expect(plan.candidates).toHaveLength(1);
  });

  it('fails when a file:// URI is used outside local mode', async () => {
    // Act
    const error = await planError(baseInput({ payload: { uri: 'file:///home/me/payload.json' } }));

    // Assert
    expect(error.issues[0]).toMatchObject({
      field: 'payload.uri',
      expected: expect.stringContaining('local mode'),
    });
  });

  it('fails when the run id cannot be an execution name', async () => {
    // Act
    const error = await validateAndPlan({ runId: 'bad id!', input: baseInput() }, deps()).catch(
      (e: unknown) => e,
    );

    // Assert
    expect(error).toBeInstanceOf(InvalidRunInputError);
  });

  it('fails when the estimated cost exceeds the budget, before writing anything', async () => {
    // Prepare
    const store = new MemoryObjectStore().seed(MODEL_URI, 'weights').seed(PAYLOAD_URI, '{"x":1}');
    const dependencies = deps(store);
    const objectsBefore = store.objects.size;

    // Act
    const error = await validateAndPlan(
      { runId: 'run-1', input: baseInput({ maxCostUsd: 0.05 }) },
      dependencies,
    ).catch((e: unknown) => e);

    // Assert
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect((error as BudgetExceededError).message).toMatch(
      /estimated cost \$\d+\.\d\d exceeds maxCostUsd \$0\.05/,
    );
    expect((error as BudgetExceededError).details).toMatchObject({ maxCostUsd: 0.05 });
    expect(store.objects.size).toBe(objectsBefore);
  });
});

describe('validateAndPlan: load workers against the signed-request ceiling', () => {
  const ceiling = SIGNED_REQUESTS_PER_WORKER_SECOND;

  it('warns in the plan when an open-model step is faster than its workers can sign, saying how many it needs', async () => {
    // Prepare
    const input = baseInput({ loadPlan: { model: 'open', steps: [ceiling, 4 * ceiling], workers: 2 } });
    const logged: unknown[] = [];
    const logger = { ...silentLogger, info: (_message: string, details?: unknown) => logged.push(details) };

    // Act
    const plan = await validateAndPlan({ runId: 'run-1', input }, { ...deps(), logger });

    // Assert
    const expected =
      `loadPlan.workers: the top step of ${4 * ceiling} requests/s is ${2 * ceiling} requests/s for each of ` +
      `2 worker(s), more than the ~${ceiling} signed InvokeEndpoint requests/s one 2048 MB load worker can ` +
      'send on AWS (bench/RESULTS.md, "Signed path"); its own CPU would delay the arrivals and add to the ' +
      'latencies: set loadPlan.workers to at least 4.';
    expect(plan.warnings).toEqual([expected]);
    expect(logged).toEqual([
      {
        runId: 'run-1',
        candidates: 3,
        compilations: 1,
        estimatedCostUsd: plan.estimate.totalUsd,
        warnings: [expected],
      },
    ]);
  });

  it('plans without warnings when every worker stays within the ceiling', async () => {
    // Prepare
    const input = baseInput({ loadPlan: { model: 'open', steps: [ceiling, 4 * ceiling], workers: 4 } });

    // Act
    const plan = await validateAndPlan({ runId: 'run-1', input }, deps());

    // Assert
    expect(plan.warnings).toBeUndefined();
  });
});

describe('validateAndPlan: Step Functions limits', () => {
  /** The schema's maxima: 50 candidates, 40 workers, every compilation target. */
  function largestInput(overrides: { workers?: number; environment?: Record<string, string> } = {}): unknown {
    return baseInput({
      model: {
        artifactUri: MODEL_URI,
        framework: 'pytorch',
        frameworkVersion: '2.1',
        inputShape: { input0: [1, 3, 224, 224] },
        environment: overrides.environment ?? {},
      },
      compilation: { targets: [...COMPILATION_TARGETS] },
      candidates: Array.from({ length: 50 }, (_, index) => ({
        id: `cand-${index + 1}`,
        instanceType: 'ml.c5.xlarge',
      })),
      loadPlan: {
        steps: [1, 4],
        warmupSeconds: 5,
        stepDurationSeconds: 60,
        workers: overrides.workers ?? 40,
      },
    });
  }

  it('refuses 50 candidates × 40 workers × every target, whose worst-case history passes the quota', async () => {
    // Act
    const error = await planError(largestInput());

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'loadPlan.workers',
        given: '40 workers × 50 candidates: up to 27702 history events',
        expected:
          "at most 29 workers with 50 candidates (or fewer candidates): a run may record at most 24000 history events (Step Functions' 25000 per execution, less 1000 kept for retries), and a full history cannot be caught",
      },
    ]);
  });

  it('plans 50 candidates × 29 workers × every target, just under the history budget, without load test re-runs', async () => {
    // Act
    const plan = await validateAndPlan({ runId: 'run-1', input: largestInput({ workers: 29 }) }, deps());

    // Assert: a re-run of every candidate's load test would not fit, so a late worker is not re-run.
    expect([plan.candidates.length, plan.loadTestReruns]).toEqual([50, 0]);
  });

  it('drops the default rounds that the worst-case history has no room for, repeats first', async () => {
    // Act: 50 candidates × 29 workers fit without rounds (above), not with the default 4 each.
    const plan = await validateAndPlan({ runId: 'run-1', input: largestInput({ workers: 29 }) }, deps());

    // Assert
    expect([plan.loadPlan.kneeProbes, plan.loadPlan.repeats]).toEqual([0, 1]);
  });

  it('refuses the repeats asked for when their rounds pass the history budget, naming how many fit', async () => {
    // Prepare: 50 candidates × 10 workers; 10 measurements make 9 rounds each.
    const input = largestInput({ workers: 10 }) as { loadPlan: Record<string, unknown> };

    // Act
    const error = await planError({ ...input, loadPlan: { ...input.loadPlan, kneeProbes: 0, repeats: 10 } });

    // Assert
    expect(error.issues.find((issue) => issue.field === 'loadPlan.repeats')).toEqual({
      field: 'loadPlan.repeats',
      given:
        '9 rounds after each load test (loadPlan.kneeProbes + loadPlan.repeats − 1) × 50 candidates with 10 workers: up to 54552 history events',
      expected:
        "at most 1 round (fewer kneeProbes or repeats, fewer workers or candidates): a run may record at most 24000 history events (Step Functions' 25000 per execution, less 1000 kept for retries), and a full history cannot be caught",
    });
  });

  it('counts every default round in the worst-case history when they fit', async () => {
    // Act: 3 candidates × 1 worker, with the default rounds (3 knee probes, 1 repeat) and without.
    const withRounds = await validateAndPlan({ runId: 'run-1', input: baseInput() }, deps());
    const loadPlan = { steps: [1, 4], warmupSeconds: 5, stepDurationSeconds: 60, kneeProbes: 0, repeats: 1 };
    const without = await validateAndPlan({ runId: 'run-1', input: baseInput({ loadPlan }) }, deps());

    // Assert: per round and candidate, the workers' Map (4 + 1 × (2 + 5) events), "Aggregate load
    // test" (5), "Load test measurable?" (2) and "Run next load round" (2): 20; × 4 rounds × 3.
    expect([
      withRounds.loadPlan.kneeProbes,
      (withRounds.budgets?.historyEvents.worstCase ?? 0) - (without.budgets?.historyEvents.worstCase ?? 0),
    ]).toEqual([undefined, 240]);
  });

  it('refuses a model environment that, copied into 50 candidates, makes a state pass 256 KB', async () => {
    // Prepare: 4 variables of 1,024 characters (the longest value the schema allows).
    const environment = Object.fromEntries(['A', 'B', 'C', 'D'].map((name) => [name, 'x'.repeat(1024)]));

    // Act
    const error = await planError(largestInput({ workers: 29, environment }));

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'model.environment',
        given:
          '4125 bytes (as JSON), copied into each of 50 candidates: the largest state (the run state after "Benchmark each candidate") reaches 456738 bytes',
        expected:
          "model.environment of at most 309 bytes (as JSON), copied into each of 50 candidates, so that every state stays within 262144 bytes (Step Functions' payload quota per state; States.DataLimitExceeded cannot be caught)",
      },
    ]);
  });
});

describe('validateAndPlan: load tests longer than a load worker invocation', () => {
  it('plans a 44-minute soak step, run as segments of 775 s', async () => {
    // Act
    const plan = await validateAndPlan(
      {
        runId: 'run-1',
        input: baseInput({
          loadPlan: { steps: [4], warmupSeconds: 60, stepDurationSeconds: 2640, maxTotalSeconds: 3000 },
        }),
      },
      deps(),
    );

    // Assert: 840 s of measuring a worker has, less the 65 s request timeout.
    expect([plan.loadPlan.stepDurationSeconds, plan.loadSegmentSeconds, plan.loadTestReruns]).toEqual([
      2640, 775, 1,
    ]);
  });

  it('refuses a 20-hour soak step for three candidates, two at a time, past the run timeout', async () => {
    // Act
    const error = await planError(
      baseInput({
        loadPlan: { steps: [4], warmupSeconds: 60, stepDurationSeconds: 72_000, maxTotalSeconds: 72_060 },
      }),
    );

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'loadPlan.stepDurationSeconds',
        given:
          'load tests of 72060 s × 3 candidates, 2 at a time: the run may last 45.6 h (endpoints and compilation jobs taking their whole deadlines)',
        expected:
          'load tests of at most 35975 s with these candidates (shorter or fewer steps, a lower loadPlan.maxTotalSeconds, a higher maxConcurrentCandidates or fewer candidates), so that the run ends within its 24-hour execution timeout (Step Functions stops a run past it, with States.Timeout)',
      },
    ]);
  });

  it('plans no rounds for a soak step that does not fit one worker invocation', async () => {
    // Act
    const plan = await validateAndPlan(
      {
        runId: 'run-1',
        input: baseInput({
          loadPlan: { steps: [4], warmupSeconds: 60, stepDurationSeconds: 2640, maxTotalSeconds: 3000 },
        }),
      },
      deps(),
    );

    // Assert: a round runs as one invocation of at most 775 s; the step takes 2700 s.
    expect([plan.loadPlan.kneeProbes, plan.loadPlan.repeats]).toEqual([0, 1]);
  });

  it('refuses knee probes and repeats asked for with steps longer than one worker invocation', async () => {
    // Act
    const error = await planError(
      baseInput({
        loadPlan: {
          steps: [4, 8],
          warmupSeconds: 60,
          stepDurationSeconds: 2640,
          maxTotalSeconds: 6000,
          kneeProbes: 2,
          repeats: 3,
        },
      }),
    );

    // Assert
    const why =
      'steps of 2700 s (warmupSeconds + stepDurationSeconds) are longer than one load worker invocation (775 s), and a round runs as one; shorten the steps to below it for rounds';
    expect(error.issues).toEqual([
      { field: 'loadPlan.kneeProbes', given: '2', expected: `0: ${why}` },
      { field: 'loadPlan.repeats', given: '3', expected: `1: ${why}` },
    ]);
  });

  it('uses the segment length it is given (local mode and tests)', async () => {
    // Act
    const plan = await validateAndPlan(
      { runId: 'run-1', input: baseInput() },
      { ...deps(), loadSegmentSeconds: 5 },
    );

    // Assert
    expect(plan.loadSegmentSeconds).toBe(5);
  });
});

describe('validateAndPlan: the objects the run reads (the checks the async workflow shares)', () => {
  const ARCHIVE_URI = 's3://user-models/xgb/model.tar.gz';

  it.each<[string, Record<string, unknown>, MemoryObjectStore, InputIssue[]]>([
    [
      'a ".." segment in the payload key',
      baseInput({ payload: { uri: 's3://user-models/resnet/../payload.json' } }),
      new MemoryObjectStore().seed(MODEL_URI, 'weights').seed('s3://user-models/payload.json', '{}'),
      [
        {
          field: 'payload.uri',
          given: '"s3://user-models/resnet/../payload.json" (a ".." segment)',
          expected: expect.stringContaining(', e.g. "s3://user-models/payload.json"') as unknown as string,
        },
      ],
    ],
    [
      'a .tar.gz artifact that is not gzip-compressed',
      baseInput({
        model: { artifactUri: ARCHIVE_URI, framework: 'xgboost' },
        candidates: [{ instanceType: 'ml.m5.xlarge' }],
        compilation: {},
      }),
      new MemoryObjectStore().seed(ARCHIVE_URI, 'plain tar').seed(PAYLOAD_URI, '{}'),
      [
        {
          field: 'model.artifactUri',
          given: `"${ARCHIVE_URI}" (it starts with the bytes 70 6c, not gzip's 1f 8b)`,
          expected:
            'a gzip-compressed tar archive (SageMaker unpacks ModelDataUrl as one): create it with tar -czf model.tar.gz …',
        },
      ],
    ],
    [
      'a payload over the real-time body limit',
      baseInput(),
      new MemoryObjectStore()
        .seed(MODEL_URI, 'weights')
        .seed(PAYLOAD_URI, new Uint8Array(6 * 1024 * 1024 + 1)),
      [
        {
          field: 'payload.uri',
          given: `"${PAYLOAD_URI}" (6291457 bytes)`,
          expected: "at most 6291456 bytes (SageMaker's real-time payload limit)",
        },
      ],
    ],
  ])('refuses %s, naming the field', async (_what, input, store, issues) => {
    // Act
    const error = await planError(input, deps(store));

    // Assert
    expect(error.issues).toEqual(issues);
  });
});

describe('validateAndPlan: instance quotas', () => {
  it("refuses a candidate above its type's instance quota before anything is created", async () => {
    // Prepare: the account may run one ml.g4dn.xlarge; the second candidate asks for two.
    const input = baseInput({
      candidates: [
        { instanceType: 'ml.c5.xlarge' },
        { instanceType: 'ml.g4dn.xlarge', initialInstanceCount: 2 },
      ],
    });
    const quota = {
      instanceType: 'ml.g4dn.xlarge',
      quotaName: 'ml.g4dn.xlarge for endpoint usage',
      value: 1,
    };

    // Act
    const error = await planError(input, {
      ...deps(),
      instanceQuotas: { endpointInstanceQuotas: () => Promise.resolve([{ ...quota, source: 'applied' }]) },
    });

    // Assert
    expect(error.issues.map((issue) => [issue.field, issue.given])).toEqual([
      ['candidates[1].initialInstanceCount', '2 × ml.g4dn.xlarge'],
    ]);
  });

  it('keeps the quotas it read in a plan with a target TPS, to cap the counts sized for it', async () => {
    // Prepare
    const input = baseInput({ sla: { p95LatencyMs: 100, targetTps: 600 } });
    const quota = { instanceType: 'ml.c5.xlarge', quotaName: 'ml.c5.xlarge for endpoint usage', value: 4 };

    // Act
    const plan = await validateAndPlan(
      { runId: 'run-1', input },
      {
        ...deps(),
        instanceQuotas: { endpointInstanceQuotas: () => Promise.resolve([{ ...quota, source: 'applied' }]) },
      },
    );

    // Assert
    expect([plan.objective, plan.availability, plan.instanceQuotas]).toEqual([
      'lowest-cost-at-target',
      { minInstances: 2 },
      { 'ml.c5.xlarge': 4 },
    ]);
  });

  it('plans the proof with a target: on by default, its workers sized for the target rate', async () => {
    // Prepare: 5,000 requests/s is more than one worker signs (1,300/s): 4 workers.
    const input = baseInput({ sla: { p95LatencyMs: 100, targetTps: 5000 } });

    // Act
    const plan = await validateAndPlan({ runId: 'run-1', input }, deps());

    // Assert
    expect(plan.prove).toEqual({ enabled: true, workers: 4, corrections: 1 });
  });

  it('counts the proof and its correction in the estimate: the availability minimum of the dearest candidate, then one more, and says so', async () => {
    // Prepare
    const input = baseInput({ sla: { p95LatencyMs: 100, targetTps: 600 } });
    const without = await validateAndPlan(
      { runId: 'run-1', input: { ...input, prove: { enabled: false } } },
      deps(),
    );

    // Act
    const plan = await validateAndPlan({ runId: 'run-1', input }, deps());

    // Assert: the dearest, ml.g4dn.xlarge, × 2 for 600 s creating + 65 s step + 120 s deleting.
    const dearest = Math.max(...plan.candidates.map((c) => c.usdPerHour ?? 0));
    const perInstance = (785 / 3600) * dearest;
    expect(plan.estimate.assumptions.at(-1)).toBe(
      `the proof at 600 TPS priced at 2 instance(s) of the dearest candidate for 785 s, and its correction at 3; its count is known after the measurements, each further instance adds $${perInstance.toFixed(4)}`,
    );
    expect(plan.estimate.totalUsd).toBeCloseTo(without.estimate.totalUsd + (2 + 3) * perInstance, 2);
  });

  it('counts the proof and its correction in the worst-case history: endpoint polls, workers and steps of each', async () => {
    // Prepare
    const input = baseInput({ sla: { p95LatencyMs: 100, targetTps: 600 } });
    const without = await validateAndPlan(
      { runId: 'run-1', input: { ...input, prove: { enabled: false } } },
      deps(),
    );

    // Act
    const plan = await validateAndPlan({ runId: 'run-1', input }, deps());

    // Assert: per proof, 2 Passes, deploy, 24 polls of 9 events, the Map with 1 worker, record,
    // delete and "Correct the count?"; then "Plan corrected proof" once.
    const perProof = 2 * 2 + 5 + 24 * 9 + 4 + 1 * (2 + 5) + 2 * 5 + 2;
    expect(
      (plan.budgets?.historyEvents.worstCase ?? 0) - (without.budgets?.historyEvents.worstCase ?? 0),
    ).toBe(2 * perProof + 2);
  });

  it('plans no proof it cannot run: a step longer than one load worker invocation, with why', async () => {
    // Prepare
    const input = baseInput({
      sla: { p95LatencyMs: 100, targetTps: 600 },
      loadPlan: {
        steps: [1],
        warmupSeconds: 5,
        stepDurationSeconds: 1200,
        maxTotalSeconds: 1300,
        kneeProbes: 0,
        repeats: 1,
      },
    });

    // Act
    const plan = await validateAndPlan({ runId: 'run-1', input }, deps());

    // Assert
    expect(plan.prove?.skipReason).toMatch(
      /^steps of 1205 s \(warmupSeconds \+ stepDurationSeconds\) are longer than one load worker invocation \(\d+ s\), and the proof runs as one; shorten the steps to prove the target$/,
    );
  });

  it('drops the correction rather than refuse a run whose maxCostUsd covers one proof only', async () => {
    // Prepare: the estimate with one proof, then a budget 1 cent above it.
    const input = baseInput({ sla: { p95LatencyMs: 100, targetTps: 600 } });
    const planned = await validateAndPlan({ runId: 'run-1', input }, deps());
    const perInstance = (785 / 3600) * Math.max(...planned.candidates.map((c) => c.usdPerHour ?? 0));
    const oneProof = planned.estimate.totalUsd - 3 * perInstance;

    // Act
    const plan = await validateAndPlan(
      { runId: 'run-1', input: { ...input, maxCostUsd: Math.round(oneProof * 100 + 1) / 100 } },
      deps(),
    );

    // Assert
    expect(plan.prove).toEqual({ enabled: true, workers: 1, corrections: 0 });
  });

  it('refuses a run the proof puts over maxCostUsd, naming the proof’s cost and how to drop it', async () => {
    // Prepare: a budget 1 cent above the run without the proof: its correction is dropped, and one proof is too much.
    const input = baseInput({ sla: { p95LatencyMs: 100, targetTps: 600 } });
    const without = await validateAndPlan(
      { runId: 'run-1', input: { ...input, prove: { enabled: false } } },
      deps(),
    );
    const perInstance = (785 / 3600) * Math.max(...without.candidates.map((c) => c.usdPerHour ?? 0));

    // Act
    const error = await validateAndPlan(
      { runId: 'run-1', input: { ...input, maxCostUsd: without.estimate.totalUsd + 0.01 } },
      deps(),
    ).catch((e: unknown) => e);

    // Assert
    const message = error instanceof BudgetExceededError ? error.message : String(error);
    const breakdown = without.candidates.map((c) => `${c.id} $${c.estimatedCostUsd.toFixed(2)}`).join(', ');
    expect(message.slice(message.indexOf('('))).toBe(
      `(${breakdown}; load generator $0.03; proof $${(2 * perInstance).toFixed(2)}). Raise maxCostUsd, ` +
        'or shorten the load plan or remove candidates, or turn the proof off (prove.enabled: false). Nothing was created.',
    );
  });

  it('refuses prove.enabled that is not a boolean, naming the field', async () => {
    // Act
    const error = await planError(
      baseInput({ sla: { p95LatencyMs: 100, targetTps: 600 }, prove: { enabled: 'yes' } }),
    );

    // Assert
    expect(error.issues.map((issue) => issue.field)).toEqual(['prove.enabled']);
  });

  it('plans one load test re-run per candidate when the history has room for it', async () => {
    // Act
    const plan = await validateAndPlan({ runId: 'run-1', input: baseInput() }, deps());

    // Assert
    expect(plan.loadTestReruns).toBe(1);
  });
});

describe('validateAndPlan: the ramp test', () => {
  /** The base input with a target of 600 TPS, a peak of 5,000 and the ramp as given. */
  function rampInput(rampTest: Record<string, unknown>): Record<string, unknown> {
    return baseInput({
      sla: { p95LatencyMs: 100, targetTps: 600 },
      scaling: { peakTps: 5000 },
      rampTest,
    });
  }

  /** The same input with the ramp off: what each figure is compared with. */
  async function planWithoutRamp(
    dependencies = deps(),
  ): Promise<Awaited<ReturnType<typeof validateAndPlan>>> {
    return validateAndPlan({ runId: 'run-1', input: rampInput({ enabled: false }) }, dependencies);
  }

  it('plans the ramp with a target: its seconds, and its workers sized for the peak, not the target', async () => {
    // Act: 5,000 requests/s is more than one worker signs (1,300/s): 4 workers; the proof at 600 has 1.
    const plan = await validateAndPlan(
      { runId: 'run-1', input: rampInput({ enabled: true, seconds: 600 }) },
      deps(),
    );

    // Assert
    expect([plan.rampTest, plan.prove?.workers]).toEqual([
      { enabled: true, seconds: 600, workers: 4, retests: 1 },
      1,
    ]);
  });

  it('sizes the ramp for the target when no peak is given', async () => {
    // Act
    const plan = await validateAndPlan(
      {
        runId: 'run-1',
        input: baseInput({ sla: { p95LatencyMs: 100, targetTps: 5000 }, rampTest: { enabled: true } }),
      },
      deps(),
    );

    // Assert
    // No length asked for: the longest that fits one worker invocation (its 775 s schedule less the
    // 5 s warm-up; at most 1,200 s).
    expect(plan.rampTest).toEqual({ enabled: true, seconds: 770, workers: 4, retests: 1 });
  });

  it('plans no ramp when it is off (the default)', async () => {
    // Act
    const plan = await validateAndPlan(
      { runId: 'run-1', input: baseInput({ sla: { p95LatencyMs: 100, targetTps: 600 } }) },
      deps(),
    );

    // Assert
    expect(plan.rampTest).toBeUndefined();
  });

  it('plans no ramp without a target when it is off', async () => {
    // Act
    const plan = await validateAndPlan(
      { runId: 'run-1', input: baseInput({ rampTest: { enabled: false, seconds: 60 } }) },
      deps(),
    );

    // Assert
    expect(plan.rampTest).toBeUndefined();
  });

  it('refuses rampTest.enabled without a target, naming the field', async () => {
    // Act
    const error = await planError(baseInput({ rampTest: { enabled: true } }));

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'rampTest.enabled',
        given: 'true',
        expected:
          'no ramp test without sla.targetTps: the ramp tests the policy sized for the target; set both',
      },
    ]);
  });

  it('refuses rampTest.seconds above 7200, naming the field', async () => {
    // Act
    const error = await planError(rampInput({ enabled: true, seconds: 7201 }));

    // Assert
    expect(error.issues.map((issue) => [issue.field, issue.given])).toEqual([['rampTest.seconds', '7201']]);
  });

  it('counts the ramp in the estimate: the availability minimum of the dearest candidate for its endpoint’s life, and says so', async () => {
    // Prepare
    const without = await planWithoutRamp();

    // Act
    const plan = await validateAndPlan(
      { runId: 'run-1', input: rampInput({ enabled: true, seconds: 600 }) },
      deps(),
    );

    // Assert: the dearest, ml.g4dn.xlarge, × 2 for 600 s creating + 5 s warm-up + 600 s ramp + 120 s
    // deleting, and its re-test alike.
    const dearest = Math.max(...plan.candidates.map((c) => c.usdPerHour ?? 0));
    const perInstance = (1325 / 3600) * dearest;
    expect(plan.estimate.assumptions.at(-1)).toBe(
      `the ramp test priced at 2 instance(s) of the dearest candidate for 1325 s, and its re-test alike; each instance its policy adds bills at most $${perInstance.toFixed(4)} more (the maximum is known after the measurements)`,
    );
    // Both totals are rounded to the cent: they differ from the exact sum by a cent at most.
    expect(
      Math.abs(plan.estimate.totalUsd - (without.estimate.totalUsd + 2 * 2 * perInstance)),
    ).toBeLessThanOrEqual(0.01);
  });

  it('adds the ramp’s endpoint life to the typical duration, and its re-test’s: creation, warm-up, ramp and deletion', async () => {
    // Prepare
    const without = await planWithoutRamp();

    // Act
    const plan = await validateAndPlan(
      { runId: 'run-1', input: rampInput({ enabled: true, seconds: 600 }) },
      deps(),
    );

    // Assert
    expect(
      (plan.estimate.durationSeconds?.typical ?? 0) - (without.estimate.durationSeconds?.typical ?? 0),
    ).toBe(2 * (600 + 5 + 600 + 120));
  });

  it('adds the ramp and its re-test to the worst duration: the endpoint deadline, warm-up and ramp with a segment’s overhead, deletion', async () => {
    // Prepare
    const without = await planWithoutRamp();

    // Act
    const plan = await validateAndPlan(
      { runId: 'run-1', input: rampInput({ enabled: true, seconds: 600 }) },
      deps(),
    );

    // Assert: 2700 s to come into service, 605 s of schedule in one worker invocation (60 s more), a
    // scale-out to wait out (2700 s) and 120 s to delete.
    expect((plan.estimate.durationSeconds?.worst ?? 0) - (without.estimate.durationSeconds?.worst ?? 0)).toBe(
      2 * (2700 + 605 + 60 + 2700 + 120),
    );
  });

  it('counts the ramp in the worst-case history: its endpoint polls, the scaling calls, one segment of its workers', async () => {
    // Prepare
    const without = await planWithoutRamp();

    // Act
    const plan = await validateAndPlan(
      { runId: 'run-1', input: rampInput({ enabled: true, seconds: 600 }) },
      deps(),
    );

    // Assert: 2 Passes, deploy, 24 polls of 9 events, apply the policy, the Map with 4 workers,
    // "Aggregate ramp load test" and its Choice, then record, deregister, delete and "Re-test the
    // ramp?"; twice, with "Plan ramp re-test" between.
    const segment = 4 + 4 * (2 + 5) + 5 + 2;
    const attempt = 2 * 2 + 5 + 24 * 9 + 5 + segment + 3 * 5 + 2;
    expect(
      (plan.budgets?.historyEvents.worstCase ?? 0) - (without.budgets?.historyEvents.worstCase ?? 0),
    ).toBe(2 * attempt + 2);
  });

  it('refuses a run the ramp puts over maxCostUsd, naming the ramp’s cost and how to drop it', async () => {
    // Prepare: a budget 1 cent above the run without the ramp (no proof, to keep to the ramp).
    const input = rampInput({ enabled: true, seconds: 600 });
    const withoutProof = { ...input, prove: { enabled: false } };
    const planned = await validateAndPlan({ runId: 'run-1', input: withoutProof }, deps());
    const without = await validateAndPlan(
      { runId: 'run-1', input: { ...withoutProof, rampTest: { enabled: false } } },
      deps(),
    );
    const maxCostUsd = without.estimate.totalUsd + 0.01;
    const perInstance = (1325 / 3600) * Math.max(...planned.candidates.map((c) => c.usdPerHour ?? 0));

    // Act
    const error = await validateAndPlan(
      { runId: 'run-1', input: { ...withoutProof, maxCostUsd } },
      deps(),
    ).catch((e: unknown) => e);

    // Assert
    const breakdown = planned.candidates.map((c) => `${c.id} $${c.estimatedCostUsd.toFixed(2)}`).join(', ');
    expect(error).toBeInstanceOf(BudgetExceededError);
    // The re-test is dropped first (it does not fit): the refusal prices one ramp.
    const withoutRetest = await validateAndPlan(
      { runId: 'run-1', input: { ...withoutProof } },
      { ...deps() },
    );
    const oneRampTotal = withoutRetest.estimate.totalUsd - 2 * perInstance;
    expect((error as BudgetExceededError).message).toBe(
      `The run's estimated cost $${oneRampTotal.toFixed(2)} exceeds maxCostUsd $${maxCostUsd.toFixed(2)} ` +
        `(${breakdown}; load generator $0.03; ramp test $${(2 * perInstance).toFixed(2)}). Raise maxCostUsd, ` +
        'or shorten the load plan or remove candidates, or shorten rampTest.seconds or turn the ramp test off ' +
        '(rampTest.enabled: false). Nothing was created.',
    );
  });

  it('refuses a ramp longer than one worker invocation, naming the longest that fits', async () => {
    // Prepare: segments of 300 s: 5 s of warm-up and 600 s of ramp would take 3 worker invocations.
    const dependencies = { ...deps(), loadSegmentSeconds: 300 };

    // Act
    const error = await validateAndPlan(
      { runId: 'run-1', input: rampInput({ enabled: true, seconds: 600 }) },
      dependencies,
    ).catch((e: unknown) => e);

    // Assert
    expect(error).toBeInstanceOf(InvalidRunInputError);
    expect((error as InvalidRunInputError).issues).toEqual([
      {
        field: 'rampTest.seconds',
        given: '600',
        expected:
          'at most 295 s: loadPlan.warmupSeconds (5 s) and the ramp run in one load worker invocation (300 s), since a gap between invocations would pause the rising load the policy follows; shorten the ramp (or the warm-up, or loadPlan.requestTimeoutMs, which the invocation keeps for the last requests)',
      },
    ]);
  });

  it('plans the longest ramp that fits one worker invocation when none is asked for', async () => {
    // Act
    const plan = await validateAndPlan(
      { runId: 'run-1', input: rampInput({ enabled: true }) },
      { ...deps(), loadSegmentSeconds: 300 },
    );

    // Assert
    expect(plan.rampTest?.seconds).toBe(295);
  });
});
