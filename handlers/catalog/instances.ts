/**
 * What the planner knows about SageMaker hosting instance types: vCPUs (the local CPU budget),
 * accelerator, the Neo target family that compiled artifacts must match, and an on-demand price.
 *
 * Prices: SageMaker real-time inference on-demand, us-east-1, USD per instance-hour, as listed on
 * https://aws.amazon.com/sagemaker/pricing/ ("Real-Time Inference"), recorded by the maintainers
 * (PRICE_TABLE_SOURCE below). Prices differ by region and change over time: the run input's
 * `pricing.usdPerHour` overrides any entry, and the report always states which price it used.
 */

export const PRICE_TABLE_SOURCE = {
  url: 'https://aws.amazon.com/sagemaker/pricing/',
  region: 'us-east-1',
  kind: 'Real-Time Inference, on-demand, per instance-hour',
  recordedOn: '2025-10-01',
} as const;

export type Accelerator = 'none' | 'nvidia-t4' | 'nvidia-a10g' | 'nvidia-v100' | 'inferentia' | 'inferentia2';

/**
 * The CUDA compute capability of each NVIDIA accelerator the catalog lists (NVIDIA, "CUDA GPUs -
 * Compute Capability", https://developer.nvidia.com/cuda-gpus: Tesla T4 7.5, A10G 8.6 as the A10,
 * Tesla V100 7.0). A CUDA image runs only on GPUs its CUDA release still builds for (images.ts).
 */
export const COMPUTE_CAPABILITY: Readonly<Partial<Record<Accelerator, number>>> = {
  'nvidia-t4': 7.5,
  'nvidia-a10g': 8.6,
  'nvidia-v100': 7.0,
};

export interface InstanceSpec {
  readonly instanceType: string;
  readonly vcpus: number;
  readonly memoryGiB: number;
  readonly accelerator: Accelerator;
  /** The NVIDIA GPU's CUDA compute capability (COMPUTE_CAPABILITY); absent for other accelerators. */
  readonly computeCapability?: number;
  /**
   * The accelerators a model can be sharded over (tensor parallelism): NVIDIA GPUs, or NeuronCores for
   * Inferentia and Trainium; 0 for CPU instances. Counts from the AWS instance-type pages
   * (https://aws.amazon.com/ec2/instance-types/g4/, /g5/, /p3/, /inf1/, /inf2/: GPUs or chips per
   * size) and the Neuron architecture pages for the cores per chip: four NeuronCore-v1 per Inferentia
   * chip, two NeuronCore-v2 per Inferentia2 chip
   * (https://awsdocs-neuron.readthedocs-hosted.com/en/latest/general/arch/neuron-hardware/inferentia.html,
   * .../inferentia2.html).
   */
  readonly acceleratorCount: number;
  /**
   * The SageMaker Neo `TargetDevice` whose compiled artifacts run on this instance; absent when
   * Neo has none for the family (the API's TargetDevice enum lists no `ml_t2` nor `ml_g5`:
   * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_OutputConfig.html), so such an
   * instance serves only uncompiled models.
   */
  readonly neoTarget?: string;
  readonly usdPerHour: number;
}

type Row = [
  instanceType: string,
  vcpus: number,
  memoryGiB: number,
  usdPerHour: number,
  acceleratorCount?: number,
];

function family(
  neoTarget: string | undefined,
  accelerator: Accelerator,
  rows: readonly Row[],
): InstanceSpec[] {
  const computeCapability = COMPUTE_CAPABILITY[accelerator];
  return rows.map(([instanceType, vcpus, memoryGiB, usdPerHour, acceleratorCount = 0]) => ({
    instanceType,
    vcpus,
    memoryGiB,
    accelerator,
    ...(computeCapability === undefined ? {} : { computeCapability }),
    acceleratorCount,
    ...(neoTarget === undefined ? {} : { neoTarget }),
    usdPerHour,
  }));
}

const CATALOG: readonly InstanceSpec[] = [
  ...family(undefined, 'none', [
    ['ml.t2.medium', 2, 4, 0.056],
    ['ml.t2.large', 2, 8, 0.111],
    ['ml.t2.xlarge', 4, 16, 0.223],
  ]),
  ...family('ml_m5', 'none', [
    ['ml.m5.large', 2, 8, 0.115],
    ['ml.m5.xlarge', 4, 16, 0.23],
    ['ml.m5.2xlarge', 8, 32, 0.461],
    ['ml.m5.4xlarge', 16, 64, 0.922],
    ['ml.m5.12xlarge', 48, 192, 2.765],
  ]),
  ...family('ml_c5', 'none', [
    ['ml.c5.large', 2, 4, 0.102],
    ['ml.c5.xlarge', 4, 8, 0.204],
    ['ml.c5.2xlarge', 8, 16, 0.408],
    ['ml.c5.4xlarge', 16, 32, 0.816],
    ['ml.c5.9xlarge', 36, 72, 1.836],
    ['ml.c5.18xlarge', 72, 144, 3.672],
  ]),
  ...family('ml_c6g', 'none', [
    ['ml.c6g.large', 2, 4, 0.082],
    ['ml.c6g.xlarge', 4, 8, 0.163],
    ['ml.c6g.2xlarge', 8, 16, 0.326],
    ['ml.c6g.4xlarge', 16, 32, 0.653],
  ]),
  ...family('ml_m6g', 'none', [
    ['ml.m6g.large', 2, 8, 0.092],
    ['ml.m6g.xlarge', 4, 16, 0.184],
    ['ml.m6g.2xlarge', 8, 32, 0.368],
  ]),
  ...family('ml_g4dn', 'nvidia-t4', [
    ['ml.g4dn.xlarge', 4, 16, 0.736, 1],
    ['ml.g4dn.2xlarge', 8, 32, 0.94, 1],
    ['ml.g4dn.4xlarge', 16, 64, 1.505, 1],
    ['ml.g4dn.8xlarge', 32, 128, 2.72, 1],
  ]),
  ...family(undefined, 'nvidia-a10g', [
    ['ml.g5.xlarge', 4, 16, 1.408, 1],
    ['ml.g5.2xlarge', 8, 32, 1.515, 1],
    ['ml.g5.4xlarge', 16, 64, 2.03, 1],
  ]),
  ...family('ml_p3', 'nvidia-v100', [['ml.p3.2xlarge', 8, 61, 3.825, 1]]),
  ...family('ml_inf1', 'inferentia', [
    ['ml.inf1.xlarge', 4, 8, 0.297, 4],
    ['ml.inf1.2xlarge', 8, 16, 0.471, 4],
    ['ml.inf1.6xlarge', 24, 48, 1.533, 16],
  ]),
  ...family('ml_inf2', 'inferentia2', [
    ['ml.inf2.xlarge', 4, 16, 0.99, 2],
    ['ml.inf2.8xlarge', 32, 128, 2.36, 2],
  ]),
];

const BY_TYPE = new Map(CATALOG.map((spec) => [spec.instanceType, spec]));

/**
 * Neo/Neuron targets the planner accepts: the catalog's `neoTarget`s, each a SageMaker
 * `TargetDevice` value (test/handlers/catalog/instances.test.ts checks them against the SDK's enum).
 */
export const COMPILATION_TARGETS: readonly string[] = [
  ...new Set(CATALOG.flatMap((spec) => (spec.neoTarget === undefined ? [] : [spec.neoTarget]))),
];

export function findInstance(instanceType: string): InstanceSpec | undefined {
  return BY_TYPE.get(instanceType);
}

export function knownInstanceTypes(): string[] {
  return [...BY_TYPE.keys()];
}

/** `ml.c5.xlarge` → `ml_c5`: the Neo target family an instance type belongs to (none for ml.g5, ml.t2). */
export function neoTargetOf(instanceType: string): string | undefined {
  return findInstance(instanceType)?.neoTarget;
}

/**
 * Serverless Inference, us-east-1: USD per second of inference duration per GB of configured
 * memory (same page and date as PRICE_TABLE_SOURCE; billed duration, data processing excluded).
 */
export const SERVERLESS_USD_PER_GB_SECOND = 0.00002;

/** AWS Lambda on arm64, us-east-1, USD per GB-second (https://aws.amazon.com/lambda/pricing/). */
export const LAMBDA_ARM64_USD_PER_GB_SECOND = 0.0000133334;
