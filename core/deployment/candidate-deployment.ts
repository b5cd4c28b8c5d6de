import { baseFrameworkOf, resolveServingImage, llmModelEnvironment } from '../catalog/index.js';
import {
  failureReasonOf,
  EndpointFailedError,
  TAG_KEYS,
  VARIANT_NAME,
  CompilationOutcomes,
  type DeployCandidateEvent,
  type PlannedOptimization,
  isLlmContainer,
} from '../contracts/index.js';
import type { HubModel } from '../contracts/index.js';
import type { ModelSpec, ProductionVariantSpec } from '../ports/index.js';

/**
 * What "Deploy candidate" creates for a candidate, decided in one place: the image, the model data
 * (compiled or not), the environment and the variant. The deploy step sends it; the report shows it
 * (report/deploy-requests.ts), so the two cannot drift apart.
 */

export interface EndpointConfigSpec {
  readonly endpointConfigName: string;
  readonly variant: ProductionVariantSpec;
  readonly tags: Readonly<Record<string, string>>;
}

export interface EndpointSpec {
  readonly endpointName: string;
  readonly endpointConfigName: string;
  readonly tags: Readonly<Record<string, string>>;
}

export type CandidateDeployment =
  /** The user's endpoint: looked at, never created. */
  | { readonly kind: 'existing' }
  /** Its compiled artifact failed to build: nothing to deploy, and why. */
  | { readonly kind: 'skipped'; readonly skipReason: string }
  | {
      readonly kind: 'create';
      /** Which table row, run-input field or compilation job gave the image. */
      readonly imageSource: string;
      readonly model: ModelSpec;
      readonly endpointConfig: EndpointConfigSpec;
      readonly endpoint: EndpointSpec;
    };

export type CandidateDeploymentInput = Pick<
  DeployCandidateEvent,
  'plan' | 'candidate' | 'packagedModel' | 'compilations'
>;

/**
 * The candidate's three requests, named after the run and tagged with it. Throws
 * `EndpointFailedError` when the run has no model, and `NoServingImageError` when no image serves it.
 */
export function candidateDeployment(input: CandidateDeploymentInput, region: string): CandidateDeployment {
  const { candidate } = input;
  if (candidate.kind === 'existing') return { kind: 'existing' };

  const model = input.plan.model;
  const modelDataUrl = input.packagedModel.modelDataUrl;
  // A Hugging Face Hub model without inference code has no model data: the container downloads it.
  if (model === undefined || (modelDataUrl === undefined && model.hub === undefined)) {
    throw new EndpointFailedError(`Candidate ${candidate.id} has no model to deploy`);
  }
  if (candidate.optimizedBy !== undefined) return optimizedDeployment(input, candidate.optimizedBy);
  let artifactUri = modelDataUrl;
  let compilationImage: string | undefined;
  if (candidate.compiledFor !== undefined) {
    const compilation = input.compilations.find((c) => c.target === candidate.compiledFor);
    if (compilation?.status !== CompilationOutcomes.completed || compilation.artifactUri === undefined) {
      const why =
        compilation?.failureReason ?? (compilation?.error ? failureReasonOf(compilation.error) : 'no result');
      return { kind: 'skipped', skipReason: `compilation for ${candidate.compiledFor} failed: ${why}` };
    }
    artifactUri = compilation.artifactUri;
    compilationImage = compilation.inferenceImage;
  }
  // model.image serves the uncompiled artifact only; a compiled one runs on model.compiledImage, the
  // image its compilation job named, or the table's Neo image (images.ts), or is refused with why.
  const { imageUri: image, source: imageSource } = resolveServingImage({
    framework: model.framework,
    frameworkVersion: model.frameworkVersion,
    baseFramework: baseFrameworkOf(model),
    region,
    instanceType: candidate.instanceType ?? 'ml.m5.large',
    compiledFor: candidate.compiledFor,
    explicitImage: model.image,
    explicitCompiledImage: model.compiledImage,
    compilationImage,
  });

  return createRequests(input, imageSource, {
    image,
    ...(artifactUri === undefined ? {} : { modelDataUrl: artifactUri }),
    // The model's settings first: the run's own environment (model, candidate, ranges) wins.
    environment: { ...modelEnvironment(model), ...candidate.environment },
  });
}

/**
 * An optimized candidate serves the job's model (its output location) on `model.compiledImage`,
 * else the image the job recommends (`OptimizationOutput.RecommendedInferenceImage`), else
 * `model.image`; a failed job skips it with SageMaker's reason.
 */
function optimizedDeployment(input: CandidateDeploymentInput, optimizedBy: string): CandidateDeployment {
  const job = input.compilations.find((c) => c.target === optimizedBy);
  if (job?.status !== CompilationOutcomes.completed || job.artifactUri === undefined) {
    const why = job?.failureReason ?? (job?.error ? failureReasonOf(job.error) : 'no result');
    return { kind: 'skipped', skipReason: `optimization ${optimizedBy} failed: ${why}` };
  }
  const model = input.plan.model;
  const [image, imageSource] =
    model?.compiledImage !== undefined
      ? [model.compiledImage, 'model.compiledImage']
      : job.inferenceImage !== undefined
        ? [job.inferenceImage, 'optimization job RecommendedInferenceImage']
        : [model?.image, 'model.image'];
  if (image === undefined) {
    return {
      kind: 'skipped',
      skipReason:
        `optimization ${optimizedBy} recommended no serving image: set model.compiledImage ` +
        '(an LMI image for the optimized model)',
    };
  }
  const optimization = input.plan.compilations.find((c) => c.target === optimizedBy)?.optimization;
  return createRequests(input, imageSource, {
    image,
    modelDataUrl: job.artifactUri,
    ...(job.artifactUncompressed === true ? { modelDataUncompressed: true } : {}),
    environment: optimizedServingEnvironment(
      // An LLM container finds the optimized model in /opt/ml/model through its own variable.
      model === undefined ? {} : modelEnvironment({ framework: model.framework }),
      model?.environment ?? {},
      optimization === undefined ? {} : optimizationEnvironment(optimization),
      input.candidate.environment,
    ),
  });
}

/**
 * The variables an optimization job ran with, as the served model gets them: its
 * `OptimizationEnvironment`, then each technique's `OverrideEnvironment` (quantization, compilation,
 * sharding). The artifact was built with them (e.g. `OPTION_QUANTIZE`, `OPTION_N_POSITIONS`,
 * `OPTION_TENSOR_PARALLEL_DEGREE`): the container must load it with the same. The SageMaker Python
 * SDK does the same when it optimizes a model: `ModelBuilder._optimize_for_hf` updates the served
 * model's `env` with the job's environment and then with the quantization, compilation and sharding
 * override environments (aws/sagemaker-python-sdk, src/sagemaker/serve/builder/model_builder.py,
 * with `_extract_optimization_config_and_env` in src/sagemaker/serve/utils/optimize_utils.py).
 */
function optimizationEnvironment(optimization: PlannedOptimization): Record<string, string> {
  const { quantization, compilation, sharding } = optimization.techniques;
  return {
    ...optimization.environment,
    ...quantization?.overrideEnvironment,
    ...compilation?.overrideEnvironment,
    ...sharding?.overrideEnvironment,
  };
}

/**
 * An optimized candidate's environment: the container's own variables, the run's model environment,
 * then the optimization's (it beats the model's, as in the SDK, so the artifact is loaded as it was
 * built), then the candidate's own settings and environment-range values, which win. The planned
 * candidate environment holds the model's too: a variable the candidate left at the model's value
 * is the model's, not the candidate's own.
 */
function optimizedServingEnvironment(
  container: Readonly<Record<string, string>>,
  model: Readonly<Record<string, string>>,
  optimization: Readonly<Record<string, string>>,
  candidate: Readonly<Record<string, string>>,
): Record<string, string> {
  const own = Object.fromEntries(Object.entries(candidate).filter(([name, value]) => model[name] !== value));
  return { ...container, ...model, ...optimization, ...own };
}

/** The three create requests of a candidate, named after the run and tagged with it. */
function createRequests(
  input: CandidateDeploymentInput,
  imageSource: string,
  container: Pick<ModelSpec, 'image' | 'modelDataUrl' | 'modelDataUncompressed' | 'environment'>,
): CandidateDeployment {
  const { candidate } = input;
  const tags = { ...input.plan.tags, [TAG_KEYS.candidateId]: candidate.id };
  return {
    kind: 'create',
    imageSource,
    model: { modelName: candidate.modelName, ...container, tags },
    endpointConfig: {
      endpointConfigName: candidate.endpointConfigName,
      variant: {
        variantName: VARIANT_NAME,
        modelName: candidate.modelName,
        ...(candidate.instanceType === undefined
          ? {}
          : { instanceType: candidate.instanceType, initialInstanceCount: candidate.initialInstanceCount }),
        ...(candidate.routingStrategy === undefined ? {} : { routingStrategy: candidate.routingStrategy }),
        ...(candidate.serverless === undefined ? {} : { serverless: candidate.serverless }),
      },
      tags,
    },
    endpoint: {
      endpointName: candidate.endpointName,
      endpointConfigName: candidate.endpointConfigName,
      tags,
    },
  };
}

/**
 * What tells the container which model to serve: an LLM container's model variable
 * (catalog/llm-containers.ts), the Hugging Face toolkit's Hub settings, or nothing (the model data).
 */
export function modelEnvironment(model: {
  readonly framework: string;
  readonly hub?: HubModel | undefined;
}): Record<string, string> {
  return isLlmContainer(model.framework)
    ? llmModelEnvironment(model.framework, model)
    : hubEnvironment(model.hub);
}

/**
 * The container environment the Hugging Face inference toolkit reads to download and serve a Hub
 * model: `HF_MODEL_ID`, `HF_TASK` and `HF_MODEL_REVISION` (aws/sagemaker-huggingface-inference-toolkit,
 * transformers_utils.py @ 24c423ca8562e3d1ec5814b0964f2ad78edbdaa9 and mms_model_server.py
 * @ 0a0cc3d738ae050bef44f148d19485c6e316fbe2). Never `HF_API_TOKEN`: a token in a container's environment is readable by anyone who can describe the model.
 */
export function hubEnvironment(hub: HubModel | undefined): Record<string, string> {
  if (hub === undefined) return {};
  return {
    HF_MODEL_ID: hub.modelId,
    ...(hub.task === undefined ? {} : { HF_TASK: hub.task }),
    ...(hub.revision === undefined ? {} : { HF_MODEL_REVISION: hub.revision }),
  };
}
