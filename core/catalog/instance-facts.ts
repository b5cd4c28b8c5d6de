import { COMPILATION_TARGETS } from '../contracts/index.js';

/**
 * The shape of the generated instance table (instance-table.ts) and of its source data
 * (sources/instance-facts.json). `'unknown'` marks a fact no source read for the catalog gives: the
 * planner cannot check what rests on it, and says so, rather than guessing.
 */

export type Unknown = 'unknown';

/** `ml.g5.xlarge` → `g5`: the X of ml.X.Y. */
export function familyOf(instanceType: string): string {
  return instanceType.split('.')[1] ?? instanceType;
}

export type Accelerator =
  | 'none'
  | 'nvidia-k80'
  | 'nvidia-v100'
  | 'nvidia-t4'
  | 'nvidia-a10g'
  | 'nvidia-l4'
  | 'nvidia-l40s'
  | 'nvidia-a100'
  | 'nvidia-h100'
  | 'nvidia-h200'
  | 'nvidia-b200'
  | 'nvidia-b300'
  | 'nvidia-rtx-pro-4500'
  | 'nvidia-rtx-pro-6000'
  | 'habana-gaudi'
  | 'inferentia'
  | 'inferentia2'
  | 'trainium'
  | 'trainium2';

/** An NVIDIA GPU: CUDA runs on it, at the compute capability COMPUTE_CAPABILITY gives (if any). */
export function isNvidiaGpu(accelerator: Accelerator | Unknown): boolean {
  return accelerator.startsWith('nvidia-');
}

/**
 * CUDA compute capability per NVIDIA GPU (NVIDIA, "CUDA GPU Compute Capability",
 * https://developer.nvidia.com/cuda-gpus: T4 7.5, A10 (A10G) 8.6, L4 8.9, L40S 8.9, A100 8.0, H100 9.0, H200
 * 9.0; the older GPUs on "Legacy CUDA GPU Compute Capability", https://developer.nvidia.com/cuda-legacy-gpus:
 * Tesla K80 3.7, V100 7.0). The Blackwell GPUs (B200, B300, RTX PRO) are left out on purpose: the image
 * table's CUDA rule (MIN_COMPUTE_CAPABILITY_BY_CUDA_MAJOR) knows only a floor per CUDA release, not the
 * release that first builds for a new architecture, so it would call every CUDA 12 image runnable on
 * them; their compute capability stays unknown and the planner says it cannot check it.
 */
export const COMPUTE_CAPABILITY: Readonly<Partial<Record<Accelerator, number>>> = {
  'nvidia-k80': 3.7,
  'nvidia-v100': 7.0,
  'nvidia-t4': 7.5,
  'nvidia-a10g': 8.6,
  'nvidia-l4': 8.9,
  'nvidia-l40s': 8.9,
  'nvidia-a100': 8.0,
  'nvidia-h100': 9.0,
  'nvidia-h200': 9.0,
};

/**
 * Families whose Neo TargetDevice (ml_<family>) the planner compiles for: the run input's
 * compilation targets (contracts/compilation-targets.ts). The SDK's TargetDevice enum also lists the
 * NEO_TARGET_FAMILIES_NOT_PLANNED, which the Neo support table (neo-support.ts) does not describe
 * yet, so those families serve uncompiled models here.
 */
export const NEO_TARGET_FAMILIES: readonly string[] = COMPILATION_TARGETS.map((target) =>
  target.slice('ml_'.length),
);

/** Hosting families whose ml_<family> is a Neo TargetDevice that NEO_TARGET_FAMILIES leaves out. */
export const NEO_TARGET_FAMILIES_NOT_PLANNED: readonly string[] = ['c4', 'm4', 'p2', 'trn1'];

/** One SageMaker hosting instance type, as the generator writes it. */
export interface InstanceFacts {
  readonly instanceType: string;
  readonly vcpus: number | Unknown;
  readonly memoryGiB: number | Unknown;
  readonly accelerator: Accelerator | Unknown;
  /** GPUs, or Inferentia/Trainium chips; 0 without an accelerator. */
  readonly acceleratorDevices: number | Unknown;
  /** Memory of all the instance's accelerator devices together, in GiB; 0 without an accelerator. */
  readonly acceleratorMemoryGiB: number | Unknown;
  /** NeuronCores (the tensor-parallel unit on Inferentia and Trainium); 0 on other instances. */
  readonly neuronCores: number | Unknown;
  /** The NVIDIA GPU's CUDA compute capability; null without an NVIDIA GPU. */
  readonly computeCapability: number | null | Unknown;
  /** The newest CUDA major release that still builds for the GPU; null without an NVIDIA GPU. */
  readonly newestCudaMajor: number | null | Unknown;
  /** The SageMaker Neo TargetDevice the planner compiles for on this type; null when none. */
  readonly neoTarget: string | null;
  /** The LLM containers with an image in the image table that runs on this accelerator. */
  readonly llmContainers: readonly string[] | Unknown;
}

export interface FactSource {
  readonly url: string;
  readonly readFrom: string;
  readonly readOn: string;
}

export interface FamilyFacts {
  readonly accelerator: Accelerator | Unknown;
  readonly source: string;
  readonly deviceMemoryGiB?: number;
  readonly deviceMemorySource?: string;
  readonly neuronCoresPerDevice?: number;
  readonly neuronCoresSource?: string;
}

/** sources/instance-facts.json. */
export interface InstanceFactsFile {
  readonly about: string;
  readonly sources: Readonly<Record<string, FactSource>>;
  readonly hosts: Readonly<Record<string, { vcpus: number; memoryGiB: number; source: string }>>;
  readonly acceleratorDevices: Readonly<Record<string, { devices: number; source: string }>>;
  readonly families: Readonly<Record<string, FamilyFacts>>;
}
