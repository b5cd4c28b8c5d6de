import { describe, expect, it } from '@jest/globals';
import { runInputSchema } from '../../../core/contracts/run-input.js';
import { InvalidRunInputError } from '../../../core/contracts/errors.js';
import type { ObjectMetadata } from '../../../core/ports/index.js';
import { modelFitCheck } from '../../../core/planning/model-fit-check.js';
import { validateAndPlan } from '../../../core/steps/optimization/validate-and-plan.js';
import { MemoryObjectStore, silentLogger } from '../../support/memory-object-store.js';

/** An LMI run input of a Hub model, its candidates and settings as given. */
function lmiInput(overrides: {
  size?: unknown;
  candidates: unknown[];
  environment?: Record<string, string>;
  environmentRanges?: Record<string, string[]>;
}) {
  return runInputSchema.parse({
    model: {
      framework: 'djl-lmi',
      hub: { modelId: 'meta-llama/Llama-3.1-70B-Instruct' },
      environment: overrides.environment ?? {},
      ...(overrides.size === undefined ? {} : { size: overrides.size }),
    },
    payload: { uri: 's3://bucket/models/llama/prompt.json' },
    candidates: overrides.candidates,
    ...(overrides.environmentRanges === undefined ? {} : { environmentRanges: overrides.environmentRanges }),
    // Prices do not matter here: each type gets one, as the schema wants for types the table lacks.
    pricing: {
      usdPerHour: Object.fromEntries(
        overrides.candidates.map((c) => [(c as { instanceType: string }).instanceType, 1]),
      ),
    },
    loadPlan: { model: 'closed', steps: [1], warmupSeconds: 10, stepDurationSeconds: 60 },
    sla: { p95LatencyMs: 5000 },
  });
}

const SEVENTY_B_FP16 = { parameters: 70e9, dtype: 'fp16' };
/** Llama 3.1 70B's config.json: 80 layers, 8 key/value heads of 128. */
const LLAMA_70B_ATTENTION = { layers: 80, kvHeads: 8, headDim: 128 };

describe('modelFitCheck', () => {
  it('fails when a 70B fp16 model is planned on ml.g5.xlarge, naming the candidate and the memory', () => {
    // Prepare
    const input = lmiInput({ size: SEVENTY_B_FP16, candidates: [{ instanceType: 'ml.g5.xlarge' }] });

    // Act
    const result = modelFitCheck(input, {});

    // Assert
    expect(result.issues).toEqual([
      {
        field: 'candidates[0].instanceType',
        given: '"ml.g5.xlarge"',
        expected:
          'an instance whose memory holds the model: it needs 130.4 GiB (70000000000 parameters × 2 bytes (fp16)), ' +
          'and ml.g5.xlarge has 24.0 GiB (1 GPU of 24 GiB)',
      },
    ]);
  });

  it('plans a 70B fp16 model on ml.p4d.24xlarge with tensor parallel degree 8, its KV cache counted', () => {
    // Prepare: 130.4 GiB of weights + 80 layers × 8 heads × 128 × 2 × 2 bytes × 8 × 4096 tokens (10 GiB).
    const input = lmiInput({
      size: { ...SEVENTY_B_FP16, attention: LLAMA_70B_ATTENTION },
      candidates: [{ instanceType: 'ml.p4d.24xlarge' }],
      environment: {
        OPTION_TENSOR_PARALLEL_DEGREE: '8',
        OPTION_MAX_ROLLING_BATCH_SIZE: '8',
        OPTION_MAX_MODEL_LEN: '4096',
      },
    });

    // Act
    const result = modelFitCheck(input, {});

    // Assert
    expect(result).toEqual({ issues: [], warnings: [] });
  });

  it('fails when the KV cache of the largest batch of a sweep does not fit beside the weights', () => {
    // Prepare: on 8 × 40 GiB, 130.4 GiB of weights leave 189.6 GiB; 128 sequences of 8192 tokens take 320 GiB.
    const input = lmiInput({
      size: { ...SEVENTY_B_FP16, attention: LLAMA_70B_ATTENTION },
      candidates: [{ instanceType: 'ml.p4d.24xlarge' }],
      environment: { OPTION_MAX_MODEL_LEN: '8192' },
      environmentRanges: { OPTION_MAX_ROLLING_BATCH_SIZE: ['8', '128'] },
    });

    // Act
    const result = modelFitCheck(input, {});

    // Assert
    expect(result.issues.map((issue) => [issue.field, issue.expected])).toEqual([
      [
        'candidates[0].instanceType',
        'an instance whose memory holds the model: it needs 450.4 GiB (70000000000 parameters × 2 bytes (fp16) + ' +
          'a KV cache of 128 × 8192 tokens over 80 layers), and ml.p4d.24xlarge has 320.0 GiB (8 GPUs of 40 GiB)',
      ],
    ]);
  });

  it('fails when the smallest tensor parallel degree set cannot hold the model', () => {
    // Prepare
    const input = lmiInput({
      size: SEVENTY_B_FP16,
      candidates: [{ instanceType: 'ml.p4d.24xlarge', environment: { OPTION_TENSOR_PARALLEL_DEGREE: '2' } }],
    });

    // Act
    const result = modelFitCheck(input, {});

    // Assert
    expect(result.issues.map((issue) => issue.expected)).toEqual([
      expect.stringContaining('ml.p4d.24xlarge has 80.0 GiB (2 GPUs of 40 GiB)'),
    ]);
  });

  it('says the KV cache is not counted when the attention shape is not given', () => {
    // Prepare
    const input = lmiInput({ size: SEVENTY_B_FP16, candidates: [{ instanceType: 'ml.p4de.24xlarge' }] });

    // Act
    const result = modelFitCheck(input, {});

    // Assert
    expect(result.issues).toEqual([]);
    expect(result.warnings).toEqual([
      expect.stringMatching(/^model\.size\.attention: the KV cache is not counted/),
    ]);
  });

  it('says the fit is not checked when neither model.size nor an artifact size is known', () => {
    // Prepare
    const input = lmiInput({ candidates: [{ instanceType: 'ml.g5.xlarge' }] });

    // Act
    const result = modelFitCheck(input, {});

    // Assert
    expect(result.issues).toEqual([]);
    expect(result.warnings).toEqual([
      "model.size: whether the model fits each candidate's memory is not checked: a Hub model has no artifact to size " +
        'before its container downloads it; give model.size { "parameters", "dtype" } to check it',
    ]);
  });

  it("checks a model without an LLM container against one GPU, from its artifact's size", () => {
    // Prepare: a 30 GB PyTorch archive on ml.g5.12xlarge (4 × 24 GiB): each worker loads it on one GPU.
    const input = runInputSchema.parse({
      model: {
        artifactUri: 's3://bucket/models/big/model.tar.gz',
        framework: 'pytorch',
        frameworkVersion: '2.1',
      },
      payload: { uri: 's3://bucket/models/big/payload.json' },
      candidates: [{ instanceType: 'ml.g5.12xlarge' }, { instanceType: 'ml.m5.4xlarge' }],
      pricing: { usdPerHour: { 'ml.g5.12xlarge': 1, 'ml.m5.4xlarge': 1 } },
      loadPlan: { model: 'closed', steps: [1], warmupSeconds: 10, stepDurationSeconds: 60 },
      sla: { p95LatencyMs: 500 },
    });

    // Act
    const result = modelFitCheck(input, { artifactBytes: 30e9 });

    // Assert
    expect(result.issues.map((issue) => [issue.field, issue.expected])).toEqual([
      [
        'candidates[0].instanceType',
        "an instance whose memory holds the model: it needs 27.9 GiB (the artifact's 30000000000 bytes (model.artifactUri)), " +
          'and ml.g5.12xlarge has 24.0 GiB (1 GPU of 24 GiB)',
      ],
    ]);
  });

  it('warns, and does not refuse, a candidate whose memory the instance table does not know', () => {
    // Prepare
    const input = lmiInput({ size: SEVENTY_B_FP16, candidates: [{ instanceType: 'ml.p6e-gb200.36xlarge' }] });

    // Act
    const result = modelFitCheck(input, {});

    // Assert
    expect(result.issues).toEqual([]);
    expect(result.warnings).toContain(
      'candidates[0] (ml.p6e-gb200.36xlarge): the instance table does not know its accelerator memory, so whether 130.4 GiB fits is not checked',
    );
  });

  it("fails in validateAndPlan when the artifact's size, as S3 reports it, exceeds a CPU instance's memory", async () => {
    // Prepare: HeadObject's ContentLength of a 20 GiB ONNX file, more than ml.c5.xlarge's 8 GiB.
    const modelUri = 's3://user-models/big/model.onnx';
    const payloadUri = 's3://user-models/big/payload.json';
    class LargeArtifactStore extends MemoryObjectStore {
      override async head(uri: string): Promise<ObjectMetadata | undefined> {
        return uri === modelUri ? { sizeBytes: 20 * 1024 ** 3 } : await super.head(uri);
      }
    }
    const store = new LargeArtifactStore().seed(payloadUri, '{"x":1}');
    const input = {
      model: { artifactUri: modelUri, framework: 'onnx' },
      payload: { uri: payloadUri },
      candidates: [{ instanceType: 'ml.c5.xlarge' }],
      loadPlan: { steps: [1] },
      sla: { p95LatencyMs: 100 },
    };

    // Act
    const planning = validateAndPlan(
      { runId: 'run-1', input },
      { store, artifactsBucket: 'mso-artifacts', allowFileUris: false, logger: silentLogger },
    );

    // Assert
    await expect(planning).rejects.toBeInstanceOf(InvalidRunInputError);
    await expect(planning).rejects.toMatchObject({
      issues: [
        {
          field: 'candidates[0].instanceType',
          given: '"ml.c5.xlarge"',
          expected:
            "an instance whose memory holds the model: it needs 20.0 GiB (the artifact's 21474836480 bytes (model.artifactUri)), " +
            'and ml.c5.xlarge has 8.0 GiB (host memory)',
        },
      ],
    });
  });
});
