import type { LlmContainer, StreamFormat } from '../contracts/index.js';

/**
 * The LLM serving containers a run can name as `model.framework`: DJL LMI,
 * Hugging Face TGI and the Hugging Face vLLM DLC. Their images are rows of `image-table.ts`; this
 * module holds what the planner checks about each: how the model reaches the container, which
 * settings (container environment variables) it reads and what they accept, and which stream
 * formats it emits.
 *
 * Sources, read on 2026-11-24:
 * - LMI: deepjavalibrary/djl-serving serving/docs/lmi/deployment_guide/configurations.md
 *   @ 0bac7469d891d6dd11bc89799401df1680a7f370 (https://docs.djl.ai/docs/serving/serving/docs/lmi/deployment_guide/configurations.html):
 *   `HF_MODEL_ID`/`OPTION_MODEL_ID` a Hub id or S3 prefix, artifacts in /opt/ml/model detected;
 *   `option.<name>` as `OPTION_<NAME>`; `OPTION_TENSOR_PARALLEL_DEGREE` "max" or 1 to the GPUs (on
 *   Inferentia the NeuronCores), `TENSOR_PARALLEL_DEGREE` in its example; `OPTION_MAX_ROLLING_BATCH_SIZE`
 *   an integer; `OPTION_DTYPE` fp32, fp16, bf16 ("only on G5/P4/P5 or newer"), int8; `OPTION_REVISION`.
 *   Streaming: lmi_input_output_schema.md (jsonlines by default with `"stream": true`, `sse` with
 *   `OPTION_OUTPUT_FORMATTER=sse`; the chat-completions schema streams OpenAI chunks).
 *   `OPTION_MAX_MODEL_LEN` (vLLM engine) and `OPTION_N_POSITIONS` (Neuron) are its backends' lengths.
 * - TGI: huggingface/text-generation-inference sagemaker-entrypoint.sh @ 00d5ade28fbee3a84d39f793025c5e20eb7e1db0
 *   (`HF_MODEL_ID` required, `HF_MODEL_REVISION`, `SM_NUM_GPUS` → `NUM_SHARD`), the launcher's arguments
 *   read from the environment (launcher/src/main.rs: `MAX_BATCH_SIZE`, `MAX_BATCH_TOTAL_TOKENS`,
 *   `MAX_TOTAL_TOKENS`, `MAX_INPUT_TOKENS`, `MAX_INPUT_LENGTH`, `DTYPE` float16 or bfloat16), and
 *   router/src/sagemaker.rs (`/invocations` takes a generate request, `"stream": true` for TGI's
 *   stream, or a chat/completions request, streamed as OpenAI chunks).
 * - vLLM: aws/deep-learning-containers huggingface/vllm/build_artifacts/sagemaker_entrypoint.sh
 *   @ cb035a10da530bd891c3eabcdb9d4cb204b9fd7c: every `SM_VLLM_<NAME>` becomes vLLM's `--<name>`
 *   flag of `vllm.entrypoints.openai.api_server`, which answers in the OpenAI format only; the model
 *   is `SM_VLLM_MODEL` (https://aws.github.io/deep-learning-containers/vllm/configuration/); `--dtype`
 *   takes auto, half, float16, bfloat16, float, float32 (vLLM engine arguments,
 *   https://docs.vllm.ai/en/latest/configuration/engine_args.html).
 */

/** Where SageMaker puts a model.tar.gz's contents in the container (ModelDataUrl). */
export const MODEL_DATA_DIRECTORY = '/opt/ml/model';

/** The hardware an LLM container's images are built for. */
export type LlmPlatform = 'gpu' | 'neuronx';

/** The settings (container environment variables) one container reads on one platform. */
export interface LlmSettingsSpec {
  /** Tensor parallel degree: at most the instance's GPUs or NeuronCores. */
  readonly shardSettings: readonly string[];
  /** A shard setting may also say "use them all". */
  readonly shardKeyword?: string;
  /** Batch sizes, token budgets and lengths: positive integers. */
  readonly positiveSettings: readonly string[];
  readonly dtype: { readonly variable: string; readonly values: readonly string[] };
  /**
   * Settings this build does not read (another platform's), each with what to set instead: a run that
   * sets one would measure a configuration other than the one it names.
   */
  readonly ignored: Readonly<Record<string, string>>;
}

export interface LlmContainerSpec {
  readonly label: string;
  /** The accelerators the table has images for, each with the settings its build reads. */
  readonly settings: Readonly<Partial<Record<LlmPlatform, LlmSettingsSpec>>>;
  /** The variable that names the Hub model (or, for an S3 artifact, the directory it is in). */
  readonly modelVariable: string;
  /** The variable that pins the Hub model's revision. */
  readonly revisionVariable: string;
  /** Whether an artifact needs `modelVariable` set to /opt/ml/model (LMI finds it there itself). */
  readonly artifactNeedsModelVariable: boolean;
  /** The stream formats the container emits, the default first. */
  readonly formats: readonly StreamFormat[];
}

/** The platforms a container has images for (the keys of its `settings`). */
export function llmPlatforms(spec: LlmContainerSpec): LlmPlatform[] {
  return (['gpu', 'neuronx'] as const).filter((platform) => spec.settings[platform] !== undefined);
}

/** LMI reads the same `OPTION_*` settings on GPUs and Neuron (configurations.md). */
const LMI_SETTINGS: LlmSettingsSpec = {
  shardSettings: ['OPTION_TENSOR_PARALLEL_DEGREE', 'TENSOR_PARALLEL_DEGREE'],
  shardKeyword: 'max',
  positiveSettings: ['OPTION_MAX_ROLLING_BATCH_SIZE', 'OPTION_MAX_MODEL_LEN', 'OPTION_N_POSITIONS'],
  dtype: { variable: 'OPTION_DTYPE', values: ['fp32', 'fp16', 'bf16', 'int8'] },
  ignored: {},
};

/**
 * TGI on Neuron is optimum-neuron's build: its entrypoint (text-generation-inference/tgi_env.py in
 * huggingface/optimum-neuron @ b5d747b7ba4884f72658bf2bebbf5cac04523e03) reads the router's
 * `MAX_BATCH_SIZE`, `MAX_TOTAL_TOKENS`, `MAX_INPUT_LENGTH` and the Neuron server's `HF_BATCH_SIZE`,
 * `HF_SEQUENCE_LENGTH`, `HF_NUM_CORES` (NeuronCores to shard over) and `HF_AUTO_CAST_TYPE` (the
 * compiled data type; optimum-neuron's export takes fp32, fp16 or bf16), and checks them against the
 * compiled model's neuron config. The GPU launcher's `SM_NUM_GPUS`/`NUM_SHARD` and `DTYPE` are not read.
 */
const TGI_NEURON_SETTINGS: LlmSettingsSpec = {
  shardSettings: ['HF_NUM_CORES'],
  positiveSettings: [
    'MAX_BATCH_SIZE',
    'MAX_TOTAL_TOKENS',
    'MAX_INPUT_LENGTH',
    'HF_BATCH_SIZE',
    'HF_SEQUENCE_LENGTH',
  ],
  dtype: { variable: 'HF_AUTO_CAST_TYPE', values: ['fp32', 'fp16', 'bf16'] },
  ignored: {
    SM_NUM_GPUS: 'HF_NUM_CORES (the NeuronCores to shard over)',
    NUM_SHARD: 'HF_NUM_CORES (the NeuronCores to shard over)',
    DTYPE: 'HF_AUTO_CAST_TYPE (fp32, fp16 or bf16)',
    MAX_BATCH_TOTAL_TOKENS: 'MAX_BATCH_SIZE and MAX_TOTAL_TOKENS',
    MAX_INPUT_TOKENS: 'MAX_INPUT_LENGTH',
  },
};

const TGI_GPU_SETTINGS: LlmSettingsSpec = {
  shardSettings: ['SM_NUM_GPUS', 'NUM_SHARD'],
  positiveSettings: [
    'MAX_BATCH_SIZE',
    'MAX_BATCH_TOTAL_TOKENS',
    'MAX_TOTAL_TOKENS',
    'MAX_INPUT_TOKENS',
    'MAX_INPUT_LENGTH',
  ],
  dtype: { variable: 'DTYPE', values: ['float16', 'bfloat16'] },
  ignored: {
    HF_NUM_CORES: 'SM_NUM_GPUS (the GPUs to shard over)',
    HF_AUTO_CAST_TYPE: 'DTYPE (float16 or bfloat16)',
    HF_BATCH_SIZE: 'MAX_BATCH_SIZE',
    HF_SEQUENCE_LENGTH: 'MAX_TOTAL_TOKENS',
  },
};

export const LLM_CONTAINER_SPECS: Readonly<Record<LlmContainer, LlmContainerSpec>> = {
  'djl-lmi': {
    label: 'DJL LMI',
    settings: { gpu: LMI_SETTINGS, neuronx: LMI_SETTINGS },
    modelVariable: 'HF_MODEL_ID',
    revisionVariable: 'OPTION_REVISION',
    artifactNeedsModelVariable: false,
    formats: ['lmi-jsonlines', 'lmi-sse', 'openai'],
  },
  'hf-tgi': {
    label: 'Hugging Face TGI',
    settings: { gpu: TGI_GPU_SETTINGS, neuronx: TGI_NEURON_SETTINGS },
    modelVariable: 'HF_MODEL_ID',
    revisionVariable: 'HF_MODEL_REVISION',
    artifactNeedsModelVariable: true,
    formats: ['tgi', 'openai'],
  },
  vllm: {
    label: 'Hugging Face vLLM',
    settings: {
      gpu: {
        shardSettings: ['SM_VLLM_TENSOR_PARALLEL_SIZE'],
        positiveSettings: ['SM_VLLM_MAX_NUM_SEQS', 'SM_VLLM_MAX_NUM_BATCHED_TOKENS', 'SM_VLLM_MAX_MODEL_LEN'],
        dtype: {
          variable: 'SM_VLLM_DTYPE',
          values: ['auto', 'half', 'float16', 'bfloat16', 'float', 'float32'],
        },
        ignored: {},
      },
    },
    modelVariable: 'SM_VLLM_MODEL',
    revisionVariable: 'SM_VLLM_REVISION',
    artifactNeedsModelVariable: true,
    formats: ['openai'],
  },
};

/** LMI documents bf16 "only on G5/P4/P5 or newer": the catalog's older NVIDIA GPUs lack it. */
export const LMI_BF16_UNSUPPORTED = ['nvidia-t4', 'nvidia-v100'] as const;

/**
 * The environment that tells the container which model to serve: the Hub id (and revision), or for
 * a model.tar.gz the directory SageMaker extracts it to, when the container needs to be told. It
 * comes first in CreateModel's environment: the run's own variables win.
 */
export function llmModelEnvironment(
  container: LlmContainer,
  model: {
    readonly hub?: { readonly modelId: string; readonly revision?: string | undefined } | undefined;
  },
): Record<string, string> {
  const spec = LLM_CONTAINER_SPECS[container];
  if (model.hub === undefined) {
    return spec.artifactNeedsModelVariable ? { [spec.modelVariable]: MODEL_DATA_DIRECTORY } : {};
  }
  return {
    [spec.modelVariable]: model.hub.modelId,
    ...(model.hub.revision === undefined ? {} : { [spec.revisionVariable]: model.hub.revision }),
  };
}
