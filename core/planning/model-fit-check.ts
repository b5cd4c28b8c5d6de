import { findInstance, servingPlatformOf } from '../catalog/index.js';
import { isLlmContainer, type LlmContainer, BYTES_PER_DTYPE, type ModelSize } from '../contracts/index.js';
import type { InputIssue, RunInput } from '../contracts/index.js';
import { type FitResult, kvCacheMemory, type ModelMemory, modelFit, weightsMemory } from './model-fit.js';

/**
 * "Validate and plan"'s memory check: every candidate instance must hold the model, before anything
 * is created. The model's size is `model.size` (parameters × bytes per dtype) when given, else the
 * size of its artifact (read by the object checks: on AWS the S3 object's ContentLength, locally the
 * file's size; a compressed archive is a lower bound of the weights in memory). For a model served
 * by an LLM container with `model.size.attention`, the KV cache its batch and token settings imply
 * is added per candidate. A check that cannot run says so in a warning, never passes in silence.
 */

/**
 * The container settings that size a candidate's KV cache and its shards (llm-containers.ts cites
 * each container's documentation for them), the first one set wins.
 */
interface FitSettings {
  /** Sequences held at once. */
  readonly batch: readonly string[];
  /** Tokens held per sequence (prompt + generated). */
  readonly tokens: readonly string[];
  /** Tokens held across the whole batch, when the container takes that budget directly. */
  readonly batchTokens: readonly string[];
  readonly shards: readonly string[];
  readonly shardKeyword?: string;
  /**
   * The devices the model is sharded over when no shard setting is set: LMI's TENSOR_PARALLEL_DEGREE
   * defaults to "max", the GPU count (djl-serving LmiUtils.setTensorParallelDegree); TGI's launcher
   * takes every visible CUDA device (launcher/src/main.rs find_num_shards, `(None, None) =>
   * num_cuda_devices()`); vLLM's --tensor-parallel-size defaults to 1 (vLLM engine arguments,
   * https://docs.vllm.ai/en/latest/configuration/engine_args.html).
   */
  readonly defaultShards: 'all' | 1;
}

const FIT_SETTINGS: Readonly<Record<LlmContainer, Readonly<Record<'gpu' | 'neuronx', FitSettings>>>> = {
  'djl-lmi': {
    gpu: {
      batch: ['OPTION_MAX_ROLLING_BATCH_SIZE'],
      tokens: ['OPTION_MAX_MODEL_LEN', 'OPTION_N_POSITIONS'],
      batchTokens: [],
      shards: ['OPTION_TENSOR_PARALLEL_DEGREE', 'TENSOR_PARALLEL_DEGREE'],
      shardKeyword: 'max',
      defaultShards: 'all',
    },
    neuronx: {
      batch: ['OPTION_MAX_ROLLING_BATCH_SIZE'],
      tokens: ['OPTION_N_POSITIONS', 'OPTION_MAX_MODEL_LEN'],
      batchTokens: [],
      shards: ['OPTION_TENSOR_PARALLEL_DEGREE', 'TENSOR_PARALLEL_DEGREE'],
      shardKeyword: 'max',
      defaultShards: 'all',
    },
  },
  'hf-tgi': {
    gpu: {
      batch: ['MAX_BATCH_SIZE'],
      tokens: ['MAX_TOTAL_TOKENS'],
      batchTokens: ['MAX_BATCH_TOTAL_TOKENS'],
      shards: ['SM_NUM_GPUS', 'NUM_SHARD'],
      defaultShards: 'all',
    },
    neuronx: {
      batch: ['HF_BATCH_SIZE', 'MAX_BATCH_SIZE'],
      tokens: ['HF_SEQUENCE_LENGTH', 'MAX_TOTAL_TOKENS'],
      batchTokens: [],
      shards: ['HF_NUM_CORES'],
      defaultShards: 'all',
    },
  },
  vllm: {
    gpu: {
      batch: ['SM_VLLM_MAX_NUM_SEQS'],
      tokens: ['SM_VLLM_MAX_MODEL_LEN'],
      batchTokens: [],
      shards: ['SM_VLLM_TENSOR_PARALLEL_SIZE'],
      defaultShards: 1,
    },
    // The table has no vLLM image for Neuron (llm-containers.ts): llm-input.ts refuses it first.
    neuronx: {
      batch: ['SM_VLLM_MAX_NUM_SEQS'],
      tokens: ['SM_VLLM_MAX_MODEL_LEN'],
      batchTokens: [],
      shards: ['SM_VLLM_TENSOR_PARALLEL_SIZE'],
      defaultShards: 1,
    },
  },
};

export interface ModelFitFacts {
  /** The artifact's size in bytes, as the object checks read it; unknown when they did not run. */
  readonly artifactBytes?: number;
}

/** The issues (candidates that cannot hold the model) and warnings (fits that could not be checked). */
export function modelFitCheck(input: RunInput, facts: ModelFitFacts): FitResult {
  const model = input.model;
  if (model === undefined || input.existingEndpoint !== undefined) return { issues: [], warnings: [] };
  const weights = weightsOf(model.size, model.artifactUri, facts.artifactBytes);
  if (weights === undefined) {
    const why =
      model.artifactUri === undefined
        ? 'a Hub model has no artifact to size before its container downloads it'
        : "the artifact's size was not read";
    return {
      issues: [],
      warnings: [
        `model.size: whether the model fits each candidate's memory is not checked: ${why}; give ` +
          'model.size { "parameters", "dtype" } to check it',
      ],
    };
  }
  const issues: InputIssue[] = [];
  const warnings: string[] = [];
  const container = isLlmContainer(model.framework) ? model.framework : undefined;
  if (container !== undefined && model.size?.attention === undefined) {
    warnings.push(
      'model.size.attention: the KV cache is not counted in the memory check, only the weights; give ' +
        'model.size.attention { "layers", "kvHeads", "headDim" } (from the model\'s config.json) to count it',
    );
  }
  input.candidates.forEach((candidate, index) => {
    if (!('instanceType' in candidate)) return;
    const platform = servingPlatformOf(candidate.instanceType);
    const settings =
      container === undefined || (platform !== 'gpu' && platform !== 'neuronx')
        ? undefined
        : FIT_SETTINGS[container][platform];
    const valuesOf = (names: readonly string[]): string[] => settingValues(input, index, names);
    const needed: ModelMemory[] = [weights];
    if (settings !== undefined && model.size?.attention !== undefined) {
      const cache = kvCacheOf(model.size, model.size.attention, settings, valuesOf, index);
      if (typeof cache === 'string') warnings.push(cache);
      else needed.push(cache);
    }
    const result = modelFit(
      [
        {
          index,
          instanceType: candidate.instanceType,
          ...shardsOf(settings, valuesOf, candidate.instanceType),
        },
      ],
      needed,
    );
    issues.push(...result.issues);
    warnings.push(...result.warnings);
  });
  return { issues, warnings };
}

function weightsOf(
  size: ModelSize | undefined,
  artifactUri: string | undefined,
  artifactBytes: number | undefined,
): ModelMemory | undefined {
  if (size !== undefined) return weightsMemory(size.parameters, size.dtype);
  if (artifactUri === undefined || artifactBytes === undefined || artifactBytes === 0) return undefined;
  return { bytes: artifactBytes, basis: `the artifact's ${artifactBytes} bytes (model.artifactUri)` };
}

/**
 * The devices a candidate shards the model over: the smallest degree its settings name (a sweep's
 * smallest is the one that must still hold the model), its container's default when none, and one
 * device for a model served without an LLM container (each worker loads the whole model on a device).
 */
function shardsOf(
  settings: FitSettings | undefined,
  valuesOf: (names: readonly string[]) => string[],
  instanceType: string,
): { tensorParallelDegree?: number } {
  if (settings === undefined)
    return findInstance(instanceType)?.accelerator === 'none' ? {} : { tensorParallelDegree: 1 };
  const values = valuesOf(settings.shards);
  const degrees = values
    .filter((value) => value !== settings.shardKeyword)
    .map(Number)
    .filter((degree) => Number.isInteger(degree) && degree > 0);
  if (degrees.length > 0) return { tensorParallelDegree: Math.min(...degrees) };
  if (values.length > 0 || settings.defaultShards === 'all') return {};
  return { tensorParallelDegree: settings.defaultShards };
}

/** The KV cache the largest batch and token settings imply, or why it is not counted. */
function kvCacheOf(
  size: ModelSize,
  attention: NonNullable<ModelSize['attention']>,
  settings: FitSettings,
  valuesOf: (names: readonly string[]) => string[],
  index: number,
): ModelMemory | string {
  const largest = (names: readonly string[]): number | undefined => {
    const numbers = valuesOf(names)
      .map(Number)
      .filter((value) => Number.isInteger(value) && value > 0);
    return numbers.length === 0 ? undefined : Math.max(...numbers);
  };
  const shape = {
    layers: attention.layers,
    kvHeads: attention.kvHeads,
    headDim: attention.headDim,
    bytesPerValue: BYTES_PER_DTYPE[size.dtype],
  };
  const batchTokens = largest(settings.batchTokens);
  if (batchTokens !== undefined) return kvCacheMemory({ ...shape, maxTokens: batchTokens, batch: 1 });
  const batch = largest(settings.batch);
  const tokens = largest(settings.tokens);
  if (batch === undefined || tokens === undefined) {
    const missing = [
      ...(batch === undefined ? [settings.batch.join(' or ')] : []),
      ...(tokens === undefined ? [settings.tokens.join(' or ')] : []),
    ].join(' and ');
    return (
      `candidates[${index}]: the KV cache is not counted in the memory check: its container settings do not say ` +
      `${missing} (the container's own defaults depend on the model), so only the weights are checked`
    );
  }
  return kvCacheMemory({ ...shape, maxTokens: tokens, batch });
}

/** Every value a setting takes for one candidate: a range's values, else the candidate's, else the model's. */
function settingValues(input: RunInput, index: number, names: readonly string[]): string[] {
  for (const name of names) {
    const range = input.environmentRanges[name];
    if (range !== undefined) return [...range];
    const own = input.candidates[index]?.environment[name];
    if (own !== undefined) return [own];
    const fromModel = input.model?.environment[name];
    if (fromModel !== undefined) return [fromModel];
  }
  return [];
}
