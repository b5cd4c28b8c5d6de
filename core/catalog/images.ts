import { NoServingImageError, isLlmContainer } from '../contracts/index.js';
import {
  IMAGE_TABLE,
  type BaseFramework,
  type Framework,
  type ImageRow,
  type ServingPlatform,
} from './image-table.js';
import { findInstance } from './instances.js';

/**
 * Which inference container serves a candidate: the model's framework and version, served uncompiled
 * or as an artifact compiled for a Neo/Neuron target, on an instance type, in a region.
 *
 * An uncompiled artifact runs on `model.image` when given. A compiled artifact never does: a Neo
 * artifact is served by a Neo inference container, not the framework's plain one (AWS docs "Neo
 * Inference Container Images"). It runs on `model.compiledImage` when given (the user's own
 * Neo-capable container), else on the image its compilation job names (`InferenceImage`, set for
 * cloud-instance targets; SageMaker API Reference, DescribeCompilationJob). Otherwise the newest
 * matching row of the maintained table (`image-table.ts`, which cites its sources) gives the image.
 */

export interface ServingImageRequest {
  readonly framework: Framework;
  /** e.g. `2.1` matches table versions 2.1 and 2.1.x (the newest wins); absent = the newest version. */
  readonly frameworkVersion?: string | undefined;
  /**
   * Hugging Face only: the PyTorch or TensorFlow under the transformers `frameworkVersion` (`2.6`
   * matches 2.6.0); absent = any.
   */
  readonly baseFramework?: BaseFramework | undefined;
  readonly region: string;
  /** e.g. `ml.c5.xlarge`. */
  readonly instanceType: string;
  /** The Neo/Neuron target the artifact was compiled for (e.g. `ml_c5`, `ml_inf2`); absent = uncompiled. */
  readonly compiledFor?: string | undefined;
  /** `model.image` from the run input: serves uncompiled artifacts only. */
  readonly explicitImage?: string | undefined;
  /** `model.compiledImage` from the run input: serves compiled artifacts only. */
  readonly explicitCompiledImage?: string | undefined;
  /** The image the compilation job named for its artifact (`InferenceImage`); compiled artifacts only. */
  readonly compilationImage?: string | undefined;
}

export interface ServingImage {
  readonly imageUri: string;
  /** Which table row (and where its facts come from), the explicit field, or the compilation job. */
  readonly source: string;
}

/** The PyTorch or TensorFlow under a Hugging Face model, from its run-input fields; none for others. */
export function baseFrameworkOf(model: {
  readonly framework: string;
  readonly pytorchVersion?: string | undefined;
  readonly tensorflowVersion?: string | undefined;
}): BaseFramework | undefined {
  if (model.framework !== 'huggingface') return undefined;
  if (model.pytorchVersion !== undefined) return { name: 'pytorch', version: model.pytorchVersion };
  if (model.tensorflowVersion !== undefined) return { name: 'tensorflow', version: model.tensorflowVersion };
  return undefined;
}

/**
 * Whether the Hugging Face DLC table (huggingface.json) has a build of this transformers version over
 * this PyTorch/TensorFlow version, on any hardware; if not, the run-input field to fix and what it
 * accepts. Region and instance are checked when planning on AWS (resolveServingImage).
 */
export function huggingfaceVersionProblem(
  transformersVersion: string,
  base: BaseFramework,
): { field: 'frameworkVersion' | 'pytorchVersion' | 'tensorflowVersion'; expected: string } | undefined {
  const rows = IMAGE_TABLE.filter((row) => row.framework === 'huggingface');
  const forVersion = rows.filter((row) => servesVersion(row, transformersVersion));
  if (forVersion.length === 0) {
    return {
      field: 'frameworkVersion',
      expected: `a transformers version with a Hugging Face inference DLC (SageMaker Python SDK huggingface.json): ${unique(newestFirst(rows).map((row) => row.version)).join(', ')}`,
    };
  }
  if (forVersion.some((row) => servesBase(row, base))) return undefined;
  const builds = unique(
    newestFirst(forVersion).map((row) =>
      row.baseFramework === undefined ? '' : `${row.baseFramework.name} ${row.baseFramework.version}`,
    ),
  ).filter((build) => build !== '');
  return {
    field: base.name === 'pytorch' ? 'pytorchVersion' : 'tensorflowVersion',
    expected: `a base framework the transformers ${transformersVersion} DLC is built on (SageMaker Python SDK huggingface.json): ${builds.join(', ')}`,
  };
}

export function resolveServingImage(request: ServingImageRequest): ServingImage {
  const compiled = request.compiledFor !== undefined;
  if (compiled) {
    if (request.explicitCompiledImage !== undefined) {
      return { imageUri: request.explicitCompiledImage, source: 'model.compiledImage' };
    }
    if (request.compilationImage !== undefined) {
      return { imageUri: request.compilationImage, source: 'compilation job InferenceImage' };
    }
  } else if (request.explicitImage !== undefined) {
    return { imageUri: request.explicitImage, source: 'model.image' };
  }

  const platform = servingPlatformOf(request.compiledFor ?? request.instanceType);
  const forContext = IMAGE_TABLE.filter(
    (row) => row.framework === request.framework && row.compiled === compiled && row.platform === platform,
  );
  if (forContext.length === 0) {
    const has = describeContexts(IMAGE_TABLE.filter((row) => row.framework === request.framework));
    throw noServingImage(
      request,
      `the table has no ${request.framework} image ${contextLabel(compiled, platform)}` +
        (has === ''
          ? ` (nor any other ${request.framework} image).`
          : ` (its ${request.framework} images: ${has}).`) +
        ` ${whyNone(request.framework, compiled, platform)}`,
      { platform },
    );
  }

  const forVersion = forContext.filter(
    (row) => servesVersion(row, request.frameworkVersion) && servesBase(row, request.baseFramework),
  );
  if (forVersion.length === 0) {
    const versions = newestFirst(forContext).map(describeVersion);
    throw noServingImage(
      request,
      `the table's ${request.framework} images ${contextLabel(compiled, platform)} are versions ${unique(versions).join(', ')}.`,
      { platform, tableVersions: unique(newestFirst(forContext).map((row) => row.version)) },
    );
  }

  const capability = findInstance(request.instanceType)?.computeCapability;
  const forGpu = forVersion.filter((row) => runsOnGpu(row, capability));
  if (forGpu.length === 0 && capability !== undefined) {
    const builds = unique(
      newestFirst(forVersion).map((row) => `${row.version} (CUDA ${cudaOf(row) ?? 'unknown'})`),
    );
    throw noServingImage(
      request,
      `the table's ${request.framework} images ${contextLabel(compiled, platform)} for this version are ` +
        `${builds.join(', ')}, and none runs on ${request.instanceType}, whose GPU has compute capability ` +
        `${capability.toFixed(1)} (CUDA 13 builds for 7.5 and later only). Choose a newer GPU instance, or an ` +
        `older frameworkVersion built on CUDA 12.`,
      { platform, computeCapability: capability },
    );
  }
  const inRegion = forGpu.filter((row) => row.registry.accounts[request.region] !== undefined);
  const row = newestFirst(inRegion)[0];
  const account = row?.registry.accounts[request.region];
  if (row === undefined || account === undefined) {
    const regions = unique(
      forVersion.flatMap((candidate) => Object.keys(candidate.registry.accounts)),
    ).sort();
    throw noServingImage(
      request,
      `the table lists ${request.framework} ${unique(forVersion.map((candidate) => candidate.version)).join('/')} images ` +
        `${contextLabel(compiled, platform)} for regions ${regions.join(', ')}.`,
      { platform, tableRegions: regions },
    );
  }
  return {
    imageUri: imageUriOf(account, request.region, row),
    source: `table: ${row.framework} ${row.version} ${contextLabel(row.compiled, row.platform)} (${row.reference})`,
  };
}

/**
 * The hardware an instance type (`ml.g4dn.xlarge`) or a compilation target (`ml_g4dn`) runs on, by
 * family name as the SageMaker SDK reads it: the g and p families are NVIDIA GPUs, inf1 Inferentia,
 * inf2 and trn Neuron v2, a `g` after the generation digit (c6g, m7gd, t4g) Graviton, the rest x86 CPUs.
 */
export function servingPlatformOf(instanceTypeOrTarget: string): ServingPlatform {
  const family = instanceTypeOrTarget.startsWith('ml_')
    ? instanceTypeOrTarget.slice('ml_'.length)
    : (instanceTypeOrTarget.split('.')[1] ?? instanceTypeOrTarget);
  if (family.startsWith('inf1')) return 'inf1';
  if (family.startsWith('inf2') || family.startsWith('trn')) return 'neuronx';
  if (/^[gp]\d/.test(family)) return 'gpu';
  if (/^[a-z]+\d+g[a-z]*$/.test(family)) return 'graviton';
  return 'cpu';
}

/**
 * The lowest compute capability each CUDA major release builds for. CUDA 13.0 removed offline
 * compilation and library support for architectures before 7.5 (Maxwell, Pascal, Volta: announced in
 * the CUDA 12.9 release notes, https://docs.nvidia.com/cuda/archive/12.9.0/cuda-toolkit-release-notes/,
 * and NVIDIA's technical blog for CUDA 13.0); CUDA 12.0 dropped Kepler, keeping 5.0 and later
 * (CUDA 12.0 release notes); CUDA 11 builds for 3.5 and later.
 */
export const MIN_COMPUTE_CAPABILITY_BY_CUDA_MAJOR: Readonly<Record<number, number>> = {
  11: 3.5,
  12: 5.0,
  13: 7.5,
};

/**
 * The CUDA release an image is built on, from its tag (`…-cu130`, `cu124-ubuntu22.04`: major and minor
 * digits, as the DLC tags write them); undefined when the tag does not say (CPU, Neuron and the plain
 * framework DLCs, whose tags name no CUDA).
 */
export function cudaOf(row: ImageRow): string | undefined {
  const digits = /(?:^|-)cu(\d{2,3})(?:-|$)/.exec(row.tag)?.[1];
  return digits === undefined ? undefined : `${digits.slice(0, -1)}.${digits.slice(-1)}`;
}

/**
 * Whether an image runs on a GPU of this compute capability: its CUDA release must still build for
 * it. An image whose tag names no CUDA, or an instance with no NVIDIA GPU, is not judged here.
 */
export function runsOnGpu(row: ImageRow, capability: number | undefined): boolean {
  const cuda = cudaOf(row);
  if (capability === undefined || cuda === undefined) return true;
  const major = Number.parseInt(cuda, 10);
  const floors = Object.entries(MIN_COMPUTE_CAPABILITY_BY_CUDA_MAJOR).filter(
    ([release]) => Number(release) <= major,
  );
  // A release newer than the table keeps the newest floor known: NVIDIA never lowers it.
  const floor = floors.at(-1)?.[1] ?? 0;
  return capability >= floor;
}

/** The ECR domain is per partition: China regions use `amazonaws.com.cn`, GovCloud `amazonaws.com`. */
function imageUriOf(account: string, region: string, row: ImageRow): string {
  const domain = region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `${account}.dkr.ecr.${region}.${domain}/${row.repository}:${row.tag}`;
}

function servesBase(row: ImageRow, requested: BaseFramework | undefined): boolean {
  if (requested === undefined) return true;
  const base = row.baseFramework;
  return (
    base !== undefined &&
    base.name === requested.name &&
    (isVersionPrefix(requested.version, base.version) || isVersionPrefix(base.version, requested.version))
  );
}

function servesVersion(row: ImageRow, requested: string | undefined): boolean {
  if (requested === undefined) return true;
  const lines = [row.version, ...(row.alsoServes ?? [])];
  // `2.1` asks for the 2.1 line (2.1.0, 2.1.2); a Neo image `2.0` serves any 2.0.x model.
  if (lines.some((line) => isVersionPrefix(requested, line) || isVersionPrefix(line, requested))) return true;
  return row.servesUpTo !== undefined && compareVersions(requested, row.servesUpTo) <= 0;
}

/** `2.1` is a prefix of `2.1`, `2.1.0` and (SageMaker XGBoost style) `2.1-1`, not of `2.10`. */
function isVersionPrefix(prefix: string, version: string): boolean {
  return version === prefix || version.startsWith(`${prefix}.`) || version.startsWith(`${prefix}-`);
}

/** Numeric, component-wise (`2.10` > `2.9`; `1.7-1` > `1.7`); a non-numeric part (`latest`) counts as 0. */
function compareVersions(a: string, b: string): number {
  const parts = (version: string): number[] =>
    version.split(/[.-]/).map((part) => Number.parseInt(part, 10) || 0);
  const [left, right] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(left.length, right.length); i += 1) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

function newestFirst(rows: readonly ImageRow[]): ImageRow[] {
  return [...rows].sort((a, b) => compareVersions(b.version, a.version));
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function describeVersion(row: ImageRow): string {
  if (row.baseFramework !== undefined)
    return `${row.version} with ${row.baseFramework.name} ${row.baseFramework.version}`;
  return row.servesUpTo === undefined
    ? row.version
    : `${row.version} (serves models up to ${row.servesUpTo})`;
}

const PLATFORM_LABELS: Readonly<Record<ServingPlatform, string>> = {
  cpu: 'x86 CPU',
  gpu: 'NVIDIA GPU',
  graviton: 'Graviton (arm64) CPU',
  inf1: 'Inferentia (ml_inf1)',
  neuronx: 'Inferentia2/Trainium (ml_inf2)',
};

function contextLabel(compiled: boolean, platform: ServingPlatform): string {
  return `${compiled ? 'compiled for' : 'uncompiled on'} ${PLATFORM_LABELS[platform]}`;
}

function describeContexts(rows: readonly ImageRow[]): string {
  return unique(rows.map((row) => contextLabel(row.compiled, row.platform))).join(', ');
}

/** Why a whole context is empty, when there is a known reason (and what to do instead). */
function whyNone(framework: Framework, compiled: boolean, platform: ServingPlatform): string {
  if (framework === 'onnx' && !compiled) {
    return (
      'ONNX has no first-party SageMaker serving container for uncompiled models: build the project model ' +
      'server (local/model-server/Dockerfile) and push it to ECR, or compile the model with Neo. '
    );
  }
  if (framework === 'huggingface' && (platform === 'inf1' || platform === 'neuronx')) {
    return (
      'The Hugging Face inference toolkit refuses Hub models on Neuron, and Neo cannot compile a model it has no data for: ' +
      'serve it on CPU or GPU instances. '
    );
  }
  if (framework === 'vllm' && (platform === 'inf1' || platform === 'neuronx')) {
    return (
      'The table lists the Hugging Face vLLM DLC for NVIDIA GPUs only (its Neuron build, huggingface-vllm-neuronx.json, ' +
      'is not in the table): serve it on GPU instances, or use djl-lmi or hf-tgi on Inferentia2/Trainium. '
    );
  }
  if (isLlmContainer(framework)) {
    return `${framework} images are built for NVIDIA GPUs${framework === 'vllm' ? '' : ' and Inferentia2/Trainium'}: choose such an instance. `;
  }
  if (framework === 'tflite') {
    return 'SageMaker has no TFLite serving container, and Neo compiles TFLite only for edge devices. ';
  }
  if (framework === 'keras' && !compiled) {
    return 'SageMaker has no Keras serving container; Neo-compiled Keras models run on sagemaker-neo-keras. ';
  }
  if (!compiled && (platform === 'inf1' || platform === 'neuronx')) {
    return 'Inferentia and Trainium instances serve compiled artifacts: set the candidate compiledFor. ';
  }
  if (compiled && platform === 'graviton') {
    return 'The Neo images the table lists are x86 or NVIDIA builds; none is listed for Graviton. ';
  }
  return '';
}

function noServingImage(
  request: ServingImageRequest,
  whatTheTableHas: string,
  details: Record<string, unknown>,
): NoServingImageError {
  const base = request.baseFramework;
  const asked =
    `${request.framework}${request.frameworkVersion === undefined ? '' : ` ${request.frameworkVersion}`}` +
    (base === undefined ? '' : ` with ${base.name} ${base.version}`) +
    ` ${request.compiledFor === undefined ? 'uncompiled' : `compiled for ${request.compiledFor}`}` +
    ` on ${request.instanceType} in ${request.region}`;
  const fix =
    request.compiledFor === undefined
      ? 'Set model.image to an ECR image URI to override the table.'
      : 'The compilation job named no InferenceImage: set model.compiledImage to the ECR URI of an image ' +
        'that runs Neo artifacts (model.image serves uncompiled candidates only).';
  return new NoServingImageError(`No serving image for ${asked}: ${whatTheTableHas.trimEnd()} ${fix}`, {
    framework: request.framework,
    frameworkVersion: request.frameworkVersion,
    region: request.region,
    instanceType: request.instanceType,
    compiledFor: request.compiledFor,
    ...details,
  });
}
