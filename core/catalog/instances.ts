import { type Accelerator, COMPUTE_CAPABILITY, type InstanceFacts, type Unknown } from './instance-facts.js';
import { INSTANCE_TABLE } from './instance-table.js';
import { recordedPriceOf } from './price-table.js';

export { type Accelerator, COMPUTE_CAPABILITY };

/**
 * What the planner knows about every SageMaker hosting instance type the API accepts: vCPUs (the
 * local CPU budget), memory, accelerator, the Neo target family that compiled artifacts must match,
 * and, for the types a public source prices, the recorded us-east-1 on-demand price. The facts come
 * from the generated table (instance-table.ts, `npm run catalog`), which names its sources; the
 * prices from the recorded price table (price-table.ts), whose every row names its source and date.
 * Prices differ by region and change over time: the run input's `pricing.usdPerHour` overrides any
 * entry, on AWS the planner reads the run region's prices live, and the plan and report say which
 * price they used.
 */

/**
 * One hosting instance type as the planner reads it: the generated table's facts (instance-table.ts,
 * `npm run catalog`), with each unknown number as `undefined` (the planner cannot check what rests on
 * it; `unknownFacts` names them for its warnings), and the recorded price if there is one.
 */
export interface InstanceSpec {
  readonly instanceType: string;
  readonly vcpus?: number;
  readonly memoryGiB?: number;
  readonly accelerator: Accelerator | Unknown;
  /** The NVIDIA GPU's CUDA compute capability; absent for other accelerators and when unknown. */
  readonly computeCapability?: number;
  /**
   * The accelerators a model can be sharded over (tensor parallelism): NVIDIA GPUs (or other
   * accelerator devices), NeuronCores on Inferentia and Trainium; 0 on CPU instances; absent when
   * unknown.
   */
  readonly acceleratorCount?: number;
  /** The memory of all the instance's accelerators together, GiB; 0 without one; absent when unknown. */
  readonly acceleratorMemoryGiB?: number;
  /** The newest CUDA major release that builds for the GPU; absent without an NVIDIA GPU or when unknown. */
  readonly newestCudaMajor?: number;
  /** The LLM containers with an image that runs on this accelerator; absent when unknown. */
  readonly llmContainers?: readonly string[];
  /**
   * The SageMaker Neo `TargetDevice` whose compiled artifacts run on this instance; absent when the
   * planner has no Neo target for the family (the API's TargetDevice enum lists no `ml_t2` nor
   * `ml_g5`: https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_OutputConfig.html), so such
   * an instance serves only uncompiled models.
   */
  readonly neoTarget?: string;
  /** On-demand USD per hour in us-east-1 from the recorded price table; absent when none is recorded. */
  readonly usdPerHour?: number;
  /** The facts of the generated table that no source gave for this type. */
  readonly unknownFacts: readonly (keyof InstanceFacts)[];
}

function known<T>(value: T | Unknown | null): T | undefined {
  return value === 'unknown' || value === null ? undefined : value;
}

function specOf(row: InstanceFacts): InstanceSpec {
  const acceleratorCount =
    row.neuronCores === 'unknown' || row.neuronCores > 0 ? row.neuronCores : row.acceleratorDevices;
  const values = {
    vcpus: known(row.vcpus),
    memoryGiB: known(row.memoryGiB),
    computeCapability: known(row.computeCapability),
    acceleratorCount: known(acceleratorCount),
    acceleratorMemoryGiB: known(row.acceleratorMemoryGiB),
    newestCudaMajor: known(row.newestCudaMajor),
    llmContainers: known(row.llmContainers),
    neoTarget: known(row.neoTarget),
    usdPerHour: recordedPriceOf(row.instanceType)?.usdPerHour,
  };
  return {
    instanceType: row.instanceType,
    accelerator: row.accelerator,
    ...Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)),
    unknownFacts: (Object.keys(row) as (keyof InstanceFacts)[]).filter((key) => row[key] === 'unknown'),
  };
}

const BY_TYPE = new Map(INSTANCE_TABLE.map((row) => [row.instanceType, specOf(row)]));

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
