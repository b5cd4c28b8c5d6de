import { CREDENTIAL_EXPECTED } from '../../../core/contracts/credentials.js';
import { describe, expect, it } from '@jest/globals';
import { InvalidRunInputError } from '../../../core/contracts/errors.js';
import { checkedRunInputSchema } from '../../../core/planning/run-input-check.js';
import { parseOrThrow } from '../../../core/contracts/validation.js';

function input(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: { framework: 'djl-lmi', hub: { modelId: 'Qwen/Qwen2.5-1.5B-Instruct' } },
    payload: { uri: 's3://user-models/llm/prompt.json' },
    candidates: [{ instanceType: 'ml.g5.xlarge' }, { instanceType: 'ml.inf2.xlarge' }],
    loadPlan: { steps: [1], response: { mode: 'stream' } },
    sla: { ttftP95Ms: 1000 },
    ...overrides,
  };
}

function issuesOf(document: unknown): InvalidRunInputError['issues'] {
  try {
    parseOrThrow(checkedRunInputSchema, document);
  } catch (error) {
    if (error instanceof InvalidRunInputError) return error.issues;
    throw error;
  }
  throw new Error('expected the input to be refused');
}

function issuesOrNone(document: unknown): InvalidRunInputError['issues'] {
  try {
    parseOrThrow(checkedRunInputSchema, document);
    return [];
  } catch (error) {
    if (error instanceof InvalidRunInputError) return error.issues;
    throw error;
  }
}

describe('run input: models served by an LLM container', () => {
  it('accepts a Hub model on GPU and Inferentia2 candidates', () => {
    // Act
    const parsed = parseOrThrow(checkedRunInputSchema, input());

    // Assert
    expect(parsed.model).toEqual({
      framework: 'djl-lmi',
      hub: { modelId: 'Qwen/Qwen2.5-1.5B-Instruct' },
      environment: {},
    });
  });

  it.each([
    ['djl-lmi', {}, 'lmi-jsonlines'],
    ['djl-lmi', { OPTION_OUTPUT_FORMATTER: 'sse' }, 'lmi-sse'],
    ['hf-tgi', {}, 'tgi'],
    ['vllm', {}, 'openai'],
  ])(
    'streams %s with its default format when the plan names none (environment %j: %s)',
    (framework, environment, format) => {
      // Act
      const parsed = parseOrThrow(
        checkedRunInputSchema,
        input({
          model: { framework, hub: { modelId: 'Qwen/Qwen2.5-1.5B-Instruct' }, environment },
          candidates: [{ instanceType: 'ml.g5.xlarge' }],
        }),
      );

      // Assert
      expect(parsed.loadPlan.response).toEqual({ mode: 'stream', format });
    },
  );

  it('refuses a stream without its format when no container gives the default', () => {
    // Act
    const issues = issuesOf(
      input({ model: { framework: 'onnx', artifactUri: 's3://user-models/llm/model.onnx' } }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'loadPlan.response.format',
        given: 'nothing',
        expected:
          'one of openai, tgi, lmi-jsonlines, lmi-sse with mode "stream": the container\'s stream format, which the load test reads each response with ' +
          '(only a model served by an LLM container, model.framework djl-lmi, hf-tgi or vllm, has a default)',
      },
    ]);
  });

  it('refuses a format the container does not emit', () => {
    // Act
    const issues = issuesOf(
      input({
        model: { framework: 'vllm', hub: { modelId: 'Qwen/Qwen2.5-1.5B-Instruct' } },
        candidates: [{ instanceType: 'ml.g5.xlarge' }],
        loadPlan: { steps: [1], response: { mode: 'stream', format: 'tgi' } },
      }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'loadPlan.response.format',
        given: '"tgi"',
        expected:
          'one of openai: the stream formats Hugging Face vLLM emits (or no format, for its default openai)',
      },
    ]);
  });

  it("refuses LMI's SSE format when a candidate's formatter streams JSON Lines", () => {
    // Act
    const issues = issuesOf(
      input({
        candidates: [
          { instanceType: 'ml.g5.xlarge', environment: { OPTION_OUTPUT_FORMATTER: 'sse' } },
          { instanceType: 'ml.inf2.xlarge' },
        ],
        loadPlan: { steps: [1], response: { mode: 'stream', format: 'lmi-sse' } },
      }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[1].environment.OPTION_OUTPUT_FORMATTER',
        given: 'nothing',
        expected:
          'sse: loadPlan.response.format is lmi-sse, and LMI streams SSE only with OPTION_OUTPUT_FORMATTER=sse',
      },
    ]);
  });

  it('refuses a CPU instance, naming the accelerators the container runs on', () => {
    // Act
    const issues = issuesOf(input({ candidates: [{ instanceType: 'ml.c5.xlarge' }] }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[0].instanceType',
        given: '"ml.c5.xlarge"',
        expected:
          'an NVIDIA GPU instance (ml.g*, ml.p*) or an Inferentia2/Trainium instance (ml.inf2, ml.trn*): DJL LMI images are built for those accelerators',
      },
    ]);
  });

  it('refuses vLLM on Inferentia2, where the table has GPU images only', () => {
    // Act
    const issues = issuesOf(
      input({
        model: { framework: 'vllm', hub: { modelId: 'Qwen/Qwen2.5-1.5B-Instruct' } },
        candidates: [{ instanceType: 'ml.inf2.xlarge' }],
      }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[0].instanceType',
        given: '"ml.inf2.xlarge"',
        expected:
          'an NVIDIA GPU instance (ml.g*, ml.p*): the table has Hugging Face vLLM images for gpu only (SageMaker Python SDK image config)',
      },
    ]);
  });

  it('refuses a Neuron model.image on a GPU instance, naming the candidate’s instance type', () => {
    // Act
    const issues = issuesOf(
      input({
        model: {
          framework: 'djl-lmi',
          hub: { modelId: 'Qwen/Qwen2.5-1.5B-Instruct' },
          image: '763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.29.0-neuronx-sdk2.19.1',
        },
      }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[0].instanceType',
        given: '"ml.g5.xlarge"',
        expected:
          'an Inferentia2/Trainium instance (ml.inf2, ml.trn*): model.image is a Neuron build (its tag says neuronx), which does not run on ml.g5.xlarge; ' +
          'remove model.image to let the table pick the image per instance',
      },
    ]);
  });

  it('refuses a GPU model.image on an Inferentia2 instance', () => {
    // Act
    const issues = issuesOf(
      input({
        model: {
          framework: 'hf-tgi',
          hub: { modelId: 'Qwen/Qwen2.5-1.5B-Instruct' },
          image:
            '763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-tgi-inference:2.7.0-tgi3.3.6-gpu-py311-cu124-ubuntu22.04',
        },
      }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[1].instanceType',
        given: '"ml.inf2.xlarge"',
        expected:
          'an NVIDIA GPU instance (ml.g*, ml.p*): model.image is a GPU build, which does not run on ml.inf2.xlarge; ' +
          'remove model.image to let the table pick the image per instance',
      },
    ]);
  });

  it('refuses a serverless candidate: Serverless Inference has no accelerators', () => {
    // Act
    const issues = issuesOf(input({ candidates: [{ serverless: { memorySizeMb: 6144 } }] }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[0].serverless',
        given: '{"memorySizeMb":6144,"maxConcurrency":10}',
        expected:
          'an instanceType: DJL LMI needs GPUs or Inferentia2/Trainium, and SageMaker Serverless Inference has neither (serverless endpoints do not support GPUs)',
      },
    ]);
  });

  it('refuses a tensor parallel degree above the GPUs of the candidate’s instance', () => {
    // Act
    const issues = issuesOf(
      input({
        candidates: [{ instanceType: 'ml.g5.xlarge', environment: { OPTION_TENSOR_PARALLEL_DEGREE: '2' } }],
      }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[0].environment.OPTION_TENSOR_PARALLEL_DEGREE',
        given: '"2"',
        expected:
          'at most 1 or "max": candidates[0] is ml.g5.xlarge, which has 1 GPU to shard the model over (OPTION_TENSOR_PARALLEL_DEGREE, the tensor parallel degree)',
      },
    ]);
  });

  it('checks the tensor parallel degree against the GPUs of every catalog type, priced or not', () => {
    // Prepare: ml.g5.48xlarge has 8 GPUs, ml.p4d.24xlarge 8; neither has a recorded price.
    const pricing = { usdPerHour: { 'ml.g5.48xlarge': 20, 'ml.p4d.24xlarge': 40 } };

    // Act
    const accepted = issuesOrNone(
      input({
        pricing,
        candidates: [
          { instanceType: 'ml.g5.48xlarge', environment: { OPTION_TENSOR_PARALLEL_DEGREE: '8' } },
          { instanceType: 'ml.p4d.24xlarge', environment: { OPTION_TENSOR_PARALLEL_DEGREE: '8' } },
        ],
      }),
    );
    const refused = issuesOf(
      input({
        pricing,
        candidates: [
          { instanceType: 'ml.g5.48xlarge', environment: { OPTION_TENSOR_PARALLEL_DEGREE: '16' } },
        ],
      }),
    );

    // Assert
    expect(accepted).toEqual([]);
    expect(refused).toEqual([
      {
        field: 'candidates[0].environment.OPTION_TENSOR_PARALLEL_DEGREE',
        given: '"16"',
        expected:
          'at most 8 or "max": candidates[0] is ml.g5.48xlarge, which has 8 GPUs to shard the model over (OPTION_TENSOR_PARALLEL_DEGREE, the tensor parallel degree)',
      },
    ]);
  });

  it('accepts a tensor parallel degree of the NeuronCores of an Inferentia2 instance, and "max"', () => {
    // Act
    const parsed = parseOrThrow(
      checkedRunInputSchema,
      input({
        candidates: [
          { instanceType: 'ml.inf2.xlarge', environment: { OPTION_TENSOR_PARALLEL_DEGREE: '2' } },
          { instanceType: 'ml.g5.xlarge', environment: { OPTION_TENSOR_PARALLEL_DEGREE: 'max' } },
        ],
      }),
    );

    // Assert
    expect(parsed.candidates.map((c) => c.environment)).toEqual([
      { OPTION_TENSOR_PARALLEL_DEGREE: '2' },
      { OPTION_TENSOR_PARALLEL_DEGREE: 'max' },
    ]);
  });

  it("refuses TGI's SM_NUM_GPUS of a sweep above a candidate's GPUs at the range value", () => {
    // Act
    const issues = issuesOf(
      input({
        model: { framework: 'hf-tgi', hub: { modelId: 'Qwen/Qwen2.5-1.5B-Instruct' } },
        candidates: [{ instanceType: 'ml.g4dn.xlarge' }],
        environmentRanges: { SM_NUM_GPUS: ['1', '4'] },
      }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'environmentRanges.SM_NUM_GPUS[1]',
        given: '"4"',
        expected:
          'at most 1: candidates[0] is ml.g4dn.xlarge, which has 1 GPU to shard the model over (SM_NUM_GPUS, the tensor parallel degree)',
      },
    ]);
  });

  it('checks TGI on Inferentia2 with the Neuron build’s own settings, against the instance’s NeuronCores', () => {
    // Act
    const issues = issuesOf(
      input({
        model: {
          framework: 'hf-tgi',
          hub: { modelId: 'Qwen/Qwen2.5-1.5B-Instruct' },
          environment: { HF_AUTO_CAST_TYPE: 'float16', MAX_BATCH_SIZE: '4', MAX_TOTAL_TOKENS: '4096' },
        },
        candidates: [{ instanceType: 'ml.inf2.xlarge' }],
        environmentRanges: { HF_NUM_CORES: ['2', '4'] },
      }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'environmentRanges.HF_NUM_CORES[1]',
        given: '"4"',
        expected:
          'at most 2: candidates[0] is ml.inf2.xlarge, which has 2 NeuronCores to shard the model over (HF_NUM_CORES, the tensor parallel degree)',
      },
      {
        field: 'model.environment.HF_AUTO_CAST_TYPE',
        given: '"float16"',
        expected: 'one of fp32, fp16, bf16: the data types Hugging Face TGI documents for HF_AUTO_CAST_TYPE',
      },
    ]);
  });

  it('fails when TGI on Inferentia2 is given GPU settings the Neuron build ignores, in a sweep too', () => {
    // Act
    const issues = issuesOf(
      input({
        model: {
          framework: 'hf-tgi',
          hub: { modelId: 'Qwen/Qwen2.5-1.5B-Instruct' },
          environment: { DTYPE: 'bfloat16' },
        },
        candidates: [{ instanceType: 'ml.g5.xlarge' }, { instanceType: 'ml.inf2.xlarge' }],
        environmentRanges: { SM_NUM_GPUS: ['1'] },
      }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'environmentRanges.SM_NUM_GPUS[0]',
        given: '"1"',
        expected:
          'no SM_NUM_GPUS on ml.inf2.xlarge: the Hugging Face TGI Neuron build does not read it, so the candidate would not run as set; use HF_NUM_CORES (the NeuronCores to shard over)',
      },
      {
        field: 'model.environment.DTYPE',
        given: '"bfloat16"',
        expected:
          'no DTYPE on ml.inf2.xlarge: the Hugging Face TGI Neuron build does not read it, so the candidate would not run as set; use HF_AUTO_CAST_TYPE (fp32, fp16 or bf16)',
      },
    ]);
  });

  it('fails when TGI on a GPU is given the Neuron build’s HF_NUM_CORES', () => {
    // Act
    const issues = issuesOf(
      input({
        model: { framework: 'hf-tgi', hub: { modelId: 'Qwen/Qwen2.5-1.5B-Instruct' } },
        candidates: [{ instanceType: 'ml.g5.xlarge', environment: { HF_NUM_CORES: '2' } }],
      }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[0].environment.HF_NUM_CORES',
        given: '"2"',
        expected:
          'no HF_NUM_CORES on ml.g5.xlarge: the Hugging Face TGI GPU build does not read it, so the candidate would not run as set; use SM_NUM_GPUS (the GPUs to shard over)',
      },
    ]);
  });

  it('refuses a batch size that is not a positive whole number', () => {
    // Act
    const issues = issuesOf(
      input({
        model: {
          framework: 'hf-tgi',
          hub: { modelId: 'Qwen/Qwen2.5-1.5B-Instruct' },
          environment: { MAX_BATCH_SIZE: '0' },
        },
        candidates: [{ instanceType: 'ml.g5.xlarge' }],
      }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'model.environment.MAX_BATCH_SIZE',
        given: '"0"',
        expected:
          'a positive whole number, such as 8: MAX_BATCH_SIZE is a count Hugging Face TGI reads as an integer',
      },
    ]);
  });

  it('refuses a vLLM max model length that is not a whole number', () => {
    // Act
    const issues = issuesOf(
      input({
        model: { framework: 'vllm', hub: { modelId: 'Qwen/Qwen2.5-1.5B-Instruct' } },
        candidates: [{ instanceType: 'ml.g5.xlarge', environment: { SM_VLLM_MAX_MODEL_LEN: '4k' } }],
      }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[0].environment.SM_VLLM_MAX_MODEL_LEN',
        given: '"4k"',
        expected:
          'a positive whole number, such as 8: SM_VLLM_MAX_MODEL_LEN is a count Hugging Face vLLM reads as an integer',
      },
    ]);
  });

  it("refuses a dtype outside the container's documented list", () => {
    // Act
    const issues = issuesOf(
      input({
        model: { framework: 'hf-tgi', hub: { modelId: 'Qwen/Qwen2.5-1.5B-Instruct' } },
        candidates: [{ instanceType: 'ml.g5.xlarge', environment: { DTYPE: 'fp16' } }],
      }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[0].environment.DTYPE',
        given: '"fp16"',
        expected: 'one of float16, bfloat16: the data types Hugging Face TGI documents for DTYPE',
      },
    ]);
  });

  it('refuses LMI bf16 on a T4 GPU, which LMI documents it for G5/P4/P5 or newer only', () => {
    // Act
    const issues = issuesOf(
      input({ candidates: [{ instanceType: 'ml.g4dn.xlarge', environment: { OPTION_DTYPE: 'bf16' } }] }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[0].environment.OPTION_DTYPE',
        given: '"bf16"',
        expected:
          'fp16 or fp32 on ml.g4dn.xlarge: LMI documents bf16 "only on G5/P4/P5 or newer instance types"',
      },
    ]);
  });

  it('refuses an artifact that is not a model.tar.gz of the model directory', () => {
    // Act
    const issues = issuesOf(
      input({ model: { framework: 'hf-tgi', artifactUri: 's3://user-models/llm/model.safetensors' } }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'model.artifactUri',
        given: '"s3://user-models/llm/model.safetensors"',
        expected:
          "a model.tar.gz of the model's directory (config.json, weights, tokenizer files), which SageMaker extracts to " +
          '/opt/ml/model for Hugging Face TGI: the run packages single model files only',
      },
    ]);
  });

  it('fails when a candidate environment holds a Hub token, without showing it', () => {
    // Act
    const issues = issuesOf(
      input({ candidates: [{ instanceType: 'ml.g5.xlarge', environment: { HF_TOKEN: 'hf_secret' } }] }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[0].environment.HF_TOKEN',
        given: 'a credential, by its name',
        expected: CREDENTIAL_EXPECTED,
      },
    ]);
  });

  it('refuses compilation targets: Neo has no LLM framework', () => {
    // Act
    const issues = issuesOf(input({ compilation: { targets: ['ml_inf2'] } }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'compilation.targets',
        given: '["ml_inf2"]',
        expected:
          'no compilation targets for djl-lmi: SageMaker Neo has no LLM framework (InputConfig.Framework), and DJL LMI loads the model itself, ' +
          'compiling it for Neuron when it starts on Inferentia2/Trainium',
      },
    ]);
  });
});
