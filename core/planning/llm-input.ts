import {
  servingPlatformOf,
  findInstance,
  LLM_CONTAINER_SPECS,
  LMI_BF16_UNSUPPORTED,
  llmPlatforms,
  type LlmContainerSpec,
  type LlmSettingsSpec,
} from '../catalog/index.js';
import {
  isLlmContainer,
  type LlmContainer,
  containerStreamFormat,
  LMI_OUTPUT_FORMATTER,
  type StreamFormat,
} from '../contracts/index.js';

/**
 * The run-input checks of a model served by an LLM container (`model.framework` "djl-lmi",
 * "hf-tgi" or "vllm"), made before anything is created: where the model
 * comes from, which instances its images run on, each candidate's container settings against its
 * instance, and the load plan's stream format against what the container emits.
 */

type Environment = Readonly<Record<string, string>>;

export interface LlmFieldIssue {
  readonly path: PropertyKey[];
  readonly message: string;
  readonly given: unknown;
}

/** The parts of a run input these checks read (run-input-check.ts passes the parsed input). */
export interface LlmRunInput {
  readonly model?:
    | {
        readonly framework: string;
        readonly artifactUri?: string | undefined;
        readonly hub?: { readonly modelId: string; readonly task?: string | undefined } | undefined;
        readonly image?: string | undefined;
        readonly inferenceCodeUri?: string | undefined;
        readonly environment: Environment;
      }
    | undefined;
  readonly candidates: readonly (
    | { readonly instanceType: string; readonly environment: Environment }
    | { readonly serverless: unknown; readonly environment: Environment }
  )[];
  readonly environmentRanges: Readonly<Record<string, readonly string[]>>;
  readonly compilation: { readonly targets: readonly string[] };
  readonly loadPlan: {
    readonly response?: { readonly mode: string; readonly format?: StreamFormat | undefined } | undefined;
  };
}

export function llmInputIssues(input: LlmRunInput): LlmFieldIssue[] {
  const model = input.model;
  if (model === undefined || !isLlmContainer(model.framework)) return [];
  const container = model.framework;
  const spec = LLM_CONTAINER_SPECS[container];
  return [
    ...modelIssues(container, spec, model, input.compilation.targets),
    ...candidateIssues(spec, input),
    ...streamFormatIssues(container, spec, input),
  ];
}

function modelIssues(
  container: LlmContainer,
  spec: LlmContainerSpec,
  model: NonNullable<LlmRunInput['model']>,
  targets: readonly string[],
): LlmFieldIssue[] {
  const issues: LlmFieldIssue[] = [];
  if (model.hub === undefined && model.artifactUri === undefined) {
    issues.push({
      path: ['model', 'hub'],
      message: `a Hub model { "modelId": "owner/name" }, or artifactUri: a model.tar.gz of the model's directory, which ${spec.label} serves`,
      given: undefined,
    });
  }
  if (model.hub !== undefined && model.artifactUri !== undefined) {
    issues.push({
      path: ['model', 'artifactUri'],
      message: `either hub (${spec.label} downloads the model) or artifactUri (your model.tar.gz), not both`,
      given: model.artifactUri,
    });
  }
  // An LLM is a directory (config, weights, tokenizer): the run packages a single file only.
  if (model.artifactUri !== undefined && !model.artifactUri.endsWith('.tar.gz')) {
    issues.push({
      path: ['model', 'artifactUri'],
      message:
        `a model.tar.gz of the model's directory (config.json, weights, tokenizer files), which SageMaker extracts to ` +
        `/opt/ml/model for ${spec.label}: the run packages single model files only`,
      given: model.artifactUri,
    });
  }
  if (model.hub?.task !== undefined) {
    issues.push({
      path: ['model', 'hub', 'task'],
      message: `no task for ${container}: ${spec.label} serves text generation (the task is the Hugging Face inference DLC's HF_TASK)`,
      given: model.hub.task,
    });
  }
  if (model.inferenceCodeUri !== undefined) {
    issues.push({
      path: ['model', 'inferenceCodeUri'],
      message: `no inferenceCodeUri for ${container}: ${spec.label} is configured by its environment variables (model.environment, candidates[i].environment)`,
      given: model.inferenceCodeUri,
    });
  }
  if (targets.length > 0) {
    issues.push({
      path: ['compilation', 'targets'],
      message:
        `no compilation targets for ${container}: SageMaker Neo has no LLM framework (InputConfig.Framework), ` +
        `and ${spec.label} loads the model itself${spec.settings.neuronx !== undefined ? ', compiling it for Neuron when it starts on Inferentia2/Trainium' : ''}`,
      given: targets,
    });
  }
  return issues;
}

const PLATFORM_WORDS = {
  gpu: 'an NVIDIA GPU instance (ml.g*, ml.p*)',
  neuronx: 'an Inferentia2/Trainium instance (ml.inf2, ml.trn*)',
} as const;

/** What an image URI says about its build: a `neuronx` tag is a Neuron build; unknown for others. */
function imagePlatform(image: string): 'gpu' | 'neuronx' | undefined {
  if (/neuronx/.test(image)) return 'neuronx';
  if (/(djl-inference|tgi-inference|huggingface-vllm):/.test(image)) return 'gpu';
  return undefined;
}

function candidateIssues(spec: LlmContainerSpec, input: LlmRunInput): LlmFieldIssue[] {
  const model = input.model;
  if (model === undefined) return [];
  const issues: LlmFieldIssue[] = [];
  const seen = new Set<string>();
  const add = (issue: LlmFieldIssue): void => {
    const key = `${JSON.stringify(issue.path.map(String))} ${issue.message}`;
    if (seen.has(key)) return;
    seen.add(key);
    issues.push(issue);
  };
  const explicitPlatform = model.image === undefined ? undefined : imagePlatform(model.image);
  input.candidates.forEach((candidate, index) => {
    if (!('instanceType' in candidate)) {
      add({
        path: ['candidates', index, 'serverless'],
        message: `an instanceType: ${spec.label} needs GPUs or Inferentia2/Trainium, and SageMaker Serverless Inference has neither (serverless endpoints do not support GPUs)`,
        given: candidate.serverless,
      });
      return;
    }
    const platform = servingPlatformOf(candidate.instanceType);
    const runsOn = explicitPlatform === undefined ? llmPlatforms(spec) : [explicitPlatform];
    if (platform !== 'gpu' && platform !== 'neuronx') {
      add({
        path: ['candidates', index, 'instanceType'],
        message: `${runsOn.map((p) => PLATFORM_WORDS[p]).join(' or ')}: ${spec.label} images are built for ${runsOn.length > 1 ? 'those' : 'that'} accelerator${runsOn.length > 1 ? 's' : ''}`,
        given: candidate.instanceType,
      });
      return;
    }
    if (!runsOn.includes(platform)) {
      add({
        path: ['candidates', index, 'instanceType'],
        message:
          explicitPlatform === undefined
            ? `${runsOn.map((p) => PLATFORM_WORDS[p]).join(' or ')}: the table has ${spec.label} images for ${runsOn.join(', ')} only (SageMaker Python SDK image config)`
            : `${PLATFORM_WORDS[explicitPlatform]}: model.image is a ${explicitPlatform === 'neuronx' ? 'Neuron build (its tag says neuronx)' : 'GPU build'}, which does not run on ${candidate.instanceType}; ` +
              'remove model.image to let the table pick the image per instance',
        given: candidate.instanceType,
      });
      return;
    }
    const settings = spec.settings[platform];
    if (settings === undefined) return;
    for (const issue of settingIssues(spec.label, settings, input, index, candidate.instanceType)) add(issue);
  });
  return issues;
}

/** Each value a setting takes for one candidate, with the input field it comes from. */
function settingValues(
  name: string,
  input: LlmRunInput,
  index: number,
): { value: string; path: PropertyKey[] }[] {
  const range = input.environmentRanges[name];
  if (range !== undefined) {
    return range.map((value, valueIndex) => ({ value, path: ['environmentRanges', name, valueIndex] }));
  }
  const candidate = input.candidates[index];
  const own = candidate?.environment[name];
  if (own !== undefined) return [{ value: own, path: ['candidates', index, 'environment', name] }];
  const fromModel = input.model?.environment[name];
  return fromModel === undefined ? [] : [{ value: fromModel, path: ['model', 'environment', name] }];
}

const POSITIVE_INTEGER = /^[1-9]\d*$/;

/**
 * One candidate's settings against what its container reads on its instance's platform: each setting
 * the build ignores is refused with what to set instead, then shard degrees against the instance's
 * GPUs or NeuronCores, counts, and the data type.
 */
function settingIssues(
  label: string,
  spec: LlmSettingsSpec,
  input: LlmRunInput,
  index: number,
  instanceType: string,
): LlmFieldIssue[] {
  const issues: LlmFieldIssue[] = [];
  const instance = findInstance(instanceType);
  const platformWords = servingPlatformOf(instanceType) === 'neuronx' ? 'Neuron build' : 'GPU build';
  for (const [name, instead] of Object.entries(spec.ignored)) {
    for (const { value, path } of settingValues(name, input, index)) {
      issues.push({
        path,
        message: `no ${name} on ${instanceType}: the ${label} ${platformWords} does not read it, so the candidate would not run as set; use ${instead}`,
        given: value,
      });
    }
  }
  for (const name of spec.shardSettings) {
    for (const { value, path } of settingValues(name, input, index)) {
      if (spec.shardKeyword !== undefined && value === spec.shardKeyword) continue;
      const count = instance?.acceleratorCount;
      const unit = servingPlatformOf(instanceType) === 'neuronx' ? 'NeuronCores' : 'GPUs';
      const keyword = spec.shardKeyword === undefined ? '' : ` or "${spec.shardKeyword}"`;
      if (!POSITIVE_INTEGER.test(value)) {
        issues.push({
          path,
          message: `a whole number of ${unit} from 1${count === undefined ? '' : ` to ${count}`}${keyword}: ${name} is ${label}'s tensor parallel degree`,
          given: value,
        });
      } else if (count !== undefined && Number(value) > count) {
        issues.push({
          path,
          message: `at most ${count}${keyword}: candidates[${index}] is ${instanceType}, which has ${count} ${count === 1 ? unit.replace(/s$/, '') : unit} to shard the model over (${name}, the tensor parallel degree)`,
          given: value,
        });
      }
    }
  }
  for (const name of spec.positiveSettings) {
    for (const { value, path } of settingValues(name, input, index)) {
      if (!POSITIVE_INTEGER.test(value)) {
        issues.push({
          path,
          message: `a positive whole number, such as 8: ${name} is a count ${label} reads as an integer`,
          given: value,
        });
      }
    }
  }
  for (const { value, path } of settingValues(spec.dtype.variable, input, index)) {
    if (!spec.dtype.values.includes(value)) {
      issues.push({
        path,
        message: `one of ${spec.dtype.values.join(', ')}: the data types ${label} documents for ${spec.dtype.variable}`,
        given: value,
      });
    } else if (
      spec.dtype.variable === 'OPTION_DTYPE' &&
      value === 'bf16' &&
      (LMI_BF16_UNSUPPORTED as readonly string[]).includes(instance?.accelerator ?? '')
    ) {
      issues.push({
        path,
        message: `fp16 or fp32 on ${instanceType}: LMI documents bf16 "only on G5/P4/P5 or newer instance types"`,
        given: value,
      });
    }
  }
  return issues;
}

function streamFormatIssues(
  container: LlmContainer,
  spec: LlmContainerSpec,
  input: LlmRunInput,
): LlmFieldIssue[] {
  const response = input.loadPlan.response;
  if (response?.mode !== 'stream') return [];
  const format = containerStreamFormat(input);
  if (format === undefined) return [];
  if (!spec.formats.includes(format)) {
    return [
      {
        path: ['loadPlan', 'response', 'format'],
        message: `one of ${spec.formats.join(', ')}: the stream formats ${spec.label} emits (or no format, for its default ${spec.formats[0] ?? ''})`,
        given: format,
      },
    ];
  }
  if (container !== 'djl-lmi' || format === 'openai') return [];
  // LMI's formatter is a container setting, so every candidate must stream what the plan reads.
  const wanted = format === 'lmi-sse' ? 'sse' : 'jsonlines';
  const issues: LlmFieldIssue[] = [];
  const seen = new Set<string>();
  input.candidates.forEach((_, index) => {
    const values = settingValues(LMI_OUTPUT_FORMATTER, input, index);
    const effective = values.length === 0 ? [{ value: 'jsonlines', path: [] as PropertyKey[] }] : values;
    for (const { value, path } of effective) {
      if (value === wanted) continue;
      const at = path.length === 0 ? ['candidates', index, 'environment', LMI_OUTPUT_FORMATTER] : path;
      const key = JSON.stringify(at.map(String));
      if (seen.has(key)) continue;
      seen.add(key);
      issues.push({
        path: at,
        message: `${wanted}: loadPlan.response.format is ${format}, and LMI streams ${format === 'lmi-sse' ? 'SSE only with OPTION_OUTPUT_FORMATTER=sse' : 'JSON Lines unless OPTION_OUTPUT_FORMATTER says otherwise'}`,
        given: path.length === 0 ? undefined : value,
      });
    }
  });
  return issues;
}
