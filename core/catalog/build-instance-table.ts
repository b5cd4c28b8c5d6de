import { IMAGE_TABLE } from './image-table.js';
import {
  type Accelerator,
  COMPUTE_CAPABILITY,
  familyOf,
  type FamilyFacts,
  isNvidiaGpu,
  type InstanceFacts,
  type InstanceFactsFile,
  NEO_TARGET_FAMILIES,
  type Unknown,
} from './instance-facts.js';
import { MIN_COMPUTE_CAPABILITY_BY_CUDA_MAJOR, runsOnGpu, servingPlatformOf } from './images.js';
import { LLM_CONTAINERS } from '../contracts/index.js';

/**
 * Merges the SDK's hosting instance types, the facts read from AWS pages (sources/instance-facts.json)
 * and the project's rules into the instance table (instance-table.ts, written by `npm run catalog`).
 * The rules:
 * - a type's family is the X of ml.X.Y; a family with no accelerator facts whose name reads as a CPU
 *   (servingPlatformOf: cpu or Graviton) has no accelerator;
 * - NVIDIA GPU → CUDA compute capability (COMPUTE_CAPABILITY; unknown for a GPU it leaves out) → the
 *   newest CUDA major release that still builds for it (MIN_COMPUTE_CAPABILITY_BY_CUDA_MAJOR) → the
 *   LLM containers with an image in the image table whose CUDA runs on it;
 * - NeuronCores = chips × cores per chip of the family;
 * - the Neo target is ml_<family> for the families in NEO_TARGET_FAMILIES.
 * A fact no source gives stays 'unknown'.
 */

const UNKNOWN: Unknown = 'unknown';

export function buildInstanceTable(
  instanceTypes: readonly string[],
  facts: InstanceFactsFile,
): InstanceFacts[] {
  return [...new Set(instanceTypes)]
    .sort(byFamilyAndSize)
    .map((instanceType) => buildRow(instanceType, facts));
}

function buildRow(instanceType: string, facts: InstanceFactsFile): InstanceFacts {
  const family = familyOf(instanceType);
  const host = facts.hosts[instanceType];
  const platform = servingPlatformOf(instanceType);
  const neoTarget = NEO_TARGET_FAMILIES.includes(family) ? `ml_${family}` : null;
  const base = {
    instanceType,
    vcpus: host?.vcpus ?? UNKNOWN,
    memoryGiB: host?.memoryGiB ?? UNKNOWN,
    neoTarget,
  };
  const familyFacts: FamilyFacts | undefined = facts.families[family];
  if (familyFacts === undefined && (platform === 'cpu' || platform === 'graviton')) {
    return {
      ...base,
      accelerator: 'none',
      acceleratorDevices: 0,
      acceleratorMemoryGiB: 0,
      neuronCores: 0,
      computeCapability: null,
      newestCudaMajor: null,
      llmContainers: [],
    };
  }
  const accelerator = familyFacts?.accelerator ?? UNKNOWN;
  const devices = facts.acceleratorDevices[instanceType]?.devices ?? UNKNOWN;
  const perDevice = familyFacts?.deviceMemoryGiB;
  const coresPerDevice = familyFacts?.neuronCoresPerDevice;
  const neuron = platform === 'inf1' || platform === 'neuronx';
  const capability = capabilityOf(accelerator);
  return {
    ...base,
    accelerator,
    acceleratorDevices: devices,
    acceleratorMemoryGiB: devices === UNKNOWN || perDevice === undefined ? UNKNOWN : devices * perDevice,
    neuronCores: neuron
      ? devices === UNKNOWN || coresPerDevice === undefined
        ? UNKNOWN
        : devices * coresPerDevice
      : 0,
    computeCapability: capability,
    newestCudaMajor: capability === UNKNOWN || capability === null ? capability : newestCudaMajor(capability),
    llmContainers:
      platform === 'gpu' && capability === UNKNOWN ? UNKNOWN : llmContainersFor(platform, capability),
  };
}

/**
 * The GPU's CUDA compute capability: null without an NVIDIA GPU, unknown for an NVIDIA GPU whose
 * capability COMPUTE_CAPABILITY does not give (the CUDA and LLM-container checks then say so).
 */
function capabilityOf(accelerator: Accelerator | Unknown): number | null | Unknown {
  if (accelerator === UNKNOWN) return UNKNOWN;
  return COMPUTE_CAPABILITY[accelerator] ?? (isNvidiaGpu(accelerator) ? UNKNOWN : null);
}

/** The newest CUDA major release whose lowest supported compute capability the GPU meets. */
function newestCudaMajor(capability: number): number | null {
  const majors = Object.entries(MIN_COMPUTE_CAPABILITY_BY_CUDA_MAJOR)
    .filter(([, floor]) => capability >= floor)
    .map(([major]) => Number(major));
  return majors.length === 0 ? null : Math.max(...majors);
}

function llmContainersFor(platform: string, capability: number | null | Unknown): string[] {
  const gpuCapability = typeof capability === 'number' ? capability : undefined;
  return LLM_CONTAINERS.filter((container) =>
    IMAGE_TABLE.some(
      (row) =>
        row.framework === container &&
        row.platform === platform &&
        (platform !== 'gpu' || (gpuCapability !== undefined && runsOnGpu(row, gpuCapability))),
    ),
  );
}

const SIZE_ORDER = ['medium', 'large', 'xlarge'];

/** ml.c5.large before ml.c5.xlarge before ml.c5.2xlarge: the order the pricing pages use. */
function byFamilyAndSize(a: string, b: string): number {
  const [, familyA = '', sizeA = ''] = a.split('.');
  const [, familyB = '', sizeB = ''] = b.split('.');
  if (familyA !== familyB) return familyA.localeCompare(familyB);
  return sizeRank(sizeA) - sizeRank(sizeB);
}

function sizeRank(size: string): number {
  const named = SIZE_ORDER.indexOf(size);
  if (named >= 0) return named;
  const multiple = /^(\d+)xlarge$/.exec(size)?.[1];
  return multiple === undefined ? 1000 : 2 + Number(multiple);
}

/** The generated module's text (before Prettier): the sources it rests on, then one row per type. */
export function renderInstanceTable(
  rows: readonly InstanceFacts[],
  facts: InstanceFactsFile,
  sdk: { readonly name: string; readonly version: string },
): string {
  const source = {
    sdk: `${sdk.name}@${sdk.version}, ProductionVariantInstanceType`,
    facts: 'core/catalog/sources/instance-facts.json',
    pages: Object.fromEntries(
      Object.entries(facts.sources).map(([key, value]) => [key, `${value.url} (read ${value.readOn})`]),
    ),
  };
  return [
    '// Generated by `npm run catalog` (local/catalog/write-instance-table.ts) from the SageMaker SDK',
    '// enum, sources/instance-facts.json and the rules in build-instance-table.ts. Do not edit by hand:',
    '// change the facts or the rules and run it again (test/core/catalog/instance-table.test.ts',
    '// fails while this file is stale).',
    "import type { InstanceFacts } from './instance-facts.js';",
    '',
    `export const INSTANCE_TABLE_SOURCE = ${JSON.stringify(source)} as const;`,
    '',
    `export const INSTANCE_TABLE: readonly InstanceFacts[] = ${JSON.stringify(rows)};`,
    '',
  ].join('\n');
}
